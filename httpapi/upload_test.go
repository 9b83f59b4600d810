package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
)

// stalledUpload opens a raw connection to srv, sends an upload's headers
// declaring size bytes and the first part of the body, then nothing.
func stalledUpload(t *testing.T, srvURL, key string, size int, first []byte) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srvURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nX-Filename: a.wav\r\nContent-Length: %d\r\n\r\n", key, size)
	if _, err := c.Write(first); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestUploadIdleTimeout: an upload whose body stops arriving is answered
// 408 request_timeout and its connection closed once the idle limit
// passes; a slow upload that keeps sending is not.
func TestUploadIdleTimeout(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.UploadIdleTimeout = 500 * time.Millisecond })
	c := stalledUpload(t, e.srv.URL, proKey, 1<<20, []byte("RIFF....WAVEfmt "+strings.Repeat("\x00", 5000)))
	start := time.Now()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled upload after %v: %v", time.Since(start), err)
	}
	b, _ := io.ReadAll(resp.Body)
	var eb apiv1.ErrorBody
	if resp.StatusCode != http.StatusRequestTimeout || json.Unmarshal(b, &eb) != nil || eb.Code != apiv1.CodeRequestTimeout {
		t.Fatalf("stalled upload: %d %s", resp.StatusCode, b)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("answered after %v, idle limit 500ms", took)
	}
	// The connection is closed: a read sees EOF, not a kept-alive connection.
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Errorf("connection still open after the timeout (read %d bytes)", n)
	}

	// A slow but steady upload (a byte every 100 ms, 3 s in all) passes.
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("RIFF"))
		for range 30 {
			time.Sleep(100 * time.Millisecond)
			if _, err := pw.Write([]byte("x")); err != nil {
				return
			}
		}
		pw.Close()
	}()
	resp2, b2 := e.call(t, "POST", "/api/v1/jobs", proKey, pr, map[string]string{"X-Filename": "slow.wav"})
	if resp2.StatusCode != 202 {
		t.Fatalf("slow steady upload: %d %s", resp2.StatusCode, b2)
	}
}

// uploadsRunning returns how many uploads hold a slot on the server.
func (e *testEnv) uploadsRunning() int {
	u := e.api.uploads
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, c := range u.n {
		n += c
	}
	return n
}

// TestUploadsPerKeyCap: a key runs at most MaxUploadsPerKey uploads at
// once (both forms); one more answers 429 rate_limited with Retry-After,
// another key is not limited, and a finished upload frees its slot.
func TestUploadsPerKeyCap(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.MaxUploadsPerKey = 2; c.UploadIdleTimeout = time.Minute })
	type upload struct {
		pw   *io.PipeWriter
		done chan int
	}
	start := func(key string) upload {
		pr, pw := io.Pipe()
		u := upload{pw: pw, done: make(chan int, 1)}
		go func() {
			req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/jobs", pr)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				u.done <- 0
				return
			}
			resp.Body.Close()
			u.done <- resp.StatusCode
		}()
		pw.Write([]byte("RIFF")) // the request is in the handler, its body open
		return u
	}
	a, b := start(proKey), start(proKey)
	// The client has sent the bodies' first bytes; wait until both
	// handlers hold their slots.
	for deadline := time.Now().Add(10 * time.Second); e.uploadsRunning() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d uploads running, want 2", e.uploadsRunning())
		}
	}
	resp, body := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF"), map[string]string{"X-Filename": "c.wav"})
	if got := decodeErr(t, body); resp.StatusCode != 429 || got.Code != apiv1.CodeRateLimited || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third upload of a key: %d %s (Retry-After %q)", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	resp, body = e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(`{"url":"http://127.0.0.1/a.wav"}`), map[string]string{"Content-Type": "application/json"})
	if got := decodeErr(t, body); resp.StatusCode != 429 || got.Code != apiv1.CodeRateLimited {
		t.Fatalf("a URL job over the cap: %d %s", resp.StatusCode, body)
	}
	if resp, body := e.call(t, "POST", "/api/v1/jobs", proKey2, strings.NewReader("RIFF"), map[string]string{"X-Filename": "d.wav"}); resp.StatusCode != 202 {
		t.Fatalf("another key: %d %s", resp.StatusCode, body)
	}
	a.pw.Close()
	if code := <-a.done; code != 202 {
		t.Fatalf("first upload: %d", code)
	}
	if resp, body := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF"), map[string]string{"X-Filename": "e.wav"}); resp.StatusCode != 202 {
		t.Fatalf("after one finished: %d %s", resp.StatusCode, body)
	}
	b.pw.CloseWithError(io.ErrUnexpectedEOF)
	<-b.done
	// A failed upload frees its slot too.
	for i := range 3 {
		if resp, body := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF"), map[string]string{"X-Filename": "f.wav"}); resp.StatusCode != 202 {
			t.Fatalf("upload %d after the others ended: %d %s", i, resp.StatusCode, body)
		}
	}
}
