package jobs

import (
	"errors"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
	"github.com/autocut-dev/autocut/transcribe"
)

// libraryErrors gives the library packages' sentinel errors their API
// codes. The library packages know nothing of the API; apiv1 cannot import
// them (it is a leaf the client links), so this is the one place where
// their errors meet the codes. The codes' HTTP statuses are apiv1's table.
var libraryErrors = [...]struct {
	err  error
	code apiv1.ErrorCode
}{
	{dsp.ErrUnsupportedFormat, apiv1.CodeUnsupportedFormat},
	{dsp.ErrTooLong, apiv1.CodeTooLong},
	{plan.ErrNothingToKeep, apiv1.CodeNothingToKeep},
	{plan.ErrInvalidParams, apiv1.CodeInvalidParameter},
	{timeline.ErrInvalidOptions, apiv1.CodeInvalidParameter},
	{timeline.ErrTooManyEvents, apiv1.CodeTooManyEvents},
	{timeline.ErrNoWholeFrame, apiv1.CodeNothingToKeep},
	{transcribe.ErrUnavailable, apiv1.CodeTranscriptionUnavailable},
}

// ErrorCode returns the API code of err, used by the HTTP adapter for its
// answers and by the job layer for failed jobs alike: the code of the
// outermost apiv1 error in err's chain (apiv1.ErrNotFound, ...), else that
// of the first library error of the table it wraps, else
// apiv1.CodeInternal. nil has no code ("").
func ErrorCode(err error) apiv1.ErrorCode {
	if err == nil {
		return ""
	}
	if c, ok := apiv1.CodeOf(err); ok {
		return c
	}
	for _, e := range libraryErrors {
		if errors.Is(err, e.err) {
			return e.code
		}
	}
	return apiv1.CodeInternal
}
