package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/jobs"
)

// errUnknownTimelineKind answers a timeline route with an unknown kind:
// the kinds are part of the route (the OpenAPI path's enum), so another is
// no such path, route_not_found; not_found would say that the job does
// not exist.
var errUnknownTimelineKind = apiv1.NewError(apiv1.CodeRouteNotFound, "no such route: unknown timeline kind")

// statusOf returns the HTTP status and machine code of err: the code is
// the job layer's (jobs.ErrorCode, the same a failed job records), the
// status that code's in apiv1's table.
func statusOf(err error) (int, apiv1.ErrorCode) {
	code := jobs.ErrorCode(err)
	return code.HTTPStatus(), code
}

// notReadyRetryAfter is the Retry-After of a 503 not_ready (seconds).
const notReadyRetryAfter = "5"

// writeError answers err as JSON with the text jobs.ClientMessage writes
// for clients (no server paths, tool output or internal text; 500s say
// nothing more). A 503 not_ready (the database or media storage not
// answering, or /readyz) carries Retry-After. The request log records err
// itself with the request id.
func writeError(w http.ResponseWriter, err error) {
	status, code := statusOf(err)
	msg := jobs.ClientMessage(err)
	if status == http.StatusInternalServerError {
		msg = "internal server error"
	}
	if code == apiv1.CodeNotReady {
		w.Header().Set("Retry-After", notReadyRetryAfter)
	}
	if rw, ok := w.(*respWriter); ok {
		rw.err = err
	}
	writeJSON(w, status, apiv1.ErrorBody{Error: msg, Code: code})
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
	// Two writes: appending the newline could copy a large answer.
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}
