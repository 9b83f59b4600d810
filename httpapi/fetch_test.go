package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/apiv1"
)

// formA posts a Form A job for url.
func formA(t *testing.T, e *testEnv, url string) (*http.Response, []byte) {
	t.Helper()
	return e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(fmt.Sprintf(`{"url":%q,"preset":"youtube"}`, url)),
		map[string]string{"Content-Type": "application/json"})
}

// TestSSRFRefusals: the default guard refuses every non-public destination,
// after DNS resolution and on each redirect, and never reaches the service.
func TestSSRFRefusals(t *testing.T) {
	// A real file server on loopback: without AllowPrivateURLs it must be
	// unreachable, even through a redirect from an "allowed" first hop.
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "RIFF secret internal data")
	}))
	defer files.Close()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	}))
	defer hop.Close()
	hopAddr := strings.TrimPrefix(hop.URL, "http://")
	e := newTestEnv(t, func(c *Config) {
		def := ssrfGuard()
		// The test's first hop stands in for a public server; every other
		// address goes through the production guard.
		c.guard = func(network, address string) error {
			if address == hopAddr {
				return nil
			}
			return def(network, address)
		}
	})
	tests := []struct{ name, url, wantInMsg string }{
		{"loopback", "http://127.0.0.1/a.wav", "prohibited IP"},
		{"loopback test server", files.URL + "/a.wav", "prohibited"},
		{"ipv6 loopback", "http://[::1]/a.wav", "prohibited IP"},
		{"private 10/8", "http://10.1.2.3/a.wav", "prohibited IP"},
		{"private 192.168", "http://192.168.0.1:8080/a.wav", "prohibited IP"},
		{"metadata", "http://169.254.169.254/latest/meta-data/", "prohibited IP"},
		{"unspecified", "http://0.0.0.0/a.wav", "prohibited IP"},
		{"dns name to loopback", "http://localhost/a.wav", "prohibited IP"},
		{"odd port", "http://93.184.215.14:22/a.wav", "prohibited port"},
		{"redirect to loopback", hop.URL + "/r?to=" + "http://127.0.0.1/a.wav", "prohibited IP"},
		{"redirect to dns loopback", hop.URL + "/r?to=" + "http://localhost:8080/a.wav", "prohibited IP"},
		{"redirect to metadata", hop.URL + "/r?to=" + "http://169.254.169.254/latest", "prohibited IP"},
		{"redirect to file scheme", hop.URL + "/r?to=" + "file:///etc/passwd", "scheme"},
		{"file scheme", "file:///etc/passwd", "scheme"},
		{"ftp scheme", "ftp://example.com/a.wav", "scheme"},
		{"credentials", "http://user:pw@example.com/a.wav", "credentials"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := formA(t, e, tc.url)
			got := decodeErr(t, b)
			if resp.StatusCode != 400 || got.Code != "url_refused" || !strings.Contains(got.Error, tc.wantInMsg) {
				t.Fatalf("got %d %q %q, want 400 url_refused mentioning %q", resp.StatusCode, got.Code, got.Error, tc.wantInMsg)
			}
		})
	}
	if e.fake.created != 0 {
		t.Fatalf("service received %d refused downloads", e.fake.created)
	}
	// The allowed first hop itself works when it serves content.
	resp, b := formA(t, e, hop.URL+"/r?to="+hop.URL+"/r")
	if resp.StatusCode == 202 || decodeErr(t, b).Code != "url_unreachable" {
		t.Fatalf("redirect loop: %d %s", resp.StatusCode, b)
	}
}

// TestFormADownload: with private URLs allowed (tests, trusted networks),
// Form A streams the file to the service, names it from the final URL, and
// enforces the size limit by Content-Length and while streaming.
func TestFormADownload(t *testing.T) {
	const limit = 1 << 20
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/dir/talk%20show.wav", "/dir/talk show.wav":
			w.Header().Set("Content-Type", "audio/wav")
			io.WriteString(w, "RIFF....WAVEdata")
		case "/big-declared.wav":
			w.Header().Set("Content-Length", fmt.Sprint(limit+1))
			io.Copy(w, io.LimitReader(zeroReader{}, limit+1))
		case "/big-chunked.wav":
			w.(http.Flusher).Flush() // no Content-Length: chunked
			io.Copy(w, io.LimitReader(zeroReader{}, 3*limit))
		case "/moved":
			http.Redirect(w, r, "/dir/talk%20show.wav", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	e := newTestEnv(t, func(c *Config) { c.AllowPrivateURLs = true; c.MaxUploadBytes = limit })
	resp, b := formA(t, e, files.URL+"/moved")
	if resp.StatusCode != 202 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if e.fake.lastReq.Name != "talk show.wav" || e.fake.lastReq.Options.Preset != "youtube" || e.fake.read != 16 {
		t.Errorf("create request %+v, read %d", e.fake.lastReq, e.fake.read)
	}
	for _, tc := range []struct {
		path   string
		status int
		code   apiv1.ErrorCode
	}{
		{"/big-declared.wav", 413, "file_too_large"},
		{"/big-chunked.wav", 413, "file_too_large"},
		{"/missing.wav", 422, "url_unreachable"},
	} {
		resp, b := formA(t, e, files.URL+tc.path)
		if got := decodeErr(t, b); resp.StatusCode != tc.status || got.Code != tc.code {
			t.Errorf("%s: %d %s", tc.path, resp.StatusCode, b)
		}
	}
	if e.fake.read > limit {
		t.Errorf("service read %d bytes past the limit", e.fake.read)
	}
	resp, b = e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(`{"preset":"youtube"}`), map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != 400 || !strings.Contains(decodeErr(t, b).Error, "url") {
		t.Errorf("no url: %d %s", resp.StatusCode, b)
	}
}
