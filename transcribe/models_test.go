package transcribe

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// modelServer serves one model file on 127.0.0.1 the way the model host
// does (with Range support unless noRange), and can cut the first
// response short after cutAt bytes, as a dropped connection would.
type modelServer struct {
	data    []byte
	noRange bool
	cutAt   int

	mu     sync.Mutex
	ranges []string // the Range header of each request
}

func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/ggml-test.bin" {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	first := len(s.ranges) == 1
	s.mu.Unlock()
	if first && s.cutAt > 0 {
		w.Header().Set("Content-Length", strconv.Itoa(len(s.data)))
		w.WriteHeader(http.StatusOK)
		w.Write(s.data[:s.cutAt])
		return // the connection closes short of Content-Length
	}
	if s.noRange {
		w.Header().Set("Content-Length", strconv.Itoa(len(s.data)))
		w.Write(s.data)
		return
	}
	http.ServeContent(w, r, "ggml-test.bin", time.Time{}, bytes.NewReader(s.data))
}

func newModelTest(t *testing.T, srv *modelServer, sum string) (*ModelStore, string) {
	t.Helper()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	st := &ModelStore{Dir: dir, BaseURL: ts.URL, Catalog: []Model{{Name: "test", Size: "300 KiB", SHA1: sum}}}
	return st, filepath.Join(dir, "ggml-test.bin")
}

func testModelData() ([]byte, string) {
	data := make([]byte, 300<<10)
	rand.New(rand.NewSource(1)).Read(data)
	s := sha1.Sum(data)
	return data, hex.EncodeToString(s[:])
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestModelPull(t *testing.T) {
	data, sum := testModelData()
	srv := &modelServer{data: data}
	st, final := newModelTest(t, srv, sum)
	var last, total int64
	st.Progress = func(d, n int64) { last, total = d, n }
	p, err := st.Pull(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if p != final || !bytes.Equal(got, data) || exists(final+".part") {
		t.Fatalf("pulled %s (%d bytes), part left: %v", p, len(got), exists(final+".part"))
	}
	if last != int64(len(data)) || total != int64(len(data)) {
		t.Errorf("progress ended at %d of %d", last, total)
	}
	// Pulled already: no second request.
	if _, err := st.Pull(context.Background(), "test"); err != nil || len(srv.ranges) != 1 {
		t.Errorf("second pull: %v, %d requests", err, len(srv.ranges))
	}
	if p, ok := st.FirstInstalled(); !ok || p != final {
		t.Errorf("FirstInstalled = %q %v", p, ok)
	}
}

func TestModelPullChecksumMismatch(t *testing.T) {
	data, _ := testModelData()
	st, final := newModelTest(t, &modelServer{data: data}, "0000000000000000000000000000000000000000")
	_, err := st.Pull(context.Background(), "test")
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("err = %v, want ErrChecksum", err)
	}
	if exists(final) || exists(final+".part") {
		t.Errorf("a mismatching download was kept: final %v, part %v", exists(final), exists(final+".part"))
	}
}

func TestModelPullResumesAfterInterruption(t *testing.T) {
	data, sum := testModelData()
	srv := &modelServer{data: data, cutAt: 100 << 10}
	st, final := newModelTest(t, srv, sum)
	if _, err := st.Pull(context.Background(), "test"); err == nil {
		t.Fatal("an interrupted download succeeded")
	}
	fi, err := os.Stat(final + ".part")
	if err != nil || fi.Size() != 100<<10 || exists(final) {
		t.Fatalf("after the interruption: part %v (%v), final %v", fi, err, exists(final))
	}
	p, err := st.Pull(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, data) || exists(final+".part") {
		t.Fatalf("resumed file differs (%d bytes) or part left", len(got))
	}
	if len(srv.ranges) != 2 || srv.ranges[1] != "bytes=102400-" {
		t.Errorf("requests' Range headers %q, want a resume from byte 102400", srv.ranges)
	}
}

func TestModelPullServerWithoutRange(t *testing.T) {
	data, sum := testModelData()
	srv := &modelServer{data: data, cutAt: 50 << 10, noRange: true}
	st, final := newModelTest(t, srv, sum)
	if _, err := st.Pull(context.Background(), "test"); err == nil {
		t.Fatal("an interrupted download succeeded")
	}
	p, err := st.Pull(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if p != final || !bytes.Equal(got, data) {
		t.Fatalf("restarted download differs (%d bytes)", len(got))
	}
	if len(srv.ranges) != 2 || srv.ranges[1] == "" {
		t.Errorf("requests' Range headers %q: the second should have asked to resume", srv.ranges)
	}
}

func TestModelPullCancelled(t *testing.T) {
	data, sum := testModelData()
	st, final := newModelTest(t, &modelServer{data: data}, sum)
	ctx, cancel := context.WithCancel(context.Background())
	st.Progress = func(d, n int64) { cancel() }
	if _, err := st.Pull(ctx, "test"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if exists(final) {
		t.Error("a cancelled download left a model")
	}
}

func TestModelLookup(t *testing.T) {
	st := &ModelStore{Dir: t.TempDir()}
	if m, err := st.Lookup("base.en"); err != nil || len(m.SHA1) != 40 {
		t.Errorf("base.en: %+v %v", m, err)
	}
	if _, err := st.Lookup("nope"); err == nil {
		t.Error("unknown model accepted")
	}
	if _, ok := st.FirstInstalled(); ok {
		t.Error("empty store reports a model")
	}
	for _, m := range Models() {
		if _, err := hex.DecodeString(m.SHA1); err != nil || len(m.SHA1) != 40 {
			t.Errorf("%s: bad SHA-1 %q", m.Name, m.SHA1)
		}
	}
}

// TestModelPathStaysInDir: Path names a file in Dir or fails; a name with
// a separator or ".." named one elsewhere, which Installed then reported.
func TestModelPathStaysInDir(t *testing.T) {
	dir := t.TempDir()
	st := &ModelStore{Dir: filepath.Join(dir, "models")}
	if err := os.WriteFile(filepath.Join(dir, "secret.bin"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"base.en", true},
		{"large-v3-q5_0", true},
		{"", false},
		{"x/../../secret", false},
		{"../secret", false},
		{`x\..\..\secret`, false},
	} {
		p, err := st.Path(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("Path(%q) = %q, %v; want ok %v", tc.name, p, err, tc.ok)
		}
		if err == nil && filepath.Dir(p) != st.Dir {
			t.Errorf("Path(%q) = %q, outside %s", tc.name, p, st.Dir)
		}
	}
	if p, ok := st.Installed("x/../../secret"); ok {
		t.Errorf("Installed reports %s", p)
	}
}

// TestNewUsesPulledModel: with a model pulled into the user cache and
// whisper-cli present, the default engine order picks whisper with it.
func TestNewUsesPulledModel(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	cli := filepath.Join(t.TempDir(), "whisper-cli")
	os.WriteFile(cli, []byte("#!/bin/sh\n"), 0o755)
	if tr, err := New(context.Background(), Config{WhisperCLI: cli}); err == nil && tr.Name() == "whisper" {
		t.Fatalf("whisper chosen with no model pulled")
	}
	model := filepath.Join(cache, "autocut", "models", "ggml-base.en.bin")
	os.MkdirAll(filepath.Dir(model), 0o755)
	os.WriteFile(model, []byte("model"), 0o644)
	tr, err := New(context.Background(), Config{WhisperCLI: cli})
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := tr.(*Chain).Engines()[0].(*Whisper); !ok || w.Model != model {
		t.Errorf("New chose %T %+v, want whisper with %s", tr, tr, model)
	}
}
