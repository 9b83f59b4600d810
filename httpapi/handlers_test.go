package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/syncbuf"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
	"github.com/autocut-dev/autocut/transcribe"
)

const (
	proKey  = "key-pro-1"
	proKey2 = "key-pro-2"
	freeKey = "key-free"
)

type testEnv struct {
	api  *server // the server behind srv
	srv  *httptest.Server
	fake *fakeService
	logs *syncbuf.Buffer
}

func newTestEnv(t testing.TB, mutate func(*Config)) *testEnv {
	t.Helper()
	keys := NewKeyStore()
	if err := keys.ParseKeys(proKey + ":pro," + proKey2 + ":pro\n" + freeKey + ":free"); err != nil {
		t.Fatal(err)
	}
	fake := newFake()
	logs := &syncbuf.Buffer{}
	cfg := Config{Service: fake, Keys: keys, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Timelines: func(w io.Writer, kind timeline.Kind, m *jobs.TimelineSource, o TimelineOptions) error {
			_, err := fmt.Fprintf(w, "%s keep=%v rate=%s v=%s df=%v media=%s", kind, m.Plan.Keep, o.Rate, o.FCPXMLVersion, o.DropFrame, o.MediaPath)
			return err
		}}
	if mutate != nil {
		mutate(&cfg)
	}
	// The server as autocut serve runs it: net/http's own protocol errors
	// made JSON by JSONErrorListener, headers limited to 64 KiB.
	api, h := newServer(cfg)
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = JSONErrorListener(srv.Listener)
	srv.Config.MaxHeaderBytes = 64 << 10
	srv.Start()
	t.Cleanup(srv.Close)
	return &testEnv{api: api, srv: srv, fake: fake, logs: logs}
}

// call sends a request and returns the response with its body read.
func (e *testEnv) call(t testing.TB, method, path, key string, body io.Reader, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// upload creates a job with Form B.
func (e *testEnv) upload(t testing.TB, key, name string, data string) apiv1.Job {
	t.Helper()
	resp, b := e.call(t, "POST", "/api/v1/jobs", key, strings.NewReader(data), map[string]string{"X-Filename": name})
	if resp.StatusCode != 202 {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	var v apiv1.Job
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func decodeErr(t testing.TB, b []byte) apiv1.ErrorBody {
	t.Helper()
	var e apiv1.ErrorBody
	if err := json.Unmarshal(b, &e); err != nil || e.Error == "" || e.Code == "" {
		t.Fatalf("not a JSON error body (%v): %s", err, b)
	}
	return e
}

// TestErrorStatuses drives every status of the spec's error table (and the
// adapter's own) through the real router and middleware.
func TestErrorStatuses(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.MaxUploadBytes = 1000
		c.Ready = func(context.Context) error { return errors.New("database: connection refused") }
		c.AllowPrivateURLs, c.URLPorts = true, anyPort()
		c.Timelines = func(w io.Writer, kind timeline.Kind, m *jobs.TimelineSource, o TimelineOptions) error {
			return fmt.Errorf("%w: this plan needs 1200", timeline.ErrTooManyEvents)
		}
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // nothing listens there any more
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	other := e.upload(t, proKey2, "b.wav", "RIFFdata").ID
	tests := []struct {
		name       string
		inject     map[string]error
		method     string
		path, key  string
		body       string
		hdr        map[string]string
		wantStatus int
		wantCode   apiv1.ErrorCode
	}{
		{"401 missing key", nil, "GET", "/api/v1/jobs/" + id, "", "", nil, 401, "unauthorized"},
		{"401 invalid key", nil, "GET", "/api/v1/jobs/" + id, "nope", "", nil, 401, "unauthorized"},
		{"401 basic auth", nil, "GET", "/api/v1/jobs/" + id, "", "", map[string]string{"Authorization": "Basic " + proKey}, 401, "unauthorized"},
		{"401 on download", nil, "GET", "/api/v1/jobs/" + id + "/download", "", "", nil, 401, "unauthorized"},
		{"401 on timeline", nil, "GET", "/api/v1/jobs/" + id + "/timelines/edl", "", "", nil, 401, "unauthorized"},
		{"402 free plan", nil, "GET", "/api/v1/jobs/" + id, freeKey, "", nil, 402, "pro_plan_required"},
		{"402 free plan create", nil, "POST", "/api/v1/jobs", freeKey, "RIFF", nil, 402, "pro_plan_required"},
		{"404 unknown job", nil, "GET", "/api/v1/jobs/job_nope", proKey, "", nil, 404, "not_found"},
		{"404 other key's job", nil, "GET", "/api/v1/jobs/" + other, proKey, "", nil, 404, "not_found"},
		{"404 other key's download", nil, "GET", "/api/v1/jobs/" + other + "/download", proKey, "", nil, 404, "not_found"},
		{"404 other key's delete", nil, "DELETE", "/api/v1/jobs/" + other, proKey, "", nil, 404, "not_found"},
		{"404 expired output", map[string]error{"OpenOutput": fmt.Errorf("wrapped: %w", apiv1.ErrOutputExpired)}, "GET", "/api/v1/jobs/" + id + "/download", proKey, "", nil, 404, "output_expired"},
		// The kinds are the route's: another is no such path (not_found is
		// for a job that does not exist, and this one does).
		{"404 unknown timeline kind", nil, "GET", "/api/v1/jobs/" + id + "/timelines/aaf", proKey, "", nil, 404, "route_not_found"},
		{"404 route", nil, "GET", "/api/v2/jobs", proKey, "", nil, 404, "route_not_found"},
		{"416 range outside the file", nil, "GET", "/api/v1/jobs/" + id + "/download", proKey, "", map[string]string{"Range": "bytes=999999-"}, 416, "range_not_satisfiable"},
		{"405 method", nil, "PUT", "/api/v1/jobs/" + id, proKey, "", nil, 405, "method_not_allowed"},
		{"409 patch while processing", map[string]error{"Update": fmt.Errorf("%w: busy", apiv1.ErrProcessing)}, "PATCH", "/api/v1/jobs/" + id, proKey, `{"action":"export"}`, nil, 409, "processing"},
		{"409 download before the render", map[string]error{"OpenOutput": fmt.Errorf("%w: rendering", apiv1.ErrProcessing)}, "GET", "/api/v1/jobs/" + id + "/download", proKey, "", nil, 409, "processing"},
		{"409 download of a job not rendered", map[string]error{"OpenOutput": fmt.Errorf("%w: autoExport false", apiv1.ErrNotRendered)}, "GET", "/api/v1/jobs/" + id + "/download", proKey, "", nil, 409, "not_rendered"},
		{"409 timeline before plan", map[string]error{"TimelineSource": apiv1.ErrProcessing}, "GET", "/api/v1/jobs/" + id + "/timelines/csv", proKey, "", nil, 409, "processing"},
		{"413 declared length", nil, "POST", "/api/v1/jobs", proKey, strings.Repeat("x", 1001), nil, 413, "file_too_large"},
		{"413 from service", map[string]error{"Create": apiv1.ErrFileTooLarge}, "POST", "/api/v1/jobs", proKey, "RIFF", nil, 413, "file_too_large"},
		{"413 JSON body over the cap", nil, "POST", "/api/v1/jobs", proKey, `{"url":"http://example.com/a.wav","preset":"` + strings.Repeat("x", maxJSONBody) + `"}`, map[string]string{"Content-Type": "application/json"}, 413, "body_too_large"},
		{"431 headers over the cap", nil, "GET", "/api/v1/jobs", proKey, "", map[string]string{"X-Padding": strings.Repeat("x", 80<<10)}, 431, "headers_too_large"},
		{"415 sniffed", nil, "POST", "/api/v1/jobs", proKey, "NOTMEDIA at all", map[string]string{"X-Filename": "x.wav"}, 415, "unsupported_format"},
		{"422 nothing to keep", map[string]error{"Update": fmt.Errorf("%w: all silence", plan.ErrNothingToKeep)}, "PATCH", "/api/v1/jobs/" + id, proKey, `{"action":"export"}`, nil, 422, "nothing_to_keep"},
		{"422 too long", map[string]error{"Create": fmt.Errorf("%w: 4h", dsp.ErrTooLong)}, "POST", "/api/v1/jobs", proKey, "RIFF", nil, 422, "too_long"},
		{"501 transcription", map[string]error{"Update": fmt.Errorf("%w: no engine", transcribe.ErrUnavailable)}, "PATCH", "/api/v1/jobs/" + id, proKey, `{"action":"transcribe"}`, nil, 501, "transcription_unavailable"},
		{"400 invalid params from service", map[string]error{"Create": fmt.Errorf("%w: minSpeechMs", plan.ErrInvalidParams)}, "POST", "/api/v1/jobs", proKey, "RIFF", nil, 400, "invalid_parameter"},
		{"400 empty body", nil, "POST", "/api/v1/jobs", proKey, "", nil, 400, "bad_request"},
		{"400 bad patch action", nil, "PATCH", "/api/v1/jobs/" + id, proKey, `{"action":"render"}`, nil, 400, "invalid_parameter"},
		{"400 bad list limit", nil, "GET", "/api/v1/jobs?limit=51", proKey, "", nil, 400, "bad_request"},
		{"500 internal", map[string]error{"Get": errors.New("disk on fire: /secret/path")}, "GET", "/api/v1/jobs/" + id, proKey, "", nil, 500, "internal"},
		{"500 panic", nil, "GET", "/api/v1/jobs/panic", proKey, "", nil, 500, "internal"},
		{"400 url scheme", nil, "POST", "/api/v1/jobs", proKey, `{"url":"ftp://example.com/a.wav"}`, map[string]string{"Content-Type": "application/json"}, 400, "url_refused"},
		{"422 url unreachable", nil, "POST", "/api/v1/jobs", proKey, `{"url":"` + closed.URL + `/a.wav"}`, map[string]string{"Content-Type": "application/json"}, 422, "url_unreachable"},
		{"404 original expired", map[string]error{"Update": fmt.Errorf("%w: upload it again", apiv1.ErrOriginalExpired)}, "PATCH", "/api/v1/jobs/" + id, proKey, `{"action":"export"}`, nil, 404, "original_expired"},
		{"422 too many cuts", nil, "PATCH", "/api/v1/jobs/" + id, proKey, cutList(20_001), nil, 422, "too_many_cuts"},
		{"422 too many EDL events", nil, "GET", "/api/v1/jobs/" + id + "/timelines/edl", proKey, "", nil, 422, "too_many_events"},
		{"503 not ready", nil, "GET", "/readyz", "", "", nil, 503, "not_ready"},
		{"507 disk full", map[string]error{"Create": fmt.Errorf("store upload: %w", &os.PathError{Op: "write", Path: "/srv/secret/originals/x", Err: syscall.ENOSPC})}, "POST", "/api/v1/jobs", proKey, "RIFF", nil, 507, "insufficient_storage"},
		// (the real stall and cap: TestUploadIdleTimeout, TestUploadsPerKeyCap)
		{"408 stalled upload", map[string]error{"Create": fmt.Errorf("store upload: %w", apiv1.ErrRequestTimeout)}, "POST", "/api/v1/jobs", proKey, "RIFF", nil, 408, "request_timeout"},
		{"429 uploads per key", map[string]error{"Create": apiv1.ErrRateLimited}, "POST", "/api/v1/jobs", proKey, "RIFF", nil, 429, "rate_limited"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.fake.mu.Lock()
			e.fake.errs = tc.inject
			e.fake.mu.Unlock()
			defer func() { e.fake.mu.Lock(); e.fake.errs = nil; e.fake.mu.Unlock() }()
			var body io.Reader
			if tc.body != "" || tc.method == "POST" {
				body = strings.NewReader(tc.body)
			}
			resp, b := e.call(t, tc.method, tc.path, tc.key, body, tc.hdr)
			got := decodeErr(t, b)
			if resp.StatusCode != tc.wantStatus || got.Code != tc.wantCode {
				t.Fatalf("got %d %q (%s), want %d %q", resp.StatusCode, got.Code, got.Error, tc.wantStatus, tc.wantCode)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if cd := resp.Header.Get("Content-Disposition"); cd != "" {
				t.Errorf("an error answer with Content-Disposition %q", cd)
			}
			if wa := resp.Header.Get("WWW-Authenticate"); (resp.StatusCode == 401) != strings.HasPrefix(wa, "Bearer ") {
				t.Errorf("status %d with WWW-Authenticate %q (a 401 needs a Bearer challenge)", resp.StatusCode, wa)
			}
			if resp.StatusCode == 401 && (tc.key == "" && tc.hdr == nil) == strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
				t.Errorf("WWW-Authenticate %q: invalid_token is for a key that was sent", resp.Header.Get("WWW-Authenticate"))
			}
			if resp.StatusCode >= 500 && strings.Contains(got.Error, "secret") {
				t.Errorf("internal error text leaked: %q", got.Error)
			}
			if resp.Header.Get("X-Request-Id") == "" && resp.StatusCode != 431 { // net/http answers 431 before any handler
				t.Error("no X-Request-Id")
			}
		})
	}
	if !strings.Contains(e.logs.String(), `"panic":"fake panic"`) {
		t.Error("panic not logged")
	}
	// Every code an answer can carry (apiv1's table, the OpenAPI enum) is
	// answered by some request above: none is documented and dead.
	seen := map[apiv1.ErrorCode]bool{}
	for _, tc := range tests {
		seen[tc.wantCode] = true
	}
	for _, c := range apiv1.Codes(apiv1.InResponse) {
		if !seen[c] {
			t.Errorf("no request answers %s", c)
		}
	}
}

// TestOptionsErrors checks that bad X-Options and Form A bodies answer 400
// naming the field, before any media byte is read.
func TestOptionsErrors(t *testing.T) {
	e := newTestEnv(t, nil)
	tests := []struct {
		name, opts string
		wantCode   apiv1.ErrorCode
		wantInMsg  string
	}{
		{"syntax", `{"preset":`, "bad_request", "X-Options"},
		{"unknown field", `{"presett":"podcast"}`, "bad_request", `"presett"`},
		{"wrong type", `{"autoExport":"yes"}`, "bad_request", "autoExport"},
		{"nested wrong type", `{"params":{"thresholdDb":"loud"}}`, "bad_request", "params.thresholdDb"},
		{"threshold range", `{"params":{"thresholdDb":-5}}`, "invalid_parameter", "params.thresholdDb"},
		{"minSilence range", `{"params":{"minSilenceSec":0.1}}`, "invalid_parameter", "params.minSilenceSec"},
		{"keepSilence range", `{"params":{"keepSilenceMs":2001}}`, "invalid_parameter", "params.keepSilenceMs"},
		{"minSpeech range", `{"params":{"minSpeechMs":-1}}`, "invalid_parameter", "params.minSpeechMs"},
		{"preset", `{"preset":"loud"}`, "invalid_parameter", "preset"},
		{"format", `{"export":{"format":"ogg"}}`, "invalid_parameter", "export.format"},
		{"normalize", `{"export":{"normalize":"ebu"}}`, "invalid_parameter", "export.normalize"},
		{"trailing", `{"preset":"podcast"} {}`, "bad_request", "trailing"},
		{"number for a string", `{"preset":5}`, "bad_request", "field preset must be a string, not a number"},
		{"string for a number", `{"params":{"minSpeechMs":"5"}}`, "bad_request", "field params.minSpeechMs must be a number, not a string"},
		{"list for an object", `{"export":[1]}`, "bad_request", "field export must be an object, not a list"},
		{"not an object", `[1]`, "bad_request", "must be a JSON object, not a list"},
		{"cut short", `{"preset":"podcast"`, "bad_request", "ends too early"},
		{"field name in capitals", `{"PRESET":"youtube"}`, "bad_request", `unknown field "PRESET"`},
		{"nested field name case", `{"params":{"ThresholdDb":-30}}`, "bad_request", `unknown field "params.ThresholdDb"`},
		{"repeated field", `{"preset":"podcast","preset":"youtube"}`, "bad_request", `field "preset" appears twice`},
		{"repeated nested field", `{"export":{"format":"mp3","format":"wav"}}`, "bad_request", `field "export.format" appears twice`},
		{"same field in two cases", `{"autoExport":false,"AutoExport":true}`, "bad_request", `"AutoExport"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := e.fake.created
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF...."), map[string]string{"X-Options": tc.opts})
			got := decodeErr(t, b)
			if resp.StatusCode != 400 || got.Code != tc.wantCode || !strings.Contains(got.Error, tc.wantInMsg) {
				t.Fatalf("got %d %q %q, want 400 %q mentioning %q", resp.StatusCode, got.Code, got.Error, tc.wantCode, tc.wantInMsg)
			}
			if e.fake.created != before {
				t.Error("service called despite bad options")
			}
			if leak := goTypeName.FindString(got.Error); leak != "" {
				t.Errorf("message shows the Go name %q: %s", leak, got.Error)
			}
			// The same options in Form A.
			if strings.HasPrefix(tc.opts, `{"`) && tc.name != "trailing" {
				body := `{"url":"http://example.invalid/a.wav",` + strings.TrimPrefix(tc.opts, "{")
				resp, b = e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(body), map[string]string{"Content-Type": "application/json"})
				got = decodeErr(t, b)
				if resp.StatusCode != 400 || !strings.Contains(got.Error, strings.TrimPrefix(tc.wantInMsg, "X-Options")) {
					t.Fatalf("Form A: got %d %q", resp.StatusCode, got.Error)
				}
				if leak := goTypeName.FindString(got.Error); leak != "" {
					t.Errorf("Form A: message shows the Go name %q: %s", leak, got.Error)
				}
			}
		})
	}
}

// TestDecodeJSONNames checks the exact-name and no-repeat rules on the
// other bodies: the PATCH body with its cut list, and Form A's url next to
// the embedded options.
func TestDecodeJSONNames(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		dst        any
		wantInMsg  string // "" = accepted
	}{
		{"patch", `{"params":{"minSilenceSec":1},"cuts":[{"start":1,"end":2}],"action":"export"}`, &apiv1.Patch{}, ""},
		{"patch cut field case", `{"cuts":[{"start":1,"end":2},{"Start":3,"end":4}]}`, &apiv1.Patch{}, `unknown field "cuts[1].Start"`},
		{"patch repeated cut field", `{"cuts":[{"start":1,"end":2,"end":3}]}`, &apiv1.Patch{}, `field "cuts[0].end" appears twice`},
		{"patch repeated action", `{"action":"export","action":"transcribe"}`, &apiv1.Patch{}, `field "action" appears twice`},
		{"form A", `{"url":"http://example.com/a.wav","preset":"cours","export":{"denoise":true}}`, &apiv1.CreateFromURL{}, ""},
		{"form A url case", `{"URL":"http://example.com/a.wav"}`, &apiv1.CreateFromURL{}, `unknown field "URL"`},
		{"escaped key is its name", `{"pre\u0073et":"cours"}`, &apiv1.Options{}, ""},
		{"Kelvin sign folds in encoding/json", `{"params":{"\u212AeepSilenceMs":100}}`, &apiv1.Options{}, `case-sensitive: "params.keepSilenceMs"`},
		{"long s folds in encoding/json", "{\"pre\u017Fet\":\"cours\"}", &apiv1.Options{}, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeJSON(strings.NewReader(tc.body), maxPatchBody, tc.dst, "body")
			if tc.wantInMsg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, apiv1.ErrBadRequest) || !strings.Contains(err.Error(), tc.wantInMsg) {
				t.Fatalf("got %v, want bad_request mentioning %s", err, tc.wantInMsg)
			}
		})
	}
}

// TestUploadLimit checks 413 both from a declared Content-Length (refused
// before the body is read) and while streaming a chunked body.
func TestUploadLimit(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.MaxUploadBytes = 1 << 20 })
	// Declared: the service is never called.
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/jobs", io.LimitReader(zeroReader{}, 5<<20))
	req.ContentLength = 5 << 20
	req.Header.Set("Authorization", "Bearer "+proKey)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 413 || decodeErr(t, b).Code != "file_too_large" {
			t.Fatalf("declared: %d %s", resp.StatusCode, b)
		}
	} // (the server may close the connection while the client still writes)
	if e.fake.created != 0 {
		t.Fatalf("service called for a declared oversize body")
	}
	// Streamed: chunked body without length, 1 MiB + 1 byte.
	req, _ = http.NewRequest("POST", e.srv.URL+"/api/v1/jobs", io.MultiReader(strings.NewReader("RIFF"), io.LimitReader(zeroReader{}, 1<<20-3)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+proKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || decodeErr(t, b).Code != "file_too_large" {
		t.Fatalf("streamed: %d %s", resp.StatusCode, b)
	}
	// (the service's "store input: " context is not shown)
	if msg := decodeErr(t, b).Error; msg != "file too large: the input exceeds the limit" {
		t.Errorf("streamed: message %q", msg)
	}
	if e.fake.read > 1<<20 {
		t.Errorf("service read %d bytes, more than the limit", e.fake.read)
	}
	// Exactly the limit passes.
	req, _ = http.NewRequest("POST", e.srv.URL+"/api/v1/jobs", io.MultiReader(strings.NewReader("RIFF"), io.LimitReader(zeroReader{}, 1<<20-4)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+proKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 202 || e.fake.read != 1<<20 {
		t.Fatalf("at the limit: %d, read %d", resp.StatusCode, e.fake.read)
	}
}

// TestInterruptedUpload: a client that stops mid-body gets a 400, not a 500.
func TestInterruptedUpload(t *testing.T) {
	e := newTestEnv(t, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100000\r\n\r\nRIFF partial", proKey)
	time.Sleep(100 * time.Millisecond)
	conn.(*net.TCPConn).CloseWrite()
	b, _ := io.ReadAll(conn)
	conn.Close()
	if !strings.HasPrefix(string(b), "HTTP/1.1 400") || !strings.Contains(string(b), "upload interrupted") {
		t.Fatalf("response: %q", b)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestJobView checks the job JSON: absolute URLs, timelines once a plan
// exists, error object, Location header, sanitized name.
func TestJobView(t *testing.T) {
	e := newTestEnv(t, nil)
	resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF...."),
		map[string]string{"X-Filename": "../../etc/pass%00wd.wav", "X-Options": `{"preset":"podcast","autoExport":false}`})
	if resp.StatusCode != 202 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	id := raw["id"].(string)
	tl := e.srv.URL + "/api/v1/jobs/" + id + "/timelines/"
	want := map[string]any{
		"id": id, "status": "analyzing", "progress": 0.0, "output": nil,
		// timelines is an object from the start (its URLs answer 409 until the plan).
		"timelines":  map[string]any{"fcpxml": tl + "fcpxml", "premiere": tl + "premiere", "edl": tl + "edl", "otio": tl + "otio", "csv": tl + "csv"},
		"input":      map[string]any{"name": "passwd.wav", "type": "", "duration": nil},
		"params":     map[string]any{"thresholdDb": nil, "minSilenceSec": 0.5, "keepSilenceMs": 200.0, "minSpeechMs": 100.0, "crosstalk": "keep"},
		"export":     map[string]any{"format": "mp3", "normalize": "none", "denoise": false, "rumble": false, "cutFillers": false},
		"transcribe": false, "autoExport": true, "createdAt": "2023-11-14T22:13:20Z", "updatedAt": "0001-01-01T00:00:00Z",
		"warnings": []any{}, // an array from the start, [] until the plan
	}
	if d := cmp.Diff(want, raw); d != "" {
		t.Errorf("job JSON (-want +got):\n%s", d)
	}
	if got := resp.Header.Get("Location"); got != e.srv.URL+"/api/v1/jobs/"+id {
		t.Errorf("Location %q", got)
	}
	if e.fake.lastReq.Options.Preset != "podcast" || e.fake.lastReq.Options.AutoExport == nil || *e.fake.lastReq.Options.AutoExport {
		t.Errorf("options not passed: %+v", e.fake.lastReq.Options)
	}
	// Finish the job in the fake: output, plan, failure error.
	e.fake.mu.Lock()
	j := e.fake.jobs[id]
	j.Status, j.Progress = apiv1.StatusDone, 100
	j.Output = &apiv1.Output{Format: "mp3", Duration: 1.5, Name: "passwd-autocut.mp3"}
	j.Plan = &apiv1.Plan{Keep: []apiv1.Range{{Start: 0, End: 1.5}}, Stats: apiv1.Stats{OriginalSec: 2, FinalSec: 1.5}}
	e.fake.mu.Unlock()
	_, b = e.call(t, "GET", "/api/v1/jobs/"+id, proKey, nil, map[string]string{"X-Forwarded-Proto": "https"})
	var v apiv1.Job
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	base := "https://" + strings.TrimPrefix(e.srv.URL, "http://") + "/api/v1/jobs/" + id
	if v.Output.URL != base+"/download" {
		t.Errorf("output.url %q", v.Output.URL)
	}
	wantTL := &apiv1.Timelines{FCPXML: base + "/timelines/fcpxml", Premiere: base + "/timelines/premiere", EDL: base + "/timelines/edl", OTIO: base + "/timelines/otio", CSV: base + "/timelines/csv"}
	if d := cmp.Diff(wantTL, v.Timelines); d != "" {
		t.Errorf("timelines (-want +got):\n%s", d)
	}
	// BaseURL wins over the request.
	e2 := newTestEnv(t, func(c *Config) { c.BaseURL = "https://api.example.com/" })
	v2 := e2.upload(t, proKey, "x.wav", "RIFF")
	e2.fake.mu.Lock()
	e2.fake.jobs[v2.ID].Output = &apiv1.Output{Name: "x-autocut.mp3"}
	e2.fake.jobs[v2.ID].Status = apiv1.StatusFailed
	e2.fake.jobs[v2.ID].Error = &apiv1.JobError{Code: "nothing_to_keep", Message: "all silence"}
	e2.fake.mu.Unlock()
	_, b = e2.call(t, "GET", "/api/v1/jobs/"+v2.ID, proKey, nil, nil)
	if !strings.Contains(string(b), `"url":"https://api.example.com/api/v1/jobs/`+v2.ID+`/download"`) ||
		!strings.Contains(string(b), `"error":{"code":"nothing_to_keep","message":"all silence"}`) {
		t.Errorf("job: %s", b)
	}
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"talk.wav":               "talk.wav",
		"../../etc/passwd":       "passwd",
		`C:\Users\me\talk.mp3`:   "talk.mp3",
		"..":                     "upload",
		"":                       "upload",
		".hidden.wav":            "hidden.wav",
		"a\x00b\r\nc\x7f.wav":    "abc.wav",
		"%2e%2e%2fetc%2fx.wav":   "x.wav",
		"caf%C3%A9 ok.wav":       "café ok.wav",
		"\u202egnp.exe":          "gnp.exe",
		`my "quoted" file?.wav`:  "my quoted file.wav",
		strings.Repeat("é", 150): strings.Repeat("é", 100),
	} {
		if got := sanitizeName(in); got != want {
			t.Errorf("sanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDownload(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFF").ID
	resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/download", proKey, nil, nil)
	if resp.StatusCode != 200 || string(b) != fakeOutput {
		t.Fatalf("%d %q", resp.StatusCode, b)
	}
	if got := resp.Header.Get("Content-Disposition"); got != `attachment; filename*=utf-8''talk%20%C3%A9-autocut.mp3` {
		t.Errorf("Content-Disposition %q", got)
	}
	if resp.Header.Get("Content-Type") != "audio/mpeg" || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("headers %v", resp.Header)
	}
	etag := resp.Header.Get("ETag")
	resp, b = e.call(t, "GET", "/api/v1/jobs/"+id+"/download", proKey, nil, map[string]string{"Range": "bytes=10-19"})
	if resp.StatusCode != 206 || string(b) != fakeOutput[10:20] || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 10-19/%d", len(fakeOutput)) {
		t.Fatalf("range: %d %q %q", resp.StatusCode, b, resp.Header.Get("Content-Range"))
	}
	resp, b = e.call(t, "HEAD", "/api/v1/jobs/"+id+"/download", proKey, nil, nil)
	if resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength != int64(len(fakeOutput)) {
		t.Fatalf("HEAD: %d %d %q", resp.StatusCode, resp.ContentLength, b)
	}
	resp, _ = e.call(t, "GET", "/api/v1/jobs/"+id+"/download", proKey, nil, map[string]string{"If-None-Match": etag})
	if resp.StatusCode != 304 {
		t.Fatalf("If-None-Match: %d", resp.StatusCode)
	}
}

// TestOriginal: the original is served like the output (type, name,
// ranges for a player's seeking, HEAD), to its owner only.
func TestOriginal(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFF").ID
	resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/original", proKey, nil, nil)
	if resp.StatusCode != 200 || string(b) != fakeOriginal || resp.Header.Get("Content-Type") != "audio/wav" ||
		resp.Header.Get("Content-Disposition") != `attachment; filename*=utf-8''talk%20%C3%A9.wav` {
		t.Fatalf("%d %q %v", resp.StatusCode, b, resp.Header)
	}
	resp, b = e.call(t, "GET", "/api/v1/jobs/"+id+"/original", proKey, nil, map[string]string{"Range": "bytes=4-11"})
	if resp.StatusCode != 206 || string(b) != fakeOriginal[4:12] {
		t.Errorf("range: %d %q", resp.StatusCode, b)
	}
	if resp, b := e.call(t, "HEAD", "/api/v1/jobs/"+id+"/original", proKey, nil, nil); resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength != int64(len(fakeOriginal)) {
		t.Errorf("HEAD: %d %d", resp.StatusCode, resp.ContentLength)
	}
	if resp, _ := e.call(t, "GET", "/api/v1/jobs/"+id+"/original", "", nil, nil); resp.StatusCode != 401 {
		t.Errorf("without a key: %d", resp.StatusCode)
	}
	if resp, _ := e.call(t, "GET", "/api/v1/jobs/"+id+"/original", proKey2, nil, nil); resp.StatusCode != 404 {
		t.Errorf("another key: %d", resp.StatusCode)
	}
	e.fake.mu.Lock()
	e.fake.errs = map[string]error{"OpenOriginal": apiv1.ErrOriginalExpired}
	e.fake.mu.Unlock()
	if resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/original", proKey, nil, nil); resp.StatusCode != 404 || !strings.Contains(string(b), "original_expired") {
		t.Errorf("expired: %d %s", resp.StatusCode, b)
	}
}

func TestTimelines(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFF").ID
	for _, tc := range []struct {
		kind, query, ct, file, body string
	}{
		{"fcpxml", "?rate=29.97&fcpxmlVersion=1.10&dropFrame=true", "application/xml; charset=utf-8", "talk-autocut.fcpxml", "fcpxml keep=[{0 1}] rate=30000/1001 v=1.10 df=true media="},
		{"premiere", "?rate=25", "application/xml; charset=utf-8", "talk-autocut.xml", "premiere keep=[{0 1}] rate=25 v= df=false media="},
		{"edl", "?rate=24000/1001", "text/plain; charset=utf-8", "talk-autocut.edl", "edl keep=[{0 1}] rate=24000/1001 v= df=false media="},
		{"otio", "?mediaPath=/Volumes/Media/talk.wav", "application/json", "talk-autocut.otio", "otio keep=[{0 1}] rate=0/0 v= df=false media=/Volumes/Media/talk.wav"},
		{"csv", "", "text/csv; charset=utf-8", "talk-autocut.csv", "csv keep=[{0 1}] rate=0/0 v= df=false media="},
	} {
		resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/timelines/"+tc.kind+tc.query, proKey, nil, nil)
		if resp.StatusCode != 200 || string(b) != tc.body || resp.Header.Get("Content-Type") != tc.ct ||
			resp.Header.Get("Content-Disposition") != `attachment; filename=`+tc.file {
			t.Errorf("%s: %d %q %q %q", tc.kind, resp.StatusCode, b, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
		}
	}
	for _, q := range []string{"?rate=0", "?rate=abc", "?rate=1/0", "?rate=500", "?fcpxmlVersion=2.0", "?dropFrame=maybe"} {
		resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/timelines/fcpxml"+q, proKey, nil, nil)
		if resp.StatusCode != 400 {
			t.Errorf("%s: %d %s", q, resp.StatusCode, b)
		}
	}
}

func TestListPatchDelete(t *testing.T) {
	e := newTestEnv(t, nil)
	var ids []string
	for i := range 7 {
		ids = append(ids, e.upload(t, proKey, fmt.Sprintf("f%d.wav", i), "RIFF").ID)
	}
	e.upload(t, proKey2, "other.wav", "RIFF")
	var got []string
	cursor := ""
	pages := 0
	for {
		_, b := e.call(t, "GET", "/api/v1/jobs?limit=3&cursor="+cursor, proKey, nil, nil)
		var page struct {
			Jobs       []apiv1.Job `json:"jobs"`
			NextCursor *string     `json:"nextCursor"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, j := range page.Jobs {
			got = append(got, j.ID)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	want := []string{ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}
	if d := cmp.Diff(want, got); d != "" || pages != 3 {
		t.Errorf("paging over %d pages (-want +got):\n%s", pages, d)
	}
	_, b := e.call(t, "GET", "/api/v1/jobs", freeKey, nil, nil)
	if decodeErr(t, b).Code != "pro_plan_required" {
		t.Error("free key listed")
	}
	_, b = e.call(t, "GET", "/api/v1/jobs?limit=50", proKey2, nil, nil)
	if !strings.HasPrefix(string(b), `{"jobs":[{`) || strings.Count(string(b), `"id"`) != 1 || !strings.Contains(string(b), `"nextCursor":null`) {
		t.Errorf("other key's list: %s", b)
	}
	resp, b := e.call(t, "PATCH", "/api/v1/jobs/"+ids[0], proKey, strings.NewReader(`{"params":{"thresholdDb":-45},"export":{"format":"wav"},"action":"export"}`), nil)
	if resp.StatusCode != 202 || !strings.Contains(string(b), `"id":"`+ids[0]+`"`) {
		t.Errorf("patch: %d %s", resp.StatusCode, b)
	}
	resp, b = e.call(t, "PATCH", "/api/v1/jobs/"+ids[0], proKey, strings.NewReader(`{"params":{"thresholdDb":-80}}`), nil)
	if resp.StatusCode != 400 || !strings.Contains(decodeErr(t, b).Error, "params.thresholdDb") {
		t.Errorf("patch range: %d %s", resp.StatusCode, b)
	}
	resp, b = e.call(t, "DELETE", "/api/v1/jobs/"+ids[0], proKey, nil, nil)
	if resp.StatusCode != 204 || len(b) != 0 {
		t.Errorf("delete: %d %s", resp.StatusCode, b)
	}
	resp, _ = e.call(t, "GET", "/api/v1/jobs/"+ids[0], proKey, nil, nil)
	if resp.StatusCode != 404 {
		t.Errorf("after delete: %d", resp.StatusCode)
	}
}

func TestPreviewEnvelope(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFF").ID
	_, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/preview?thresholdDb=-33.5", proKey, nil, nil)
	var p apiv1.Preview
	// The plan's own fields at the top (as before warnings were added), and warnings.
	if err := json.Unmarshal(b, &p); err != nil || p.ThresholdDb != -33.5 || !bytes.HasPrefix(b, []byte(`{"cuts":[]`)) || !bytes.HasSuffix(b, []byte(`"warnings":[]}`+"\n")) {
		t.Errorf("preview: %v %s", err, b)
	}
	for _, q := range []string{"?thresholdDb=-5", "?minSilenceSec=x", "?keepSilenceMs=5000"} {
		resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/preview"+q, proKey, nil, nil)
		if resp.StatusCode != 400 {
			t.Errorf("preview %s: %d %s", q, resp.StatusCode, b)
		}
	}
	e.fake.levels = []float32{-20.123, float32(math.Inf(-1)), float32(math.NaN()), -200}
	resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/envelope?points=100", proKey, nil, nil)
	if resp.StatusCode != 200 || string(b) != `{"start":0,"frameSec":0.05,"floorDb":-120,"levels":[-20.12,-120,-120,-120],"noiseFloorDb":-62,"speechLevelDb":-21,"thresholdDb":-45}`+"\n" {
		t.Errorf("envelope: %d %s", resp.StatusCode, b)
	}
	// A stretch: from and to reach the service; its start is in the answer.
	resp, b = e.call(t, "GET", "/api/v1/jobs/"+id+"/envelope?points=300&from=12.5&to=15.5", proKey, nil, nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), `{"start":12.5,`) || e.fake.lastEnvelope != (jobs.EnvelopeQuery{Points: 300, From: 12.5, To: 15.5}) {
		t.Errorf("envelope of 12.5..15.5 s: %d %s, query %+v", resp.StatusCode, b, e.fake.lastEnvelope)
	}
	for _, q := range []string{"?points=5", "?from=-1", "?from=x", "?to=NaN", "?from=3&to=2", "?from=3&to=3", "?to=0"} {
		if resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/envelope"+q, proKey, nil, nil); resp.StatusCode != 400 || !strings.Contains(string(b), "bad_request") {
			t.Errorf("envelope%s: %d %s", q, resp.StatusCode, b)
		}
	}
}

// downCollector fails as the jobs gauge does while the database is down.
type downCollector struct{}

var downDesc = prometheus.NewDesc("autocut_jobs", "Jobs by state.", []string{"state"}, nil)

func (downCollector) Describe(ch chan<- *prometheus.Desc) { ch <- downDesc }
func (downCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(downDesc, errors.New("database: dial tcp 10.0.0.5:5432: connect: connection refused"))
}

// TestMetricsWhileACollectorFails: a collector that cannot read (the
// database is down) costs its own metric, not the whole scrape, and its
// error goes to the log, not to the unauthenticated answer.
func TestMetricsWhileACollectorFails(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.Collectors = []prometheus.Collector{downCollector{}} })
	e.call(t, "GET", "/healthz", "", nil, nil)
	resp, b := e.call(t, "GET", "/metrics", "", nil, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `autocut_http_requests_total{code="200",method="GET",route="/healthz"} 1`) {
		t.Errorf("metrics with a failing collector: %d\n%s", resp.StatusCode, b)
	}
	if strings.Contains(string(b), "10.0.0.5") {
		t.Errorf("metrics answer shows the collector's error:\n%s", b)
	}
	if !strings.Contains(e.logs.String(), "connection refused") {
		t.Errorf("the collector's error was not logged:\n%s", e.logs.String())
	}
}

func TestOpsEndpoints(t *testing.T) {
	ready := errors.New("database locked")
	e := newTestEnv(t, func(c *Config) {
		c.Ready = func(ctx context.Context) error { return ready }
	})
	resp, b := e.call(t, "GET", "/healthz", "", nil, nil)
	if resp.StatusCode != 200 || string(b) != `{"status":"ok"}`+"\n" {
		t.Errorf("healthz %d %s", resp.StatusCode, b)
	}
	resp, b = e.call(t, "GET", "/readyz", "", nil, nil)
	if resp.StatusCode != 503 || decodeErr(t, b).Code != "not_ready" {
		t.Errorf("readyz %d %s", resp.StatusCode, b)
	}
	e.upload(t, proKey, "a.wav", "RIFF")
	resp, b = e.call(t, "GET", "/metrics", "", nil, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `autocut_http_requests_total{code="202",method="POST",route="/api/v1/jobs"} 1`) ||
		!strings.Contains(string(b), `autocut_http_request_duration_seconds_bucket`) {
		t.Errorf("metrics %d %s", resp.StatusCode, b)
	}
	resp, b = e.call(t, "GET", "/api/v1/openapi.json", "", nil, nil)
	var doc map[string]any
	if resp.StatusCode != 200 || json.Unmarshal(b, &doc) != nil || doc["openapi"] != "3.1.0" {
		t.Errorf("openapi %d", resp.StatusCode)
	}
	// Request ids: a client id is echoed, a bad one replaced.
	resp, _ = e.call(t, "GET", "/healthz", "", nil, map[string]string{"X-Request-Id": "abc-123"})
	if resp.Header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("request id not echoed")
	}
	resp, _ = e.call(t, "GET", "/healthz", "", nil, map[string]string{"X-Request-Id": "bad id\twith junk"})
	if got := resp.Header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") {
		t.Errorf("request id %q", got)
	}
	if !strings.Contains(e.logs.String(), `"request_id":"abc-123"`) || !strings.Contains(e.logs.String(), `"route":"/api/v1/jobs"`) {
		t.Errorf("request logs missing fields:\n%s", e.logs.String())
	}
}

// TestPatchCuts: a cut list reaches the job layer as sent, even a long one
// (5000 cuts, past the 64 KB of other JSON bodies); malformed ones are 400.
func TestPatchCuts(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFF").ID
	var b strings.Builder
	b.WriteString(`{"action":"export","cuts":[`)
	for i := 0; i < 5000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"start":%.3f,"end":%.3f}`, float64(i)*2+0.5, float64(i)*2+1.25)
	}
	b.WriteString(`]}`)
	if b.Len() < 64<<10 {
		t.Fatalf("body of %d bytes is not past 64 KB", b.Len())
	}
	resp, body := e.call(t, "PATCH", "/api/v1/jobs/"+id, proKey, strings.NewReader(b.String()), map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != 202 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	e.fake.mu.Lock()
	p := e.fake.lastPatch
	e.fake.mu.Unlock()
	if p.Cuts == nil || len(*p.Cuts) != 5000 || (*p.Cuts)[4999] != (apiv1.Range{Start: 9998.5, End: 9999.25}) || p.Action != "export" {
		t.Errorf("patch reached the service as %+v", p.Action)
	}
	for _, bad := range []string{`{"cuts":[{"start":"1","end":2}]}`, `{"cuts":{"start":1}}`, `{"cuts":[{"start":1,"end":2,"why":"x"}]}`} {
		if resp, body := e.call(t, "PATCH", "/api/v1/jobs/"+id, proKey, strings.NewReader(bad), map[string]string{"Content-Type": "application/json"}); resp.StatusCode != 400 {
			t.Errorf("%s: %d %s", bad, resp.StatusCode, body)
		}
	}
}

// TestTooManyEDLEventsMessage checks the text of a 422 too_many_events
// from the real timeline writer: it says what to ask the API for instead
// (another kind, fewer cuts) and names no Go function (the writer's own
// text sent clients to timeline.WriteFiles, which the API does not offer).
func TestTooManyEDLEventsMessage(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.Timelines = func(w io.Writer, kind timeline.Kind, src *jobs.TimelineSource, o TimelineOptions) error {
			keep := make([]dsp.Range, 1200)
			for i := range keep {
				keep[i] = dsp.Range{Start: float64(i), End: float64(i) + 0.5}
			}
			big := *src
			big.Plan = &plan.Plan{Keep: keep}
			big.Info.Duration, big.Info.SampleRate, big.Info.Channels = 1200, 48000, 1
			return WriteTimeline(w, kind, &big, o)
		}
	})
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	resp, b := e.call(t, "GET", "/api/v1/jobs/"+id+"/timelines/edl", proKey, nil, nil)
	eb := decodeErr(t, b)
	if resp.StatusCode != http.StatusUnprocessableEntity || eb.Code != apiv1.CodeTooManyEvents {
		t.Fatalf("%d %s, want 422 too_many_events", resp.StatusCode, eb.Code)
	}
	if strings.Contains(eb.Error, "WriteFiles") || !strings.Contains(eb.Error, "minSilenceSec") || !strings.Contains(eb.Error, "csv") {
		t.Errorf("message %q: want no Go function, and another kind or a longer minSilenceSec offered", eb.Error)
	}
}

// TestOptionsMethod checks OPTIONS, which the API does not serve (no CORS,
// no OPTIONS operation in the OpenAPI document): 405 method_not_allowed as
// JSON, like any other method a path lacks, with an Allow header naming
// the documented methods only. The router answered it itself: 200 with an
// empty body, no key asked, and OPTIONS in every 405's Allow.
func TestOptionsMethod(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	for path, allow := range map[string]string{
		"/api/v1/jobs":                        "GET, HEAD, POST",
		"/api/v1/jobs/" + id:                  "DELETE, GET, HEAD, PATCH",
		"/api/v1/jobs/" + id + "/download":    "GET, HEAD",
		"/api/v1/jobs/" + id + "/timelines/x": "GET, HEAD",
	} {
		resp, b := e.call(t, "OPTIONS", path, "", nil, nil)
		if eb := decodeErr(t, b); resp.StatusCode != http.StatusMethodNotAllowed || eb.Code != apiv1.CodeMethodNotAllowed {
			t.Errorf("OPTIONS %s: %d %s, want 405 method_not_allowed", path, resp.StatusCode, eb.Code)
		}
		if got := resp.Header.Get("Allow"); got != allow {
			t.Errorf("OPTIONS %s: Allow %q, want %q", path, got, allow)
		}
		resp, _ = e.call(t, "PUT", path, proKey, nil, nil)
		if got := resp.Header.Get("Allow"); got != allow {
			t.Errorf("PUT %s: Allow %q, want %q", path, got, allow)
		}
	}
}

// TestHeadAnswersLikeGet: every GET route answers HEAD with the GET's
// status and headers and no body (RFC 9110: a server that answers GET
// answers HEAD), with the same key checks; it answered 405.
func TestHeadAnswersLikeGet(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	for _, tc := range []struct {
		path, key string
	}{
		{"/api/v1/jobs", proKey},
		{"/api/v1/jobs/" + id, proKey},
		{"/api/v1/jobs/" + id, ""},
		{"/api/v1/jobs/job_nope", proKey},
		{"/api/v1/jobs/" + id + "/timelines/edl", proKey},
		{"/api/v1/openapi.json", ""},
		{"/healthz", ""},
	} {
		get, _ := e.call(t, "GET", tc.path, tc.key, nil, nil)
		head, b := e.call(t, "HEAD", tc.path, tc.key, nil, nil)
		if head.StatusCode != get.StatusCode || len(b) != 0 || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("HEAD %s (key %q): %d %q, %d bytes; GET: %d %q", tc.path, tc.key, head.StatusCode, head.Header.Get("Content-Type"), len(b), get.StatusCode, get.Header.Get("Content-Type"))
		}
	}
}

// TestUploadLimitIsTheContracts: by default an input may be 4 GB as the
// contract writes it, in SI units (4,000,000,000 bytes): one byte more
// declared is refused before the body is read; exactly that many is not.
func TestUploadLimitIsTheContracts(t *testing.T) {
	e := newTestEnv(t, nil)
	for _, tc := range []struct {
		declared int64
		want413  bool
	}{{4_000_000_001, true}, {4_000_000_000, false}, {1 << 32, true}} {
		req := httptest.NewRequest("POST", "/api/v1/jobs", strings.NewReader("RIFF"))
		req.ContentLength = tc.declared
		req.Header.Set("Authorization", "Bearer "+proKey)
		req.Header.Set("X-Filename", "a.wav")
		rec := httptest.NewRecorder()
		e.srv.Config.Handler.ServeHTTP(rec, req)
		if got := rec.Code == http.StatusRequestEntityTooLarge; got != tc.want413 {
			t.Errorf("%d bytes declared: %d %s, want 413: %v", tc.declared, rec.Code, rec.Body, tc.want413)
		}
	}
}
