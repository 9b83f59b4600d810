package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
)

// Upload limits.
const (
	// DefaultUploadIdleTimeout closes an upload whose body sends no byte
	// for this long.
	DefaultUploadIdleTimeout = 30 * time.Second
	// DefaultMaxUploadsPerKey is how many uploads (both forms) one key
	// may run at once on a server.
	DefaultMaxUploadsPerKey = 4
	// uploadRetryAfter is the Retry-After of a 429 (seconds).
	uploadRetryAfter = "5"
)

// uploadSlots counts the uploads each owner runs, up to max at once.
type uploadSlots struct {
	max int // <= 0: no cap
	mu  sync.Mutex
	n   map[string]int
}

func newUploadSlots(max int) *uploadSlots {
	if max == 0 {
		max = DefaultMaxUploadsPerKey
	}
	return &uploadSlots{max: max, n: make(map[string]int)}
}

// acquire takes a slot for owner; release gives it back. It fails with
// apiv1.ErrRateLimited when owner already runs max uploads.
func (u *uploadSlots) acquire(owner string) (release func(), err error) {
	if u.max < 0 {
		return func() {}, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n[owner] >= u.max {
		return nil, fmt.Errorf("%w: this key already runs %d uploads at once, the most a key may; retry when one has finished", apiv1.ErrRateLimited, u.max)
	}
	u.n[owner]++
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			defer u.mu.Unlock()
			if u.n[owner]--; u.n[owner] <= 0 {
				delete(u.n, owner)
			}
		})
	}, nil
}

// uploadBody is an upload's request body with an idle limit: every read
// moves the connection's read deadline idle ahead, so a client that sends
// nothing for idle gets apiv1.ErrRequestTimeout and its connection is
// closed (net/http does not reuse a connection whose body read failed).
// At the end of the body the deadline is cleared, so that the rest of the
// request (storing, answering) runs without it.
type uploadBody struct {
	r    io.Reader
	rc   *http.ResponseController
	idle time.Duration
	ok   bool // the deadline can be set (HTTP/1 and HTTP/2 connections)
}

// newUploadBody wraps r.Body with idle (<= 0: no limit).
func newUploadBody(w http.ResponseWriter, r *http.Request, idle time.Duration) io.Reader {
	if idle <= 0 {
		return r.Body
	}
	b := &uploadBody{r: r.Body, rc: http.NewResponseController(w), idle: idle}
	b.ok = b.rc.SetReadDeadline(time.Now().Add(idle)) == nil
	if !b.ok {
		return r.Body
	}
	return b
}

func (b *uploadBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.idle))
	n, err := b.r.Read(p)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		_ = b.rc.SetReadDeadline(time.Time{})
	case isTimeout(err):
		err = fmt.Errorf("%w: the upload sent no data for %s; the connection is closed, send the file again", apiv1.ErrRequestTimeout, b.idle)
	}
	return n, err
}

// drainMax is the most of a refused upload's rest that is read before the
// answer (drainUpload).
const drainMax = 8 << 20

// drainIdle is how long drainUpload waits for each piece of the rest.
const drainIdle = 2 * time.Second

// drainUpload reads and discards the rest of an upload refused after its
// first bytes were read (its content sniffed: an unsupported format, a
// video export for an audio file), when at most drainMax bytes of it are
// left and they keep coming: the connection then stays open and the
// client reads the answer. Otherwise the answer closes the connection
// (closeIfUnread), and a client still sending when the server closes may
// get a reset in place of the answer it has not read yet. An upload not
// started (refused on its headers) is not read: a client that waits for
// the answer before sending gets it at once.
func drainUpload(w http.ResponseWriter, r *http.Request) {
	rw, ok := w.(*respWriter)
	if !ok || rw.body == nil || rw.body.done.Load() || rw.body.read.Load() == 0 {
		return
	}
	if r.ContentLength > 0 && r.ContentLength-rw.body.read.Load() > drainMax {
		return
	}
	// The upload's own reader: each read waits drainIdle at most.
	_, _ = io.CopyN(io.Discard, newUploadBody(w, r, drainIdle), drainMax)
}

// createFailed answers a failed job creation: a download's error with its
// client message (its detail goes to the log with the request id), a
// stalled upload or an over-limit one with Connection: close, a 429 with
// Retry-After.
func (s *server) createFailed(w http.ResponseWriter, r *http.Request, err error) {
	var fe *fetchError
	if errors.As(err, &fe) {
		s.log.Info("url download failed", "request_id", w.Header().Get("X-Request-Id"), "owner", identity(r).Owner, "err", fe.detail())
		err = fe
	}
	switch {
	case errors.Is(err, apiv1.ErrFileTooLarge), errors.Is(err, apiv1.ErrRequestTimeout):
		w.Header().Set("Connection", "close")
	default:
		drainUpload(w, r)
	case errors.Is(err, apiv1.ErrRateLimited):
		w.Header().Set("Retry-After", uploadRetryAfter)
		if r.ContentLength != 0 {
			w.Header().Set("Connection", "close") // the body is not read
		}
	}
	writeError(w, err)
}
