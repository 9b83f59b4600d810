package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/apiv1"
)

// TestDownloadRanges: ranges as RFC 9110 14 reads them: a suffix of 0
// bytes is satisfied by no byte (416 with the JSON error and
// Content-Range: bytes */size), a range unit other than bytes is ignored
// (200, the whole file), the unit matches without regard to case, and a
// set keeps its satisfiable ranges.
func TestDownloadRanges(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	size := len(fakeOutput)
	for _, tc := range []struct {
		rng          string
		status       int
		contentRange string
		body         string // "" for an error answer
	}{
		{"bytes=-0", 416, fmt.Sprintf("bytes */%d", size), ""},
		{"bytes= -0 , -0", 416, fmt.Sprintf("bytes */%d", size), ""},
		{"items=0-3", 200, "", fakeOutput},
		{"rows", 200, "", fakeOutput},
		{"Bytes=0-3", 206, fmt.Sprintf("bytes 0-3/%d", size), fakeOutput[:4]},
		{"bytes=-0,0-3", 206, fmt.Sprintf("bytes 0-3/%d", size), fakeOutput[:4]},
		{"bytes=-4", 206, fmt.Sprintf("bytes %d-%d/%d", size-4, size-1, size), fakeOutput[size-4:]},
		{"bytes=999-", 416, fmt.Sprintf("bytes */%d", size), ""},
	} {
		for _, path := range []string{"/download"} { // (the original is served by the same code)
			resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+path, proKey, nil, map[string]string{"Range": tc.rng})
			cr := resp.Header.Get("Content-Range")
			switch {
			case resp.StatusCode != tc.status || cr != tc.contentRange:
				t.Errorf("%s Range %q: %d Content-Range %q, want %d %q", path, tc.rng, resp.StatusCode, cr, tc.status, tc.contentRange)
			case tc.body != "" && string(b) != tc.body:
				t.Errorf("%s Range %q: body %q, want %q", path, tc.rng, b, tc.body)
			case tc.body == "" && decodeErr(t, b).Code != "range_not_satisfiable":
				t.Errorf("%s Range %q: %s", path, tc.rng, b)
			}
		}
	}
}

// TestFailedURLJobLogsNoQuery: a URL job whose download fails logs the
// failure without the URL's query (a signed URL's signature), directly
// and through a redirect; the client's answer is unchanged.
func TestFailedURLJobLogsNoQuery(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.AllowPrivateURLs, c.URLPorts = true, anyPort() })
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // nothing listens there any more
	const secret = "X-Amz-Signature=topsecret42"
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, closed.URL+"/b.wav?"+secret, http.StatusFound)
	}))
	defer redirect.Close()
	for _, u := range []string{closed.URL + "/a.wav?" + secret, redirect.URL + "/a.wav?" + secret} {
		resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(`{"url":"`+u+`"}`), map[string]string{"Content-Type": "application/json"})
		if resp.StatusCode != 422 || decodeErr(t, b).Code != "url_unreachable" {
			t.Errorf("%s: %d %s", u, resp.StatusCode, b)
		}
	}
	logs := e.logs.String()
	if n := strings.Count(logs, "url download failed"); n != 2 {
		t.Errorf("%d failed downloads logged, want 2:\n%s", n, logs)
	}
	if strings.Contains(logs, "topsecret42") {
		t.Errorf("the log holds a URL's query:\n%s", logs)
	}
}

// TestReadyzDiskFull: /readyz answers 507 insufficient_storage while the
// server's disk is full (its Ready says so), 503 for other failures.
func TestReadyzDiskFull(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   apiv1.ErrorCode
	}{
		{fmt.Errorf("%w: the disk of /srv/data/scratch is full (1048576 bytes free)", apiv1.ErrInsufficientStorage), 507, apiv1.CodeInsufficientStorage},
		{errors.New("database: connection refused"), 503, apiv1.CodeNotReady},
	} {
		e := newTestEnv(t, func(c *Config) { c.Ready = func(context.Context) error { return tc.err } })
		resp, b := e.call(t, "GET", "/readyz", "", nil, nil)
		if eb := decodeErr(t, b); resp.StatusCode != tc.status || eb.Code != tc.code || strings.Contains(eb.Error, "/srv") {
			t.Errorf("Ready %v: /readyz %d %+v, want %d %s", tc.err, resp.StatusCode, eb, tc.status, tc.code)
		}
	}
}
