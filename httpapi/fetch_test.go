package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
		def := ssrfGuard(false, nil)
		// The test's first hop stands in for a public server; every other
		// address goes through the production guard.
		c.guard = func(network, address string) error {
			if address == hopAddr {
				return nil
			}
			return def(network, address)
		}
	})
	const notPublic = "not a public address"
	tests := []struct{ name, url, wantInMsg string }{
		{"loopback", "http://127.0.0.1/a.wav", notPublic},
		{"loopback test server", files.URL + "/a.wav", "port is not allowed"},
		{"ipv6 loopback", "http://[::1]/a.wav", notPublic},
		{"private 10/8", "http://10.1.2.3/a.wav", notPublic},
		{"private 192.168", "http://192.168.0.1:8080/a.wav", notPublic},
		{"metadata", "http://169.254.169.254/latest/meta-data/", notPublic},
		{"unspecified", "http://0.0.0.0/a.wav", notPublic},
		{"dns name to loopback", "http://localhost/a.wav", notPublic},
		{"odd port", "http://93.184.215.14:22/a.wav", "port is not allowed (allowed: 80, 443, 8080, 8443)"},
		{"redirect to loopback", hop.URL + "/r?to=" + "http://127.0.0.1/a.wav", notPublic},
		{"redirect to dns loopback", hop.URL + "/r?to=" + "http://localhost:8080/a.wav", notPublic},
		{"redirect to metadata", hop.URL + "/r?to=" + "http://169.254.169.254/latest", notPublic},
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
			// A name's resolved address is the server's knowledge, not the client's.
			if strings.HasPrefix(tc.name, "dns") && strings.Contains(got.Error, "127.0.0.1") {
				t.Errorf("the refusal shows the resolved address: %q", got.Error)
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
	e := newTestEnv(t, func(c *Config) { c.AllowPrivateURLs, c.URLPorts, c.MaxUploadBytes = true, portsOf(t, files.URL), limit })
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

// anyPort lists every TCP port, for tests whose file servers listen on
// loopback ports the guard would otherwise refuse.
func anyPort() []uint16 {
	ps := make([]uint16, 0, 65535)
	for p := 1; p <= 65535; p++ {
		ps = append(ps, uint16(p))
	}
	return ps
}

// portsOf lists the ports of test servers' URLs.
func portsOf(t testing.TB, urls ...string) []uint16 {
	t.Helper()
	var ps []uint16
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		p, err := strconv.ParseUint(u.Port(), 10, 16)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, uint16(p))
	}
	return ps
}

// TestAllowPrivateURLsKeepsTheGuard: --allow-private-urls admits the
// private and loopback ranges and nothing else; the port list and the
// other special ranges (link-local metadata, "this network", multicast,
// CGNAT, documentation) stay refused, directly and through a redirect.
func TestAllowPrivateURLsKeepsTheGuard(t *testing.T) {
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		io.WriteString(w, "RIFF....WAVEdata")
	}))
	defer files.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "RIFF....WAVEdata") }))
	defer other.Close()
	e := newTestEnv(t, func(c *Config) { c.AllowPrivateURLs, c.URLPorts = true, append(portsOf(t, files.URL), 80) })
	tests := []struct {
		name, url string
		status    int
		code      apiv1.ErrorCode
		inMsg     string
	}{
		{"loopback on an allowed port", files.URL + "/a.wav", 202, "", ""},
		{"loopback by name", strings.Replace(files.URL, "127.0.0.1", "localhost", 1) + "/a.wav", 202, "", ""},
		{"loopback on another port", other.URL + "/a.wav", 400, "url_refused", "port is not allowed"},
		{"ssh port", "http://127.0.0.1:22/", 400, "url_refused", "port is not allowed"},
		{"metadata", "http://169.254.169.254:" + strconv.Itoa(int(portsOf(t, files.URL)[0])) + "/latest/meta-data/", 400, "url_refused", "not a public address"},
		{"metadata on port 80", "http://169.254.169.254/latest/meta-data/", 400, "url_refused", "not a public address"},
		{"this network", "http://0.0.0.0/a.wav", 400, "url_refused", "not a public address"},
		{"multicast", "http://224.0.0.1/a.wav", 400, "url_refused", "not a public address"},
		{"cgnat", "http://100.64.0.1/a.wav", 400, "url_refused", "not a public address"},
		{"ipv6 link-local", "http://[fe80::1]/a.wav", 400, "url_refused", "not a public address"},
		{"redirect to metadata", files.URL + "/r?to=http://169.254.169.254/latest", 400, "url_refused", "not a public address"},
		{"redirect to another port", files.URL + "/r?to=" + other.URL + "/a.wav", 400, "url_refused", "port is not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := formA(t, e, tc.url)
			if resp.StatusCode != tc.status {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, b, tc.status)
			}
			if tc.status == 202 {
				return
			}
			if got := decodeErr(t, b); got.Code != tc.code || !strings.Contains(got.Error, tc.inMsg) {
				t.Fatalf("got %q %q, want %s mentioning %q", got.Code, got.Error, tc.code, tc.inMsg)
			}
		})
	}
}

// ipRe finds IPv4 addresses and host:port pairs in a message.
var ipRe = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|\[?[0-9a-f]*::[0-9a-f:]*\]?|:53\b`)

// TestFetchErrorsLeakNothing: a failed download's message is written for
// the client: no resolver address, no resolved IP, no transport text, no
// byte of what an internal URL served; the detail goes to the server log
// with the request id.
func TestFetchErrorsLeakNothing(t *testing.T) {
	secret := "SECRET-internal-config password=hunter2 " + strings.Repeat("x", 5000)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/secret":
			io.WriteString(w, secret)
		case "/reset":
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	// A resolver whose DNS server cannot be reached: the lookup fails, as
	// it does for an unknown internal name, without leaving the machine.
	res := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: &net.UDPAddr{IP: net.IPv4(10, 9, 8, 7), Port: 53}, Err: errors.New("connection refused")}
	}}
	e := newTestEnv(t, func(c *Config) {
		c.AllowPrivateURLs, c.URLPorts, c.resolver = true, portsOf(t, files.URL, closed.URL), res
	})
	real := managerEnv(t, nil) // the job layer sniffs and refuses the content
	tests := []struct {
		name, url string
		status    int
		code      apiv1.ErrorCode
		msg       string
	}{
		{"unknown host", "http://media.internal.test:" + strconv.Itoa(int(portsOf(t, files.URL)[0])) + "/a.wav", 422, "url_unreachable", "the host name could not be resolved"},
		{"refused", closed.URL + "/a.wav", 422, "url_unreachable", "the server refused the connection"},
		{"reset", files.URL + "/reset", 422, "url_unreachable", "the server closed the connection"},
		{"404", files.URL + "/missing", 422, "url_unreachable", "the server answered 404 Not Found"},
		{"not media", files.URL + "/secret", 415, "unsupported_format", "not audio or video"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := e
			if tc.code == "unsupported_format" {
				e = real
			}
			resp, b := formA(t, e, tc.url)
			got := decodeErr(t, b)
			if resp.StatusCode != tc.status || got.Code != tc.code || !strings.Contains(got.Error, tc.msg) {
				t.Fatalf("got %d %q %q, want %d %s saying %q", resp.StatusCode, got.Code, got.Error, tc.status, tc.code, tc.msg)
			}
			for _, leak := range []string{"SECRET", "hunter2", "lookup", "dial", "tcp", "Get \"", "10.9.8.7"} {
				if strings.Contains(got.Error, leak) {
					t.Errorf("message leaks %q: %q", leak, got.Error)
				}
			}
			if ip := ipRe.FindString(got.Error); ip != "" {
				t.Errorf("message shows an address %q: %q", ip, got.Error)
			}
			// The detail is in the server log, with the request id.
			if tc.code == "url_unreachable" && !strings.Contains(e.logs.String(), resp.Header.Get("X-Request-Id")) {
				t.Errorf("no log line with request id %s", resp.Header.Get("X-Request-Id"))
			}
		})
	}
	if !strings.Contains(e.logs.String(), "lookup media.internal.test") {
		t.Errorf("the DNS failure's detail is not in the log:\n%s", e.logs.String())
	}
}

// TestSlowOriginDropped: a URL origin that trickles bytes is dropped once
// the grace period is over (minimum average rate), and a download that
// outlasts the total deadline is dropped too, each with a clear 422.
func TestSlowOriginDropped(t *testing.T) {
	trickle := func(every time.Duration, chunk int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "RIFF 6 ")
			for {
				if _, err := w.Write([]byte(strings.Repeat("x", chunk))); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(every):
				}
			}
		}
	}
	slow := httptest.NewServer(trickle(time.Second/5, 1))       // 5 bytes/s
	steady := httptest.NewServer(trickle(time.Second/50, 1024)) // 50 KiB/s, endless
	defer slow.Close()
	defer steady.Close()
	tests := []struct {
		name   string
		mod    func(*Config)
		url    string
		within time.Duration
		msg    string
	}{
		{"under the minimum rate", func(c *Config) { c.fetchRateGrace = time.Second }, slow.URL + "/a.wav", 5 * time.Second, "slower than 16 KiB/s"},
		{"over the deadline", func(c *Config) { c.FetchTimeout, c.FetchMinRate = 1500*time.Millisecond, -1 }, steady.URL + "/a.wav", 6 * time.Second, "did not finish within 1.5s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t, func(c *Config) {
				c.AllowPrivateURLs, c.URLPorts, c.MaxUploadBytes = true, portsOf(t, slow.URL, steady.URL), 1<<30
				tc.mod(c)
			})
			start := time.Now()
			resp, b := formA(t, e, tc.url)
			took := time.Since(start)
			got := decodeErr(t, b)
			if resp.StatusCode != 422 || got.Code != "url_unreachable" || !strings.Contains(got.Error, tc.msg) {
				t.Fatalf("got %d %s, want 422 url_unreachable saying %q", resp.StatusCode, b, tc.msg)
			}
			if took > tc.within {
				t.Errorf("dropped after %v, want within %v", took, tc.within)
			}
		})
	}
}
