package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/jobs"
)

// TestMetricsLabelsClosed sends requests with random method names and to
// unknown paths through the real server: /metrics must not grow with them
// (issue 16: 20,000 random methods made it 44.6 MB).
func TestMetricsLabelsClosed(t *testing.T) {
	e := newTestEnv(t, nil)
	metrics := func() string {
		resp, b := e.call(t, "GET", "/metrics", "", nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("/metrics: %d", resp.StatusCode)
		}
		return string(b)
	}
	// One request of each kind first, so that the series they need exist.
	e.call(t, "XYZZY", "/api/v1/jobs", proKey, nil, nil)
	e.call(t, "GET", "/no/such/path", "", nil, nil)
	before := metrics()
	rng := rand.New(rand.NewPCG(1, 16))
	const n = 600
	for i := range n {
		var m strings.Builder
		for range 12 {
			m.WriteByte(byte('A' + rng.IntN(26)))
		}
		path := "/api/v1/jobs"
		if i%2 == 1 {
			path = fmt.Sprintf("/random/%d", rng.Uint64())
		}
		resp, _ := e.call(t, m.String(), path, proKey, nil, nil)
		if resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
			t.Fatalf("%s %s: %d", m.String(), path, resp.StatusCode)
		}
	}
	after := metrics()
	growth := len(after) - len(before)
	t.Logf("/metrics grew by %d bytes after %d requests with random methods (%d -> %d bytes)", growth, n, len(before), len(after))
	if growth >= 30<<10 {
		t.Errorf("/metrics grew by %d bytes, want < 30 kB", growth)
	}
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "autocut_http_") && (strings.Contains(line, "/random/") || strings.Contains(line, "XYZZY")) {
			t.Errorf("a request's method or path became a label: %s", line)
			break
		}
	}
	if !strings.Contains(after, `method="other"`) {
		t.Errorf("no method=\"other\" series:\n%s", after)
	}
}

// goTypeName matches what Go type names and Go-side field paths look like
// in an error message (jobs.Options, apiv1.CreateFromURL, float64,
// Options.preset), none of which a client should see.
var goTypeName = regexp.MustCompile(`\b(apiv1|jobs|plan|dsp|json|http|reflect|main)\.[A-Za-z]|\b(float|u?int)(8|16|32|64)\b|\b(Options|Export|Params)\.[a-z]|\bstruct\b|\bGo (value|struct)`)

// TestProtocolErrorsAreJSON sends, over raw TCP, the requests net/http
// answers itself before any handler: every answer must be a JSON error
// body with a code of the table and its status.
func TestProtocolErrorsAreJSON(t *testing.T) {
	e := newTestEnv(t, nil)
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	tests := []struct {
		name       string
		request    string
		wantStatus int
		wantCode   apiv1.ErrorCode
	}{
		{"headers over the limit", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 100<<10) + "\r\n\r\n", 431, apiv1.CodeHeadersTooLarge},
		{"control byte in a header name", "GET /healthz HTTP/1.1\r\nHost: x\r\nBad\x01Name: v\r\n\r\n", 400, apiv1.CodeBadRequest},
		{"NUL in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n", 400, apiv1.CodeBadRequest},
		{"garbage request line", "GARBAGE\r\n\r\n", 400, apiv1.CodeBadRequest},
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, apiv1.CodeBadRequest},
		{"two Hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, apiv1.CodeBadRequest},
		{"HTTP/2 on the HTTP/1 port", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 400, apiv1.CodeBadRequest},
		{"unknown transfer coding", "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400, apiv1.CodeBadRequest},
		{"second request malformed", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nBad\x01Name: v\r\n\r\n", 400, apiv1.CodeBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(c, tc.request); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tc.name, "second") { // the first answer is the healthz one
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp, err = http.ReadResponse(br, nil); err != nil {
					t.Fatal(err)
				}
			}
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			var body apiv1.ErrorBody
			if err := json.Unmarshal(b, &body); err != nil || body.Error == "" {
				t.Fatalf("%d %q: not a JSON error body: %v", resp.StatusCode, b, err)
			}
			if resp.StatusCode != tc.wantStatus || body.Code != tc.wantCode || tc.wantCode.HTTPStatus() != tc.wantStatus {
				t.Errorf("got %d %s (%s), want %d %s", resp.StatusCode, body.Code, body.Error, tc.wantStatus, tc.wantCode)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			t.Logf("%d %s", resp.StatusCode, b)
		})
	}
	// Ordinary answers pass the listener unchanged, text/plain included.
	resp, b := e.call(t, "GET", "/healthz", "", nil, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"ok"`) {
		t.Errorf("healthz through the listener: %d %s", resp.StatusCode, b)
	}
}

// FuzzDecodeJSON holds the JSON body decoder to its contract for any
// input: no panic; nil or an error whose code is bad_request or
// body_too_large; a message without Go type names.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"url":"http://example.com/a.wav","preset":"podcast"}`, `{"preset":5}`, `[1]`, `{"params":{"thresholdDb":"loud"}}`,
		`{"params":{"minSpeechMs":1e999}}`, `{"export":{"format":["mp3"]}}`, `{"cuts":[{"start":"a"}]}`, `{"url":1}`, `null`, ``,
		`{"a":1}`, `{"preset":"podcast"} x`, `{"preset":"pod`, `"\ud800"`, `{"transcribe":"yes"}`, `{"action":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, dst := range []any{&apiv1.CreateFromURL{}, &apiv1.Patch{}, &apiv1.Options{}} {
			err := decodeJSON(bytes.NewReader(b), 256, dst, "body")
			if err == nil {
				continue
			}
			code := jobs.ErrorCode(err)
			if code != apiv1.CodeBadRequest && code != apiv1.CodeBodyTooLarge {
				t.Fatalf("%q into %T: code %s (%v)", b, dst, code, err)
			}
			if leak := goTypeName.FindString(err.Error()); leak != "" {
				t.Fatalf("%q into %T: message shows the Go name %q: %v", b, dst, leak, err)
			}
		}
	})
}
