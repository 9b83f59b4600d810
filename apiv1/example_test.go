package apiv1_test

import (
	"errors"
	"fmt"

	"github.com/autocut-dev/autocut/apiv1"
)

// Every code has one HTTP status; Codes lists them where they can appear.
func ExampleErrorCode_HTTPStatus() {
	for _, c := range []apiv1.ErrorCode{apiv1.CodeNotFound, apiv1.CodeUnsupportedFormat, apiv1.CodeNothingToKeep, apiv1.CodeTranscriptionUnavailable} {
		fmt.Println(c, c.HTTPStatus())
	}
	fmt.Println("a job can fail with:", apiv1.Codes(apiv1.InJob))
	// Output:
	// not_found 404
	// unsupported_format 415
	// nothing_to_keep 422
	// transcription_unavailable 501
	// a job can fail with: [original_expired unsupported_format too_long nothing_to_keep invalid_parameter transcription_unavailable transcription_failed render_failed internal]
}

// The server wraps a sentinel; CodeOf finds its code through the wrapping.
// A client decodes an *Error, which matches the sentinel of its code.
func ExampleCodeOf() {
	err := fmt.Errorf("job job_1: %w", apiv1.ErrProcessing)
	code, _ := apiv1.CodeOf(err)
	fmt.Println(code, code.HTTPStatus())

	var answered error = &apiv1.Error{Status: 409, Code: apiv1.CodeProcessing, Message: err.Error()}
	fmt.Println(errors.Is(answered, apiv1.ErrProcessing))
	// Output:
	// processing 409
	// true
}
