package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
	"github.com/autocut-dev/autocut/transcribe"
)

// Errors of the HTTP layer itself; each maps to a status code in errorTable.
var (
	ErrUnauthorized     = errors.New("missing or invalid API key")
	ErrPlanRequired     = errors.New("this API key has no Pro plan")
	ErrBadRequest       = errors.New("bad request")
	ErrURLRefused       = errors.New("url refused")
	ErrURLFetch         = errors.New("could not download the url")
	ErrRouteNotFound    = errors.New("no such route")
	ErrMethodNotAllowed = errors.New("method not allowed")
	ErrTimelineNotFound = errors.New("unknown timeline kind")
	ErrNotReady         = errors.New("not ready")
)

// errorTable is the only place where errors become status codes. The first
// entry whose error matches (errors.Is) wins, so order specific before
// general.
var errorTable = []struct {
	err    error
	status int
	code   string
}{
	{ErrUnauthorized, http.StatusUnauthorized, "unauthorized"},
	{ErrPlanRequired, http.StatusPaymentRequired, "pro_plan_required"},
	{jobs.ErrExpired, http.StatusNotFound, "output_expired"},
	{jobs.ErrNotFound, http.StatusNotFound, "not_found"},
	{ErrTimelineNotFound, http.StatusNotFound, "not_found"},
	{ErrRouteNotFound, http.StatusNotFound, "route_not_found"},
	{ErrMethodNotAllowed, http.StatusMethodNotAllowed, "method_not_allowed"},
	{jobs.ErrConflict, http.StatusConflict, "processing"},
	{jobs.ErrTooLarge, http.StatusRequestEntityTooLarge, "file_too_large"},
	{dsp.ErrUnsupportedFormat, http.StatusUnsupportedMediaType, "unsupported_format"},
	// An input over the duration limit is well-formed and not too big in
	// bytes; the content cannot be processed, hence 422 (not 413).
	{dsp.ErrTooLong, http.StatusUnprocessableEntity, "too_long"},
	{plan.ErrNothingToKeep, http.StatusUnprocessableEntity, "nothing_to_keep"},
	{plan.ErrInvalidParams, http.StatusBadRequest, "invalid_parameter"},
	{timeline.ErrInvalidOptions, http.StatusBadRequest, "invalid_parameter"},
	// A single CMX 3600 list holds 999 events; the CLI splits longer EDLs.
	{timeline.ErrTooManyEvents, http.StatusUnprocessableEntity, "too_many_events"},
	{timeline.ErrNothingToKeep, http.StatusUnprocessableEntity, "nothing_to_keep"},
	{ErrURLRefused, http.StatusBadRequest, "url_refused"},
	{ErrURLFetch, http.StatusUnprocessableEntity, "url_unreachable"},
	{ErrBadRequest, http.StatusBadRequest, "bad_request"},
	{transcribe.ErrUnavailable, http.StatusNotImplemented, "transcription_unavailable"},
	{ErrNotReady, http.StatusServiceUnavailable, "not_ready"},
}

// statusOf returns the status code and machine code of err (500 "internal"
// when it matches no entry).
func statusOf(err error) (int, string) {
	for _, e := range errorTable {
		if errors.Is(err, e.err) {
			return e.status, e.code
		}
	}
	return http.StatusInternalServerError, "internal"
}

// errorBody is every non-2xx response body.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// writeError answers err as JSON. Internal errors do not leak their text.
func writeError(w http.ResponseWriter, err error) {
	status, code := statusOf(err)
	msg := err.Error()
	if status == http.StatusInternalServerError {
		msg = "internal server error"
	}
	if rw, ok := w.(*respWriter); ok {
		rw.err = err
	}
	writeJSON(w, status, errorBody{Error: msg, Code: code})
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"internal server error","code":"internal"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
