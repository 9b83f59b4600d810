package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/internal/syncbuf"
)

// server is a running autocut serve process.
type server struct {
	cmd    *exec.Cmd
	url    string
	data   string // its --data directory
	key    string // generated key printed on first start, if any
	stderr *syncbuf.Buffer
	done   chan error
}

// buildBinary compiles autocut once per test into a temp dir.
func buildBinary(t *testing.T) string {
	t.Helper()
	return autocutBin(t)
}

var (
	listenRe = regexp.MustCompile(`msg=listening addr=(\S+)`)
	keyRe    = regexp.MustCompile(`(?m)^    (ac_[0-9a-f]{48})$`)
)

// startServer starts the binary on a free loopback port and waits until it
// listens. env adds environment variables (AUTOCUT_API_KEYS is otherwise
// removed).
func startServer(t *testing.T, bin, data string, env []string, args ...string) *server {
	t.Helper()
	s := launchServer(t, bin, data, env, args...)
	s.waitListening(t)
	return s
}

// launchServer starts the binary without waiting for it to listen.
func launchServer(t *testing.T, bin, data string, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--allow-private-urls", "--workers", "2"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AUTOCUT_API_KEYS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
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
	return s
}

// waitListening waits until the server listens and reads its printed key.
func (s *server) waitListening(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := listenRe.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = "http://" + m[1]
			break
		}
		select {
		case err := <-s.done:
			t.Fatalf("server exited: %v\n%s", err, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen:\n%s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m := keyRe.FindStringSubmatch(s.stderr.String()); m != nil {
		s.key = m[1]
	}
}

func (s *server) do(t *testing.T, method, path, key string, body io.Reader, hdr map[string]string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, s.url+path, body)
	req.Header.Set("Authorization", "Bearer "+key)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// speechLike writes a 48 kHz WAV of tone bursts separated by silences.
func speechLike(t *testing.T, path string, seconds int) {
	t.Helper()
	args := []string{"-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", "1", "sine", "300-600", "pad", "0", "1", "repeat", fmt.Sprint(seconds/2 - 1)}
	if out, err := exec.Command("sox", args...).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v\n%s", err, out)
	}
}

// TestServeKeysAndShutdown: the first start creates and prints one Pro key
// and stores only its hash; a restart reuses it silently; configured keys
// replace it; SIGTERM shuts down gracefully with exit code 0.
func TestServeKeysAndShutdown(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	s := startServer(t, bin, data, nil)
	if s.key == "" {
		t.Fatalf("no key printed:\n%s", s.stderr.String())
	}
	stored, err := os.ReadFile(filepath.Join(data, "keys.sha256"))
	if err != nil || strings.Contains(string(stored), s.key) || !strings.Contains(string(stored), ":pro") {
		t.Fatalf("keys file %q: %v", stored, err)
	}
	if code, b := s.do(t, "GET", "/api/v1/jobs", s.key, nil, nil); code != 200 || !strings.HasPrefix(string(b), `{"jobs":[]`) {
		t.Fatalf("list with generated key: %d %s", code, b)
	}
	if code, _ := s.do(t, "GET", "/api/v1/jobs", "wrong", nil, nil); code != 401 {
		t.Fatalf("wrong key: %d", code)
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"} {
		if code, b := s.do(t, "GET", p, "", nil, nil); code != 200 {
			t.Errorf("%s: %d %s", p, code, b)
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil || !strings.Contains(s.stderr.String(), "msg=stopped") {
			t.Fatalf("SIGTERM exit: %v\n%s", err, s.stderr.String())
		}
	case <-time.After(40 * time.Second):
		t.Fatalf("no exit after SIGTERM")
	}
	s2 := startServer(t, bin, data, nil)
	if s2.key != "" || strings.Contains(s2.stderr.String(), s.key) {
		t.Errorf("restart printed a key again")
	}
	if code, _ := s2.do(t, "GET", "/api/v1/jobs", s.key, nil, nil); code != 200 {
		t.Errorf("generated key after restart: %d", code)
	}
	_ = s2.cmd.Process.Kill()
	<-s2.done
	keysFile := filepath.Join(t.TempDir(), "keys")
	os.WriteFile(keysFile, []byte("# team\nfilekey:pro\n"), 0o600)
	s3 := startServer(t, bin, data, []string{"AUTOCUT_API_KEYS=envpro:pro,envfree:free"}, "--keys", keysFile)
	for key, want := range map[string]int{"envpro": 200, "filekey": 200, "envfree": 402, s.key: 401} {
		if code, _ := s3.do(t, "GET", "/api/v1/jobs", key, nil, nil); code != want {
			t.Errorf("key %s: %d, want %d", key, code, want)
		}
	}
}

// TestServeCreatesDataDir: serve makes a --data directory that does not
// exist yet, whether the keys come from the environment (nothing is
// written before the database opens) or are generated, and the directory
// of a --database file.
func TestServeCreatesDataDir(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name string
		env  []string
		args func(root string) []string
		key  string // "" means the generated one
	}{
		{"keys from the environment", []string{"AUTOCUT_API_KEYS=k1:pro"}, nil, "k1"},
		{"generated key", nil, nil, ""},
		{"database in a new directory", []string{"AUTOCUT_API_KEYS=k1:pro"},
			func(root string) []string { return []string{"--database", filepath.Join(root, "db", "jobs.db")} }, "k1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			data := filepath.Join(root, "new", "data")
			var args []string
			if tc.args != nil {
				args = tc.args(root)
			}
			s := startServer(t, bin, data, tc.env, args...)
			key := tc.key
			if key == "" {
				key = s.key
			}
			if code, b := s.do(t, "GET", "/api/v1/jobs", key, nil, nil); code != 200 {
				t.Fatalf("list: %d %s", code, b)
			}
			if fi, err := os.Stat(data); err != nil || !fi.IsDir() {
				t.Errorf("data directory: %v", err)
			}
		})
	}
}

// TestServeRestartDurability: jobs created just before kill -9 all reach
// done after a restart.
func TestServeRestartDurability(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	media := filepath.Join(t.TempDir(), "talk.wav")
	speechLike(t, media, 20)
	env := []string{"AUTOCUT_API_KEYS=k1:pro"}
	s := startServer(t, bin, data, env)
	var ids []string
	for i := range 6 {
		f, err := os.Open(media)
		if err != nil {
			t.Fatal(err)
		}
		code, b := s.do(t, "POST", "/api/v1/jobs", "k1", f, map[string]string{"X-Filename": fmt.Sprintf("talk%d.wav", i)})
		f.Close()
		var j struct{ ID, Status string }
		for wait := 0; code != 202 && wait < 50 && !strings.Contains(s.stderr.String(), "msg=request"); wait++ {
			time.Sleep(20 * time.Millisecond) // the request log follows the response
		}
		if code != 202 || json.Unmarshal(b, &j) != nil || j.Status != "analyzing" {
			t.Fatalf("create: %d %s\n%s", code, b, lastLines(s.stderr.String(), 10))
		}
		ids = append(ids, j.ID)
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
	s2 := startServer(t, bin, data, env)
	deadline := time.Now().Add(3 * time.Minute)
	for _, id := range ids {
		for {
			code, b := s2.do(t, "GET", "/api/v1/jobs/"+id, "k1", nil, nil)
			var j struct {
				Status string
				Output *struct{ URL string }
				Error  *struct{ Code, Message string }
			}
			if code != 200 || json.Unmarshal(b, &j) != nil {
				t.Fatalf("job %s after restart: %d %s", id, code, b)
			}
			if j.Status == "failed" {
				t.Fatalf("job %s failed after restart: %+v", id, j.Error)
			}
			if j.Status == "done" {
				if j.Output == nil {
					t.Fatalf("job %s done without output: %s", id, b)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s not done after restart: %s\n%s", id, b, lastLines(s2.stderr.String(), 20))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestServeUsage: command-line mistakes exit 2 before anything starts.
func TestServeUsage(t *testing.T) {
	for _, name := range []string{"AUTOCUT_API_KEYS", "AUTOCUT_DATABASE", "AUTOCUT_STORAGE", "AUTOCUT_ROLE"} {
		t.Setenv(name, "")
	}
	for _, args := range [][]string{
		{"serve", "extra-arg"},
		{"serve", "--workers", "many"},
		{"serve", "--no-such-flag"},
		{"serve", "--role", "boss"},
		{"serve", "--s3-part-size", "1024"},
		{"serve", "--url-ports", "80,http"},
		{"serve", "--upload-idle-timeout", "0s"},
		{"serve", "--orphan-grace", "-1h"},
		{"serve", "--database", "postgres://127.0.0.1:1/x"}, // a shared database needs configured keys
	} {
		var stderr bytes.Buffer
		if code := run(t.Context(), args, io.Discard, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"serve", "--keys", filepath.Join(t.TempDir(), "missing"), "--data", t.TempDir()}, io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "keys file") {
		t.Errorf("missing keys file: exit %d %s", code, stderr.String())
	}
	// Clear errors, before anything listens, for settings that cannot work.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--role", "worker"}, "needs a shared PostgreSQL database"},
		{[]string{"--role", "api", "--keys", "/dev/null"}, "needs a shared PostgreSQL database"},
		{[]string{"--storage", "file://relative/dir"}, "want file:///absolute/dir"},
		{[]string{"--storage", "ftp://host/bucket"}, "open media storage ftp://host/bucket"},
		{[]string{"--database", "postgres://autocut@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", "--role", "worker"}, "connect to PostgreSQL"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, tc.args...)
		t.Setenv("AUTOCUT_API_KEYS", "k:pro")
		if code := run(t.Context(), args, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, want 1 and %q in:\n%s", tc.args, code, tc.want, stderr.String())
		}
	}
}

// TestServeFlagValues: a value no server can run with exits 2 with the
// flag as typed, before anything is made; serve's help and flag mistakes
// read as every other command's.
func TestServeFlagValues(t *testing.T) {
	for _, name := range []string{"AUTOCUT_API_KEYS", "AUTOCUT_DATABASE", "AUTOCUT_STORAGE", "AUTOCUT_ROLE"} {
		t.Setenv(name, "")
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--workers", "-1"}, "--workers -1: allowed 1 to 1024 (0: the number of cores)"},
		{[]string{"--workers", "100000"}, "--workers 100000: allowed 1 to 1024"},
		{[]string{"--workers", "many"}, "--workers many: not a whole number\nRun 'autocut help serve' for its flags."},
		{[]string{"--max-upload-bytes", "-5"}, "--max-upload-bytes -5: must be a positive number of bytes"},
		{[]string{"--max-upload-bytes", "0"}, "--max-upload-bytes 0: must be a positive number of bytes"},
		{[]string{"--lease-ttl", "-1s"}, "--lease-ttl -1s: must be at least 1s"},
		{[]string{"--lease-ttl", "10ms"}, "--lease-ttl 10ms: must be at least 1s"},
		{[]string{"--lease-ttl", "soon"}, "--lease-ttl soon: not a duration"},
		{[]string{"--originals-ttl", "0s"}, "--originals-ttl 0s: must be positive"},
		{[]string{"--outputs-ttl", "-1h"}, "--outputs-ttl -1h0m0s: must be positive"},
		{[]string{"--retention-interval", "0s"}, "--retention-interval 0s: must be positive"},
		{[]string{"--s3-part-size", "10"}, "--s3-part-size 10: allowed S3's part sizes"},
		{[]string{"--s3-part-size", "6000000000"}, "--s3-part-size 6000000000: allowed S3's part sizes"},
		{[]string{"--fetch-min-rate", "-1"}, "--fetch-min-rate -1: must be at least 0"},
		{[]string{"--max-uploads-per-key", "-1"}, "--max-uploads-per-key -1: must be at least 0"},
		{[]string{"--transcribe-engines", "whisper,bogus"}, `"bogus" is no engine; allowed whisper, pocketsphinx, acoustic`},
		{[]string{"--allow-private-urls=maybe"}, "--allow-private-urls maybe: want true or false"},
		{[]string{"--bogus"}, "autocut serve: unknown flag --bogus\nRun 'autocut help serve' for its flags.\n"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--addr", "bad"}, "--addr bad: want host:port or :port (:8080, 127.0.0.1:8080)"},
		{[]string{"--addr", ":99999"}, `--addr :99999: port "99999": want a number from 0 to 65535`},
		{[]string{"--addr", "localhost:htp"}, `--addr localhost:htp: port "htp": want a number from 0 to 65535`},
		{[]string{"--base-url", "notaurl"}, "--base-url notaurl: want an absolute http:// or https:// URL"},
		{[]string{"--base-url", "ftp://host/"}, "--base-url ftp://host/: want an absolute http:// or https:// URL"},
	} {
		data := filepath.Join(t.TempDir(), "data")
		var stdout, stderr bytes.Buffer
		// (a server that starts all the same stops after a while: exit 0)
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		code := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data}, tc.args...), &stdout, &stderr)
		if msg := stderr.String(); code != 2 || !strings.Contains(msg, tc.says) || strings.Contains(msg, "Usage of") {
			t.Errorf("%v: exit %d, stderr %.500q; want 2 and %q", tc.args, code, msg, tc.says)
		}
		if _, err := os.Stat(data); err == nil {
			t.Errorf("%v: the data directory was made", tc.args)
		}
	}
	for _, args := range [][]string{{"help", "serve"}, {"serve", "-h"}, {"serve", "--help"}} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, &stdout, &stderr)
		if code != 0 || stderr.Len() != 0 || !strings.HasPrefix(stdout.String(), "usage: autocut serve [flags]\n") ||
			!strings.Contains(stdout.String(), "\n  --workers int\n") || !strings.Contains(stdout.String(), "\n  --lease-ttl duration\n") {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, stderr.String(), stdout.String())
		}
	}
}

// TestServeRoleBeforeKeys: a cluster role on SQLite is refused before a
// key is generated (and printed) or the data directory is made.
func TestServeRoleBeforeKeys(t *testing.T) {
	for _, name := range []string{"AUTOCUT_API_KEYS", "AUTOCUT_DATABASE", "AUTOCUT_STORAGE", "AUTOCUT_ROLE"} {
		t.Setenv(name, "")
	}
	for _, role := range []string{"api", "worker"} {
		data := filepath.Join(t.TempDir(), "data")
		var stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--role", role}, io.Discard, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "role "+role+" needs a shared PostgreSQL database") || strings.Contains(stderr.String(), "created a Pro key") {
			t.Errorf("--role %s: exit %d, stderr %q", role, code, stderr.String())
		}
		if _, err := os.Stat(data); err == nil {
			t.Errorf("--role %s: the data directory was made", role)
		}
	}
	// An API node of a cluster without keys is refused likewise, before
	// the database is dialled.
	for _, role := range []string{"api", "all"} {
		data := filepath.Join(t.TempDir(), "data")
		var stderr bytes.Buffer
		code := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--role", role,
			"--database", "postgres://autocut@127.0.0.1:1/autocut"}, io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "every API node needs the same keys") {
			t.Errorf("--role %s without keys: exit %d, stderr %q", role, code, stderr.String())
		}
		if _, err := os.Stat(data); err == nil {
			t.Errorf("--role %s without keys: the data directory was made", role)
		}
	}
}

// TestServeOptionsAsterisk checks the server-wide OPTIONS * of the real
// server: 405 method_not_allowed as JSON with a request id, as OPTIONS on
// any path answers (the API serves no OPTIONS). net/http answered it
// itself, before the handler: 200 with an empty body and no request id.
func TestServeOptionsAsterisk(t *testing.T) {
	bin := buildBinary(t)
	s := startServer(t, bin, t.TempDir(), []string{"AUTOCUT_API_KEYS=k:pro"})
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var eb struct{ Error, Code string }
	if err := json.Unmarshal(b, &eb); err != nil || resp.StatusCode != http.StatusMethodNotAllowed || eb.Code != "method_not_allowed" {
		t.Errorf("OPTIONS *: %d %q (%v), want 405 method_not_allowed as JSON", resp.StatusCode, b, err)
	}
	if resp.Header.Get("X-Request-Id") == "" || strings.Contains(resp.Header.Get("Allow"), "OPTIONS") {
		t.Errorf("OPTIONS *: X-Request-Id %q, Allow %q", resp.Header.Get("X-Request-Id"), resp.Header.Get("Allow"))
	}
}
