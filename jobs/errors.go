package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/jobs/store"
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
	{syscall.ENOSPC, apiv1.CodeInsufficientStorage}, // a write to a full disk
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

// fixedMessage returns the message clients get for an error of code when
// the code's errors come from processing the media or from the server
// itself (decoders, ffmpeg, storage, the database, the transcription
// engine): their text holds server paths, tool output and internal
// detail, so none of it is shown. ok is false for the codes whose errors
// are made from the request alone (a field, a value, a job id, a limit),
// whose text is written for the client where the error is made.
func fixedMessage(code apiv1.ErrorCode) (msg string, ok bool) {
	switch code {
	case apiv1.CodeUnsupportedFormat:
		return "unsupported format: the content is not audio or video this server can decode, or it is damaged", true
	case apiv1.CodeRenderFailed:
		return "render failed: the cut file could not be encoded", true
	case apiv1.CodeTranscriptionFailed:
		return "transcription failed: the transcription engine could not transcribe this input", true
	case apiv1.CodeTranscriptionUnavailable:
		return "transcription unavailable: no transcription engine is available on this server", true
	case apiv1.CodeNotReady:
		return "not ready: the database, storage or workers are not ready", true
	case apiv1.CodeInsufficientStorage:
		return "insufficient storage: the server's disk is full; retry later", true
	case apiv1.CodeInternal:
		return "internal server error", true
	}
	return "", false
}

// clientError gives err a message written for clients (ClientMessage
// shows it in place of the code's fixed message); its Error is err's,
// with every detail, for the server log.
type clientError struct {
	err error
	msg string
}

func (e *clientError) Error() string { return e.err.Error() }
func (e *clientError) Unwrap() error { return e.err }

// withClientMessage returns err with msg as the text clients are shown.
func withClientMessage(err error, msg string) error { return &clientError{err: err, msg: msg} }

// ClientMessage returns the text shown to clients for err, in an HTTP
// error body and in a failed job's error.message (the HTTP adapter and
// the job layer both use it, so the two agree). An error given a client
// message by the job layer shows it (when nothing wrapping it changed its
// code); the codes of media processing and
// server failures (unsupported_format, render_failed,
// transcription_failed, transcription_unavailable, not_ready, internal)
// show a fixed message; the codes of request errors (bad_request,
// invalid_parameter, not_found, too_long, ...) show the error's text,
// which names the field or value at fault. The full error belongs in the
// server log, with the request or job id.
func ClientMessage(err error) string {
	if err == nil {
		return ""
	}
	code := ErrorCode(err)
	if ce, ok := errors.AsType[*clientError](err); ok && ErrorCode(ce) == code {
		return ce.msg
	}
	if msg, ok := fixedMessage(code); ok {
		return msg
	}
	return clientText(err, code)
}

// libraryPrefixes are the package prefixes the library packages start
// their error texts with ("plan: all 12 s would be cut: nothing to keep").
var libraryPrefixes = [...]string{"plan: ", "dsp: ", "timeline: ", "transcribe: "}

// clientText is the text of a request error of code without the context
// the server added on its way up: a wrapper whose text is a prefix
// ("store upload: ", "read upload: ") then exactly the text of the error
// it wraps is dropped while that error carries the same code and detail
// of its own (it is not a bare sentinel); then a library package prefix.
func clientText(err error, code apiv1.ErrorCode) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil || errors.Unwrap(inner) == nil || ErrorCode(inner) != code ||
			!strings.HasSuffix(err.Error(), ": "+inner.Error()) {
			break
		}
		err = inner
	}
	msg := err.Error()
	for _, p := range libraryPrefixes {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// unavailableMessage is what clients are shown for an outage (unavailable).
const unavailableMessage = "not ready: the database or the media storage is not answering; retry in a few seconds"

// readyProbe bounds the readiness check unavailable makes.
const readyProbe = 3 * time.Second

// unavailable gives *err the code not_ready (503) when it is an internal
// error and the database or the media storage does not answer right now
// (Ready fails), or its database connection broke (store.ErrConnection: a
// restart or a failover, over by the time Ready asks): an outage, which
// the client should retry, not a bug. Every Service method defers it.
func (m *Manager) unavailable(err *error) {
	if *err == nil || ErrorCode(*err) != apiv1.CodeInternal {
		return
	}
	if rerr := m.outage(); errors.Is(rerr, apiv1.ErrInsufficientStorage) {
		*err = fmt.Errorf("%w: %w (%v)", apiv1.ErrInsufficientStorage, *err, rerr)
	} else if rerr != nil {
		*err = withClientMessage(fmt.Errorf("%w: %w (%v)", apiv1.ErrNotReady, *err, rerr), unavailableMessage)
	} else if errors.Is(*err, store.ErrConnection) {
		*err = withClientMessage(fmt.Errorf("%w: %w", apiv1.ErrNotReady, *err), unavailableMessage)
	}
}

// storeFault is the error of a request while the database is one the
// store can tell is broken without asking it (store.Store.Check: a SQLite
// file deleted, replaced or read-only under the server): not_ready, as an
// outage is, before anything is read or written (a write would be lost
// with the unlinked file, or fail).
func (m *Manager) storeFault() error {
	if err := m.db.st.Check(); err != nil {
		return withClientMessage(fmt.Errorf("%w: database: %w", apiv1.ErrNotReady, err), unavailableMessage)
	}
	return nil
}

// outage returns why the database or the media storage does not answer
// right now (Ready's check, within readyProbe), or nil when both do.
func (m *Manager) outage() error {
	ctx, cancel := context.WithTimeout(context.Background(), readyProbe)
	defer cancel()
	return m.Ready(ctx)
}
