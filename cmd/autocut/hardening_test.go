package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeHardening checks issue 16's defects on the real binary:
// request metrics with closed label sets, net/http's own 431/400 answers
// as JSON, a JSON body over its cap as 413, and a malformed WAV header
// failing as unsupported_format with a message free of server paths and
// ffmpeg output.
func TestServeHardening(t *testing.T) {
	bin := buildBinary(t)
	s := startServer(t, bin, t.TempDir(), []string{"AUTOCUT_API_KEYS=hardkey:pro"})
	addr := strings.TrimPrefix(s.url, "http://")

	// /metrics does not grow with random methods.
	_, before := s.do(t, "GET", "/metrics", "", nil, nil)
	for i := range 600 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "M%011d /api/v1/jobs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", i)
		_, _ = io.Copy(io.Discard, c)
		c.Close()
	}
	_, after := s.do(t, "GET", "/metrics", "", nil, nil)
	growth := len(after) - len(before)
	t.Logf("/metrics grew by %d bytes after 600 random methods", growth)
	if growth >= 30<<10 {
		t.Errorf("/metrics grew by %d bytes, want < 30 kB", growth)
	}

	// net/http's own answers are JSON.
	for _, tc := range []struct {
		request string
		status  int
		code    string
	}{
		{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 100<<10) + "\r\n\r\n", 431, "headers_too_large"},
		{"GET /healthz HTTP/1.1\r\nHost: x\r\nBad\x01Name: v\r\n\r\n", 400, "bad_request"},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, tc.request)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		c.Close()
		var body struct{ Error, Code string }
		if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != tc.status || body.Code != tc.code {
			t.Errorf("got %d %q (%v), want %d %s", resp.StatusCode, b, err, tc.status, tc.code)
		}
	}

	// A JSON body over 64 KiB: 413 body_too_large.
	big := `{"url":"http://127.0.0.1:1/a.wav","preset":"` + strings.Repeat("x", 70<<10) + `"}`
	if code, b := s.do(t, "POST", "/api/v1/jobs", "hardkey", strings.NewReader(big), map[string]string{"Content-Type": "application/json"}); code != 413 || !strings.Contains(string(b), `"body_too_large"`) {
		t.Errorf("JSON body over the cap: %d %s", code, b)
	}

	// A WAV with 0 bits per sample: unsupported_format, a message for people.
	wav := make([]byte, 44+32000)
	copy(wav, "RIFF")
	binary.LittleEndian.PutUint32(wav[4:], uint32(len(wav)-8))
	copy(wav[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(wav[16:], 16)
	binary.LittleEndian.PutUint16(wav[20:], 1)
	binary.LittleEndian.PutUint16(wav[22:], 1)
	binary.LittleEndian.PutUint32(wav[24:], 16000)
	binary.LittleEndian.PutUint32(wav[28:], 32000)
	binary.LittleEndian.PutUint16(wav[32:], 2)
	binary.LittleEndian.PutUint16(wav[34:], 0) // bits per sample
	copy(wav[36:], "data")
	binary.LittleEndian.PutUint32(wav[40:], 32000)
	code, b := s.do(t, "POST", "/api/v1/jobs", "hardkey", bytes.NewReader(wav), map[string]string{"X-Filename": "zero.wav"})
	if code != 202 {
		t.Fatalf("create: %d %s", code, b)
	}
	var job struct {
		ID, Status string
		Error      *struct{ Code, Message string }
	}
	json.Unmarshal(b, &job)
	deadline := time.Now().Add(60 * time.Second)
	for job.Status != "failed" && job.Status != "done" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		_, b = s.do(t, "GET", "/api/v1/jobs/"+job.ID, "hardkey", nil, nil)
		json.Unmarshal(b, &job)
	}
	if job.Status != "failed" || job.Error == nil || job.Error.Code != "unsupported_format" {
		t.Fatalf("job: %s", b)
	}
	if regexp.MustCompile(`/[a-zA-Z0-9_.-]+/|0x[0-9a-f]{6,}|ffmpeg|ffprobe|exit status`).MatchString(job.Error.Message) {
		t.Errorf("error.message leaks internals: %q", job.Error.Message)
	}
}
