package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/internal/syncbuf"
)

// answer is a request's status, Retry-After and error code (or job id).
type answer struct {
	status     int
	retryAfter string
	code, id   string
}

// call answers one request to s with key k1.
func (s *server) call(t *testing.T, method, path string, body io.Reader, hdr map[string]string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, s.url+path, body)
	req.Header.Set("Authorization", "Bearer k1")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct{ Code, ID string }
	_ = json.Unmarshal(b, &e)
	return answer{resp.StatusCode, resp.Header.Get("Retry-After"), e.Code, e.ID}
}

// upload creates a job of the file at media and waits until it is done.
func (s *server) uploadDone(t *testing.T, media string) string {
	t.Helper()
	f, err := os.Open(media)
	if err != nil {
		t.Fatal(err)
	}
	a := s.call(t, "POST", "/api/v1/jobs", f, map[string]string{"X-Filename": "talk.wav"})
	f.Close()
	if a.status != 202 {
		t.Fatalf("create: %+v\n%s", a, lastLines(s.stderr.String(), 10))
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, b := s.do(t, "GET", "/api/v1/jobs/"+a.id, "k1", nil, nil)
		var j struct{ Status string }
		_ = json.Unmarshal(b, &j)
		if j.Status == "done" {
			return a.id
		}
		if j.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("job %s: %s\n%s", a.id, b, lastLines(s.stderr.String(), 10))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantNotReady checks that the job routes and /readyz answer 503
// not_ready with Retry-After.
func (s *server) wantNotReady(t *testing.T, what, id, media string) {
	t.Helper()
	f, err := os.Open(media)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range []struct {
		method, path string
		body         io.Reader
	}{
		{"GET", "/readyz", nil}, {"GET", "/api/v1/jobs/" + id, nil}, {"GET", "/api/v1/jobs", nil},
		{"PATCH", "/api/v1/jobs/" + id, strings.NewReader(`{"action":"export"}`)},
		{"POST", "/api/v1/jobs", f}, {"DELETE", "/api/v1/jobs/" + id, nil},
	} {
		if a := s.call(t, r.method, r.path, r.body, map[string]string{"X-Filename": "talk.wav"}); a.status != 503 || a.code != "not_ready" || a.retryAfter != "5" {
			t.Errorf("%s: %s %s answered %+v, want 503 not_ready with Retry-After 5", what, r.method, r.path, a)
		}
	}
	if a := s.call(t, "GET", "/healthz", nil, nil); a.status != 200 {
		t.Errorf("%s: /healthz %d", what, a.status)
	}
}

// mediaFiles lists the files under the media directory of data
// (fileblob's .attrs left out).
func mediaFiles(t *testing.T, data string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(data, "media")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".attrs") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// TestServeDatabaseLost: the SQLite file deleted under a running server
// turns its job routes and /readyz to 503 not_ready (the writes would go
// to the unlinked file); after a restart on a new, empty database the
// orphan sweep (run at start, with a grace that every file is past)
// deletes none of the media, and says why.
func TestServeDatabaseLost(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	media := filepath.Join(t.TempDir(), "talk.wav")
	speechLike(t, media, 6)
	env := []string{"AUTOCUT_API_KEYS=k1:pro"}
	args := []string{"--orphan-grace", "1ms"}
	s := startServer(t, bin, data, env, args...)
	id := s.uploadDone(t, media)
	before := mediaFiles(t, data)
	if len(before) < 3 {
		t.Fatalf("media of a done job: %v", before)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(data, "autocut.db"+suffix)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	s.wantNotReady(t, "database deleted", id, media)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-s.done

	s2 := startServer(t, bin, data, env, args...)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s2.stderr.String(), "orphan sweep deletes nothing") {
		if time.Now().After(deadline) {
			t.Fatalf("no orphan sweep after the restart:\n%s", lastLines(s2.stderr.String(), 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := mediaFiles(t, data); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("media after the restart on an empty database: %v, want %v", got, before)
	}
	if a := s2.call(t, "GET", "/readyz", nil, nil); a.status != 200 {
		t.Errorf("/readyz on the new database: %+v", a)
	}
}

// TestServeDatabaseReadOnly: a SQLite file that the server's user can no
// longer write turns the job routes and /readyz to 503 not_ready, and
// back once it is writable again. The server runs as nobody: root writes
// a read-only file.
func TestServeDatabaseReadOnly(t *testing.T) {
	const nobody = 65534
	root, err := os.MkdirTemp("", "autocut-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	bin := filepath.Join(root, "autocut")
	b, err := os.ReadFile(buildBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	if err := os.Mkdir(data, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--workers", "1")
	cmd.Env = append(os.Environ(), "AUTOCUT_API_KEYS=k1:pro", "HOME="+data)
	if os.Getuid() == 0 {
		if err := os.Chown(data, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	s := &server{cmd: cmd, data: data, stderr: &syncbuf.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-s.done
		}
	})
	s.waitListening(t)
	media := filepath.Join(root, "talk.wav")
	speechLike(t, media, 6)
	id := s.uploadDone(t, media)
	db := filepath.Join(data, "autocut.db")
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	s.wantNotReady(t, "database read-only", id, media)
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	if a := s.call(t, "GET", "/api/v1/jobs/"+id, nil, nil); a.status != 200 {
		t.Errorf("GET job once the database is writable again: %+v", a)
	}
}

// TestServePageNotFramed: the page, which holds the API key, and its
// assets tell browsers that no site may frame them.
func TestServePageNotFramed(t *testing.T) {
	s := startServer(t, buildBinary(t), t.TempDir(), []string{"AUTOCUT_API_KEYS=k1:pro"})
	for _, p := range []string{"/", "/static/app.js"} {
		resp, err := http.Get(s.url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(csp, "frame-ancestors 'none'") || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: %d, Content-Security-Policy %q, X-Frame-Options %q; want frame-ancestors 'none' and DENY",
				p, resp.StatusCode, csp, resp.Header.Get("X-Frame-Options"))
		}
	}
}

// wav8kHeader is the header of an 8 kHz, 8-bit mono WAV (8000 bytes a
// second) whose data chunk declares dataSize bytes.
func wav8kHeader(dataSize uint32) []byte {
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], dataSize+36)
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)    // PCM
	binary.LittleEndian.PutUint16(h[22:], 1)    // mono
	binary.LittleEndian.PutUint32(h[24:], 8000) // rate
	binary.LittleEndian.PutUint32(h[28:], 8000) // bytes a second
	binary.LittleEndian.PutUint16(h[32:], 1)    // block align
	binary.LittleEndian.PutUint16(h[34:], 8)    // bits
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], dataSize)
	return h
}

// TestServeTooLongFromHeader: a WAV whose header gives more than the 3
// hours allowed, with a declared length that holds it, is refused 422
// too_long once its first bytes are read, before the rest is sent; a WAV
// of unknown length (chunked, data size 0xFFFFFFFF) is stored only up to
// the bytes 3 hours take at its byte rate, then refused; nothing is kept.
func TestServeTooLongFromHeader(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, buildBinary(t), data, []string{"AUTOCUT_API_KEYS=k1:pro"})
	const limitBytes = 3 * 3600 * 8000
	// post sends the body newBody makes. A server that answers before the
	// body is in may close while the client still writes (or before it
	// reads the answer, on a loaded machine): the client then sees a
	// connection reset instead of the answer, and the request is sent
	// again, at most 5 times.
	post := func(newBody func() io.Reader, length int64) (answer, time.Duration) {
		t.Helper()
		var resp *http.Response
		var err error
		var start time.Time
		for try := 0; try < 5; try++ {
			req, _ := http.NewRequest("POST", s.url+"/api/v1/jobs", newBody())
			req.ContentLength = length
			req.Header.Set("Authorization", "Bearer k1")
			req.Header.Set("X-Filename", "long.wav")
			start = time.Now()
			if resp, err = http.DefaultClient.Do(req); err == nil || !errors.Is(err, syscall.ECONNRESET) {
				break
			}
			t.Logf("POST, try %d: %v", try+1, err)
		}
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var e struct{ Code, ID string }
		_ = json.Unmarshal(b, &e)
		return answer{resp.StatusCode, "", e.Code, e.ID}, time.Since(start)
	}

	// 22,109 s declared (as in the report), and a length that holds it: only
	// the first 64 KiB are ever sent.
	const declared = 22_109 * 8000
	var pipes []*io.PipeWriter
	a, took := post(func() io.Reader {
		pr, pw := io.Pipe()
		pipes = append(pipes, pw)
		go func() {
			pw.Write(wav8kHeader(declared))
			pw.Write(make([]byte, 64<<10))
			// The rest never comes: the answer must not wait for it.
		}()
		return pr
	}, 44+declared)
	for _, pw := range pipes {
		pw.Close()
	}
	if a.status != 422 || a.code != "too_long" {
		t.Errorf("a WAV whose header gives 22,109 s: %+v after %v, want 422 too_long at once", a, took)
	}

	// Unknown length: stored up to the limit's bytes, then refused. The
	// body ends 4 MiB past them, within what the server reads on to give
	// its answer (a client still sending when it closes would get a reset).
	var sent atomic.Int64
	a, _ = post(func() io.Reader {
		sent.Store(0)
		return io.MultiReader(bytes.NewReader(wav8kHeader(0xFFFFFFFF)), &countingZeros{left: limitBytes + 4<<20, n: &sent})
	}, -1)
	if a.status != 422 || a.code != "too_long" {
		t.Errorf("a chunked WAV over 3 hours (%d bytes sent): %+v, want 422 too_long", sent.Load(), a)
	}
	if got := mediaFiles(t, data); len(got) > 1 { // the store's identity only
		t.Errorf("media after the refusals: %v", got)
	}
}

// countingZeros yields left zero bytes, counting them in n.
type countingZeros struct {
	left int64
	n    *atomic.Int64
}

func (z *countingZeros) Read(p []byte) (int, error) {
	if z.left <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.left)
	clear(p[:k])
	z.left -= k
	z.n.Add(k)
	return int(k), nil
}

// TestServeTooLongFromHeaderURL: a URL job whose origin declares a length
// that holds the 22,109 s its WAV header gives is refused 422 too_long as
// soon as the first bytes arrive, without waiting for the rest.
func TestServeTooLongFromHeaderURL(t *testing.T) {
	const declared = 22_109 * 8000
	release := make(chan struct{})
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(44+declared))
		w.Write(wav8kHeader(declared))
		w.Write(make([]byte, 64<<10))
		w.(http.Flusher).Flush()
		<-release // the rest never comes while the test waits
	}))
	defer origin.Close()
	defer close(release) // (before Close, which waits for the handler)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(origin.URL, "http://"))
	s := startServer(t, buildBinary(t), t.TempDir(), []string{"AUTOCUT_API_KEYS=k1:pro"}, "--url-ports", port)
	start := time.Now()
	a := s.call(t, "POST", "/api/v1/jobs", strings.NewReader(`{"url":"`+origin.URL+`/long.wav"}`), map[string]string{"Content-Type": "application/json"})
	if a.status != 422 || a.code != "too_long" {
		t.Errorf("a URL job of a WAV whose header gives 22,109 s: %+v after %v, want 422 too_long at once", a, time.Since(start))
	}
}
