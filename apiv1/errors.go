package apiv1

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrorCode is the machine code of an error body ("code") and of a failed
// job's error ("error.code").
type ErrorCode string

// Error codes. Each has one HTTP status (HTTPStatus); Codes lists them with
// where they can appear.
const (
	CodeUnauthorized             ErrorCode = "unauthorized"
	CodeProPlanRequired          ErrorCode = "pro_plan_required"
	CodeNotFound                 ErrorCode = "not_found"
	CodeOutputExpired            ErrorCode = "output_expired"
	CodeOriginalExpired          ErrorCode = "original_expired"
	CodeRouteNotFound            ErrorCode = "route_not_found"
	CodeMethodNotAllowed         ErrorCode = "method_not_allowed"
	CodeRangeNotSatisfiable      ErrorCode = "range_not_satisfiable"
	CodeProcessing               ErrorCode = "processing"
	CodeNotRendered              ErrorCode = "not_rendered"
	CodeFileTooLarge             ErrorCode = "file_too_large"
	CodeBodyTooLarge             ErrorCode = "body_too_large"
	CodeHeadersTooLarge          ErrorCode = "headers_too_large"
	CodeUnsupportedFormat        ErrorCode = "unsupported_format"
	CodeTooLong                  ErrorCode = "too_long"
	CodeNothingToKeep            ErrorCode = "nothing_to_keep"
	CodeInvalidParameter         ErrorCode = "invalid_parameter"
	CodeBadRequest               ErrorCode = "bad_request"
	CodeURLRefused               ErrorCode = "url_refused"
	CodeURLUnreachable           ErrorCode = "url_unreachable"
	CodeTooManyEvents            ErrorCode = "too_many_events"
	CodeTooManyCuts              ErrorCode = "too_many_cuts"
	CodeTranscriptionUnavailable ErrorCode = "transcription_unavailable"
	CodeTranscriptionFailed      ErrorCode = "transcription_failed"
	CodeRenderFailed             ErrorCode = "render_failed"
	CodeNotReady                 ErrorCode = "not_ready"
	CodeRequestTimeout           ErrorCode = "request_timeout"
	CodeRateLimited              ErrorCode = "rate_limited"
	CodeInsufficientStorage      ErrorCode = "insufficient_storage"
	CodeInternal                 ErrorCode = "internal"
)

// Scope says where a code can appear.
type Scope int

// Scopes; Codes takes them or'ed together.
const (
	InResponse Scope = 1 << iota // the body of a non-2xx HTTP answer
	InJob                        // the error of a failed job
)

// codeTable is the one table of error codes: each code's HTTP status and
// where it can appear. Codes that only a job records (render_failed,
// transcription_failed) have the status 500 they would mean in an answer.
var codeTable = [...]struct {
	code   ErrorCode
	status int
	in     Scope
}{
	{CodeUnauthorized, http.StatusUnauthorized, InResponse},
	{CodeProPlanRequired, http.StatusPaymentRequired, InResponse},
	{CodeNotFound, http.StatusNotFound, InResponse},
	{CodeOutputExpired, http.StatusNotFound, InResponse},
	// A re-run needs the original, deleted after its retention period.
	{CodeOriginalExpired, http.StatusNotFound, InResponse | InJob},
	{CodeRouteNotFound, http.StatusNotFound, InResponse},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed, InResponse},
	// A Range header outside the downloaded file.
	{CodeRangeNotSatisfiable, http.StatusRequestedRangeNotSatisfiable, InResponse},
	{CodeProcessing, http.StatusConflict, InResponse},
	// A download of a finished job that has no rendered file (autoExport
	// false, or a failed job), or the timelines, preview or envelope of a
	// job that failed before its plan or analysis was made: a PATCH with
	// action export runs it again.
	{CodeNotRendered, http.StatusConflict, InResponse},
	{CodeFileTooLarge, http.StatusRequestEntityTooLarge, InResponse},
	// A JSON request body (Form A, PATCH) over its limit.
	{CodeBodyTooLarge, http.StatusRequestEntityTooLarge, InResponse},
	// The request line and headers over the server's limit.
	{CodeHeadersTooLarge, http.StatusRequestHeaderFieldsTooLarge, InResponse},
	{CodeUnsupportedFormat, http.StatusUnsupportedMediaType, InResponse | InJob},
	// An input over the duration limit is well-formed and not too big in
	// bytes; its content cannot be processed, hence 422 (not 413).
	{CodeTooLong, http.StatusUnprocessableEntity, InResponse | InJob},
	{CodeNothingToKeep, http.StatusUnprocessableEntity, InResponse | InJob},
	{CodeInvalidParameter, http.StatusBadRequest, InResponse | InJob},
	{CodeBadRequest, http.StatusBadRequest, InResponse},
	{CodeURLRefused, http.StatusBadRequest, InResponse},
	{CodeURLUnreachable, http.StatusUnprocessableEntity, InResponse},
	// A single CMX 3600 list holds 999 events.
	{CodeTooManyEvents, http.StatusUnprocessableEntity, InResponse},
	// An explicit cut list over its bound (apiv1.MaxCuts, and one cut per
	// MinCutSpacing seconds of input).
	{CodeTooManyCuts, http.StatusUnprocessableEntity, InResponse},
	{CodeTranscriptionUnavailable, http.StatusNotImplemented, InResponse | InJob},
	{CodeTranscriptionFailed, http.StatusInternalServerError, InJob},
	{CodeRenderFailed, http.StatusInternalServerError, InJob},
	{CodeNotReady, http.StatusServiceUnavailable, InResponse},
	// An upload whose body stopped arriving (the connection is closed).
	{CodeRequestTimeout, http.StatusRequestTimeout, InResponse},
	// Too many uploads at once for one key; Retry-After says when to retry.
	{CodeRateLimited, http.StatusTooManyRequests, InResponse},
	// The server's disk is full (an upload cannot be stored).
	{CodeInsufficientStorage, http.StatusInsufficientStorage, InResponse},
	{CodeInternal, http.StatusInternalServerError, InResponse | InJob},
}

// HTTPStatus returns the status code an answer with this code has (500 for
// a code that is not in the table).
func (c ErrorCode) HTTPStatus() int {
	for _, r := range codeTable {
		if r.code == c {
			return r.status
		}
	}
	return http.StatusInternalServerError
}

// Codes returns the codes that can appear where in says (InResponse,
// InJob or both), in the table's order.
func Codes(in Scope) []ErrorCode {
	var out []ErrorCode
	for _, r := range codeTable {
		if r.in&in != 0 {
			out = append(out, r.code)
		}
	}
	return out
}

// IsJobCode reports whether a failed job can carry c.
func (c ErrorCode) IsJobCode() bool {
	for _, r := range codeTable {
		if r.code == c {
			return r.in&InJob != 0
		}
	}
	return false
}

// codeError is a sentinel error with its code. Sentinels compare by
// identity (errors.Is), so two with the same code stay distinct.
type codeError struct {
	code ErrorCode
	msg  string
}

func (e *codeError) Error() string { return e.msg }

// ErrorCode returns the sentinel's code.
func (e *codeError) ErrorCode() ErrorCode { return e.code }

// NewError returns a new sentinel error with a code and a message. The
// server packages declare theirs with it; CodeOf finds the code of an
// error that wraps one.
func NewError(code ErrorCode, message string) error { return &codeError{code: code, msg: message} }

// Errors of the API itself: the job layer and the HTTP adapter return
// them (wrapped), and on a client errors.Is matches an *Error of the same
// code against them.
var (
	ErrUnauthorized        = NewError(CodeUnauthorized, "missing or invalid API key")
	ErrProPlanRequired     = NewError(CodeProPlanRequired, "this API key has no Pro plan")
	ErrNotFound            = NewError(CodeNotFound, "job not found")
	ErrOutputExpired       = NewError(CodeOutputExpired, "rendered file has expired")
	ErrOriginalExpired     = NewError(CodeOriginalExpired, "original has expired")
	ErrRouteNotFound       = NewError(CodeRouteNotFound, "no such route")
	ErrMethodNotAllowed    = NewError(CodeMethodNotAllowed, "method not allowed")
	ErrRangeNotSatisfiable = NewError(CodeRangeNotSatisfiable, "range not satisfiable")
	ErrProcessing          = NewError(CodeProcessing, "job is being processed")
	ErrNotRendered         = NewError(CodeNotRendered, "job has no rendered file")
	ErrFileTooLarge        = NewError(CodeFileTooLarge, "file too large")
	ErrBodyTooLarge        = NewError(CodeBodyTooLarge, "request body too large")
	ErrHeadersTooLarge     = NewError(CodeHeadersTooLarge, "request headers too large")
	ErrBadRequest          = NewError(CodeBadRequest, "bad request")
	ErrURLRefused          = NewError(CodeURLRefused, "url refused")
	ErrURLUnreachable      = NewError(CodeURLUnreachable, "could not download the url")
	ErrTranscriptionFailed = NewError(CodeTranscriptionFailed, "transcription failed")
	ErrRenderFailed        = NewError(CodeRenderFailed, "render failed")
	ErrNotReady            = NewError(CodeNotReady, "not ready")
	ErrRequestTimeout      = NewError(CodeRequestTimeout, "request timeout")
	ErrRateLimited         = NewError(CodeRateLimited, "too many requests")
	ErrTooManyCuts         = NewError(CodeTooManyCuts, "too many cuts")
	ErrInsufficientStorage = NewError(CodeInsufficientStorage, "insufficient storage")
)

// Errors that the library packages detect on the server (dsp, plan,
// timeline, transcribe: the job layer's table, jobs.ErrorCode, gives them
// these codes). The server never returns these values; they are here so
// that a client can match every code: errors.Is(err, apiv1.ErrNothingToKeep).
var (
	ErrUnsupportedFormat        = NewError(CodeUnsupportedFormat, "unsupported format")
	ErrTooLong                  = NewError(CodeTooLong, "input too long")
	ErrNothingToKeep            = NewError(CodeNothingToKeep, "nothing to keep")
	ErrInvalidParameter         = NewError(CodeInvalidParameter, "invalid parameter")
	ErrTooManyEvents            = NewError(CodeTooManyEvents, "too many EDL events")
	ErrTranscriptionUnavailable = NewError(CodeTranscriptionUnavailable, "transcription unavailable")
	ErrInternal                 = NewError(CodeInternal, "internal server error")
)

// coder is an error that knows its code.
type coder interface{ ErrorCode() ErrorCode }

// CodeOf returns the code of the first error in err's chain that carries
// one (a sentinel of this package or one made by NewError, or an *Error).
func CodeOf(err error) (ErrorCode, bool) {
	var c coder
	if errors.As(err, &c) {
		return c.ErrorCode(), true
	}
	return "", false
}

// ErrorBody is the body of every non-2xx answer.
type ErrorBody struct {
	Error string    `json:"error"` // human-readable message
	Code  ErrorCode `json:"code"`
}

// Error is an error the API answered (Status is its HTTP status), or the
// error a failed job records (Status 0). errors.Is(err, ErrNotFound) and
// the like hold when the codes match.
type Error struct {
	Status  int       // HTTP status code; 0 for a failed job
	Code    ErrorCode // machine code, e.g. CodeUnsupportedFormat
	Message string    // the API's human-readable message
	// RetryAfter is the answer's Retry-After (a 429, a 503 during an
	// outage); 0 when it had none.
	RetryAfter time.Duration
}

// Error formats the status, code and message.
func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("autocut: job failed: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("autocut API: %d %s: %s", e.Status, e.Code, e.Message)
}

// ErrorCode returns e.Code.
func (e *Error) ErrorCode() ErrorCode { return e.Code }

// Is reports whether target carries the same code (the sentinels of this
// package do), so that errors.Is(err, ErrNotFound) works on a client.
func (e *Error) Is(target error) bool {
	c, ok := target.(coder)
	return ok && c.ErrorCode() == e.Code
}
