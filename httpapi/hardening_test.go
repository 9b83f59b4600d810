package httpapi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/syncbuf"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/transcribe"
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

// TestEarlyAnswersClose checks that an answer given before the request
// body is read (a declared length over a limit, a missing key, bad
// options) reaches a client that sent its headers and one byte and waits:
// the answer says Connection: close, so the server closes instead of
// reading the rest of the body first.
func TestEarlyAnswersClose(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.MaxUploadBytes = 1 << 20 })
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	const auth = "Authorization: Bearer " + proKey + "\r\n"
	tests := []struct {
		name       string
		headers    string // request line and headers, without the blank line
		wantStatus int
		wantCode   apiv1.ErrorCode
	}{
		{"JSON body over its limit", "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 100000", 413, apiv1.CodeBodyTooLarge},
		{"PATCH body over its limit", "PATCH /api/v1/jobs/job_x HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Length: 5000000", 413, apiv1.CodeBodyTooLarge},
		{"upload over its limit", "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Length: 2000000", 413, apiv1.CodeFileTooLarge},
		{"no key", "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 100000", 401, apiv1.CodeUnauthorized},
		{"bad X-Options", "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\n" + auth + "X-Options: {\"nope\":1}\r\nContent-Length: 100000", 400, apiv1.CodeBadRequest},
		{"chunked upload, bad X-Options", "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\n" + auth + "X-Options: {\"nope\":1}\r\nTransfer-Encoding: chunked", 400, apiv1.CodeBadRequest},
		{"no route", "POST /api/v1/nothing HTTP/1.1\r\nHost: x\r\nContent-Length: 100000", 404, apiv1.CodeRouteNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			first := "{"
			if strings.Contains(tc.headers, "chunked") {
				first = "1\r\n{\r\n"
			}
			if _, err := io.WriteString(c, tc.headers+"\r\n\r\n"+first); err != nil {
				t.Fatal(err)
			}
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer while the client waits: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus || decodeErr(t, b).Code != tc.wantCode {
				t.Errorf("got %d %s, want %d %s", resp.StatusCode, b, tc.wantStatus, tc.wantCode)
			}
			if !resp.Close {
				t.Errorf("no Connection: close (headers %v)", resp.Header)
			}
		})
	}
	// A request whose body was read keeps its connection.
	resp, b := e.call(t, "PATCH", "/api/v1/jobs/job_nope", proKey, strings.NewReader(`{"action":"export"}`), nil)
	if resp.StatusCode != 404 || resp.Close {
		t.Errorf("PATCH with a read body: %d close=%v %s", resp.StatusCode, resp.Close, b)
	}
}

// TestEmptyUpload checks that an upload without a byte gets one answer,
// whether it says Content-Length: 0 or sends an empty chunked body.
func TestEmptyUpload(t *testing.T) {
	e := newTestEnv(t, nil)
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	var answers []string
	for _, framing := range []string{"Content-Length: 0\r\n\r\n", "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+proKey+"\r\nX-Filename: a.wav\r\n"+framing)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		c.Close()
		answers = append(answers, fmt.Sprintf("%d %s", resp.StatusCode, b))
	}
	if answers[0] != answers[1] || !strings.HasPrefix(answers[0], "400 ") || !strings.Contains(answers[0], `"code":"bad_request"`) {
		t.Errorf("Content-Length 0: %s\nempty chunked: %s\nwant the same 400 bad_request", answers[0], answers[1])
	}
	if e.fake.lastReq.Name != "" {
		t.Errorf("the service was asked to create %q", e.fake.lastReq.Name)
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

// wavHeader builds a 16-bit-style WAV with the given fmt fields and
// frames of noise; ext, when non-zero, makes the fmt chunk
// WAVE_FORMAT_EXTENSIBLE with that subformat; fmtSize, when non-zero, is
// the fmt chunk's declared size.
func wavHeader(tag, channels uint16, rate uint32, bits uint16, ext uint16, fmtSize uint32, frames int) []byte {
	le16 := func(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
	le32 := func(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
	align := uint16(max(int(channels)*int(bits)/8, 1))
	var f []byte
	f = le16(f, tag)
	f = le16(f, channels)
	f = le32(f, rate)
	f = le32(f, rate*uint32(align))
	f = le16(f, align)
	f = le16(f, bits)
	if ext != 0 {
		f = le16(f, 22)
		f = le16(f, bits)
		f = le32(f, 0)
		f = le16(f, ext)
		f = append(f, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71)
	}
	size := uint32(len(f))
	if fmtSize != 0 {
		size = fmtSize
	}
	data := make([]byte, frames*int(max(align, 2)))
	rng := rand.New(rand.NewPCG(5, 16))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var b []byte
	b = append(b, "WAVEfmt "...)
	b = le32(b, size)
	b = append(b, f...)
	b = append(b, "data"...)
	b = le32(b, uint32(len(data)))
	b = append(b, data...)
	return append(le32([]byte("RIFF"), uint32(len(b))), b...)
}

// leak matches what a client must not see in an error message: absolute
// paths, heap addresses in ffmpeg's log prefixes, the tools' names and
// exit statuses.
var leak = regexp.MustCompile(`(^|[\s:'"(])/[a-zA-Z0-9_.-]+/|0x[0-9a-f]{6,}|ffmpeg|ffprobe|exit status|Invalid data`)

// TestFailedJobMessagesForClients runs inputs that fail in decoding
// through the real server with the real media engine: malformed WAV
// headers (which the native reader refuses and ffmpeg then fails on) fail
// with unsupported_format, never internal, and no job's error.message
// holds a server path, ffmpeg's output or an address; the details are in
// the server log under the job id.
func TestFailedJobMessagesForClients(t *testing.T) {
	lw := &syncbuf.Buffer{}
	dataDir := ""
	e := managerEnv(t, func(c *jobs.Config) {
		c.Engine, c.MaxInputBytes = nil, 16<<20
		c.Logger = slog.New(slog.NewTextHandler(lw, nil))
		dataDir = c.DataDir
	})
	mkv := append([]byte{0x1a, 0x45, 0xdf, 0xa3}, bytes.Repeat([]byte("not a real matroska file "), 800)...)
	tests := []struct {
		name     string
		body     []byte
		wantCode apiv1.ErrorCode
	}{
		{"bits per sample 0", wavHeader(1, 1, 16000, 0, 0, 0, 16000), apiv1.CodeUnsupportedFormat},
		{"format tag 0", wavHeader(0, 1, 16000, 16, 0, 0, 16000), apiv1.CodeUnsupportedFormat},
		{"extensible, unknown subformat", wavHeader(0xFFFE, 1, 16000, 16, 0x1234, 0, 16000), apiv1.CodeUnsupportedFormat},
		{"65535 channels", wavHeader(1, 65535, 16000, 16, 0, 0, 4), apiv1.CodeUnsupportedFormat},
		{"sample rate 0", wavHeader(1, 1, 0, 16, 0, 0, 16000), apiv1.CodeUnsupportedFormat},
		{"sample rate 4 GHz", wavHeader(1, 1, 4_000_000_000, 16, 0, 0, 16000), apiv1.CodeUnsupportedFormat},
		{"fmt size lies", wavHeader(1, 1, 16000, 16, 0, 0xFFFFFFF0, 16000), apiv1.CodeUnsupportedFormat},
		{"corrupt matroska", mkv, apiv1.CodeUnsupportedFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, bytes.NewReader(tc.body),
				map[string]string{"X-Filename": "in.wav", "X-Options": `{"autoExport":false}`})
			if resp.StatusCode != 202 {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			var v apiv1.Job
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			v = e.poll(t, proKey, v.ID, isDone)
			if v.Status != apiv1.StatusFailed || v.Error == nil {
				t.Fatalf("status %s, error %+v", v.Status, v.Error)
			}
			if v.Error.Code != tc.wantCode {
				t.Errorf("code %s (%q), want %s", v.Error.Code, v.Error.Message, tc.wantCode)
			}
			if l := leak.FindString(v.Error.Message); l != "" || strings.Contains(v.Error.Message, dataDir) {
				t.Errorf("error.message shows %q: %s", l, v.Error.Message)
			}
			// The worker logs the failure just after it saves it: wait a little
			// (under -race the gap is wide enough for the poll to fall in it).
			logged := regexp.MustCompile(`msg="job failed" .*job=` + v.ID + ` .*err=`)
			for deadline := time.Now().Add(5 * time.Second); !logged.MatchString(lw.String()) && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if !logged.MatchString(lw.String()) {
				t.Errorf("no log of the failure's details under the job id:\n%s", lw.String())
			}
		})
	}
}

// TestErrorBodiesForClients injects service errors of every kind that
// carry internal text (a server path, ffmpeg's output with heap
// addresses, a database address) and checks the HTTP answers' text,
// while the request log keeps the details with the request id.
func TestErrorBodiesForClients(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	internal := "ffmpeg failed decoding /var/lib/autocut/scratch/job_x-1/in.wav: exit status 1: [wav @ 0x55a89d7d9180] Invalid sample rate"
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"unsupported format", fmt.Errorf("%w: %s", dsp.ErrUnsupportedFormat, internal)},
		{"transcription unavailable", fmt.Errorf("%w: %s", transcribe.ErrUnavailable, internal)},
		{"render failed", fmt.Errorf("%w: %s", apiv1.ErrRenderFailed, internal)},
		{"not ready", fmt.Errorf("%w: %s", apiv1.ErrNotReady, internal)},
		{"untyped", errors.New(internal)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.fake.mu.Lock()
			e.fake.errs = map[string]error{"Update": tc.err}
			e.fake.mu.Unlock()
			defer func() { e.fake.mu.Lock(); e.fake.errs = nil; e.fake.mu.Unlock() }()
			resp, b := e.call(t, "PATCH", "/api/v1/jobs/"+id, proKey, strings.NewReader(`{"action":"export"}`), nil)
			got := decodeErr(t, b)
			if got.Code != jobs.ErrorCode(tc.err) || resp.StatusCode != got.Code.HTTPStatus() {
				t.Errorf("%d %s, want the code of the error", resp.StatusCode, got.Code)
			}
			// A 503 says when to retry; no other answer here does.
			if ra := resp.Header.Get("Retry-After"); (resp.StatusCode == http.StatusServiceUnavailable) != (ra == notReadyRetryAfter) {
				t.Errorf("%d %s: Retry-After %q", resp.StatusCode, got.Code, ra)
			}
			if l := leak.FindString(got.Error); l != "" {
				t.Errorf("answer shows %q: %s", l, got.Error)
			}
			rid := resp.Header.Get("X-Request-Id")
			if !strings.Contains(e.logs.String(), rid) || !strings.Contains(e.logs.String(), "0x55a89d7d9180") {
				t.Errorf("request log lacks the request id %s or the details", rid)
			}
		})
	}
}

// toneWAV is a 16 kHz mono 16-bit WAV of 1 s tone bursts and 1 s pauses.
func toneWAV(seconds int) []byte {
	const rate = 16000
	n := seconds * rate
	b := make([]byte, 44+2*n)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], rate)
	binary.LittleEndian.PutUint32(b[28:], 2*rate)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(2*n))
	for i := range n {
		v := 0.0005
		if (i/rate)%2 == 0 {
			v = 0.5
		}
		s := int16(v * 32767 * math.Sin(2*math.Pi*440*float64(i)/rate))
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(s))
	}
	return b
}

// TestCSVFormulaInjectionOverHTTP: a file name that a spreadsheet would
// run as a formula (X-Filename: =HYPERLINK(...)) reaches the CSV
// timeline's source cell neutralised, through the real server, job layer
// and timeline writer.
func TestCSVFormulaInjectionOverHTTP(t *testing.T) {
	e := managerEnv(t, func(c *jobs.Config) { c.Engine, c.MaxInputBytes = nil, 16<<20 })
	for _, name := range []string{`=HYPERLINK("evil.example","click").wav`, "+1+1.wav", "-2+3.wav", "@SUM(A1).wav"} {
		t.Run(name, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, bytes.NewReader(toneWAV(6)),
				map[string]string{"X-Filename": name, "X-Options": `{"autoExport":false}`})
			if resp.StatusCode != 202 {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			var v apiv1.Job
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if v = e.poll(t, proKey, v.ID, isDone); v.Status != apiv1.StatusDone {
				t.Fatalf("job %s: %+v", v.Status, v.Error)
			}
			resp, b = e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/timelines/csv", proKey, nil, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("csv: %d %s", resp.StatusCode, b)
			}
			rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(rows) < 2 {
				t.Fatalf("csv %q: %v", b, err)
			}
			col := slices.Index(rows[0], "source")
			if col < 0 {
				t.Fatalf("no source column: %v", rows[0])
			}
			for _, row := range rows[1:] {
				if c := row[col]; c == "" || strings.ContainsRune("=+-@\t\r", rune(c[0])) {
					t.Errorf("source cell %q starts a formula", c)
				} else if !strings.HasPrefix(c, "'") {
					t.Errorf("source cell %q: want the apostrophe that neutralises it", c)
				}
			}
		})
	}
}

// TestJSONBodyCap: a JSON body over its cap answers 413 body_too_large
// whether it declares its length or comes chunked (where io.LimitReader
// made it "unexpected EOF"), for Form A (64 KiB) and PATCH (4 MiB); a body
// of exactly the cap is decoded.
func TestJSONBodyCap(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	padded := func(size int) string { // a valid Form A body of size bytes
		head, tail := `{"url":"http://example.invalid/a.wav","preset":"`, `"}`
		return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
	}
	hide := func(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) } // no length: sent chunked
	tests := []struct {
		name, method, path string
		body               io.Reader
		want               int
		wantCode           apiv1.ErrorCode
	}{
		{"Form A, declared, over", "POST", "/api/v1/jobs", strings.NewReader(padded(maxJSONBody + 1)), 413, apiv1.CodeBodyTooLarge},
		{"Form A, chunked, over", "POST", "/api/v1/jobs", hide(padded(maxJSONBody + 1)), 413, apiv1.CodeBodyTooLarge},
		{"Form A, chunked, at the cap", "POST", "/api/v1/jobs", hide(padded(maxJSONBody)), 400, apiv1.CodeInvalidParameter}, // decoded: the preset is unknown
		{"PATCH, chunked, over", "PATCH", "/api/v1/jobs/" + id, hide(`{"action":"export","cuts":[` + strings.Repeat(`{"start":1,"end":2},`, maxPatchBody/20) + `]}`), 413, apiv1.CodeBodyTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := e.call(t, tc.method, tc.path, proKey, tc.body, map[string]string{"Content-Type": "application/json"})
			got := decodeErr(t, b)
			if resp.StatusCode != tc.want || got.Code != tc.wantCode {
				t.Errorf("got %d %s (%s), want %d %s", resp.StatusCode, got.Code, got.Error, tc.want, tc.wantCode)
			}
		})
	}
}

// TestRefusedUploadKeepsConnection: an upload refused on its first bytes
// (content sniffed) is read to its end when a few MiB are left, so the
// answer goes out on an open connection: closing it while the client still
// sends would reset the connection, and a client may lose the answer it
// has not read yet. The connection is then used again.
func TestRefusedUploadKeepsConnection(t *testing.T) {
	e := managerEnv(t, func(c *jobs.Config) { c.Engine = nil; c.MaxInputBytes = 64 << 20 })
	wav := make([]byte, 3<<20)
	copy(wav, "RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\xbb\x00\x00\x00\x77\x01\x00\x02\x00\x10\x00data")
	binary.LittleEndian.PutUint32(wav[4:], uint32(len(wav)-8))
	binary.LittleEndian.PutUint32(wav[40:], uint32(len(wav)-44))
	junk := bytes.Repeat([]byte("not media "), 300<<10)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, tc := range []struct {
		name, options string
		body          []byte
		status        int
	}{
		{"video export of audio", `{"export":{"format":"mp4"}}`, wav, 400},
		{"unsupported content", ``, junk, 415},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reused := false
			trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
			for i := range 2 {
				req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), "POST", e.srv.URL+"/api/v1/jobs", bytes.NewReader(tc.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+proKey)
				req.Header.Set("X-Filename", "talk.wav")
				if tc.options != "" {
					req.Header.Set("X-Options", tc.options)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status || resp.Close {
					t.Errorf("request %d: %d close=%v %s, want %d on an open connection", i, resp.StatusCode, resp.Close, b, tc.status)
				}
			}
			if !reused {
				t.Errorf("the second request did not reuse the connection")
			}
		})
	}
}
