package plan

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// sharedDir finds the shared/ directory that stands beside the checkout by
// walking up from the working directory.
func sharedDir(t testing.TB) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		c := filepath.Join(d, "shared")
		if st, err := os.Stat(filepath.Join(c, "corpus")); err == nil && st.IsDir() {
			return c
		}
		up := filepath.Dir(d)
		if up == d {
			t.Fatal("no shared/ directory (with corpus/) beside the checkout or above it; clone shared/ next to the repository")
		}
		d = up
	}
}

// corpusDir generates (once, cached under os.TempDir()) the synthetic corpus
// for seed with cases cases in wav and mp3.
func corpusDir(t testing.TB, shared string, seed, cases int) string {
	t.Helper()
	script := filepath.Join(shared, "corpus", "make-corpus.py")
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(fmt.Appendf(src, "\x00%d\x00%d", seed, cases))
	dir := filepath.Join(os.TempDir(), "autocut-corpus-"+hex.EncodeToString(h[:8]))
	if _, err := os.Stat(filepath.Join(dir, ".done")); err == nil {
		return dir
	}
	tmp, err := os.MkdirTemp(os.TempDir(), "autocut-corpus-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("python3", script, tmp, "--seed", strconv.Itoa(seed), "--cases", strconv.Itoa(cases), "--formats", "wav,mp3")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make-corpus seed %d: %v\n%s", seed, err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, err2 := os.Stat(filepath.Join(dir, ".done")); err2 != nil {
			t.Fatalf("cache corpus: %v", err)
		}
	}
	return dir
}

// pipeSource streams float32 samples from an ffmpeg child process.
type pipeSource struct {
	f   dsp.Format
	r   io.Reader
	buf []byte
}

func (p *pipeSource) Format() dsp.Format { return p.f }

func (p *pipeSource) Read(s []float32) (int, error) {
	n := len(s) - len(s)%p.f.Channels
	if cap(p.buf) < 4*n {
		p.buf = make([]byte, 4*n)
	}
	b := p.buf[:4*n]
	got, err := io.ReadAtLeast(p.r, b, 4*p.f.Channels)
	got -= got % (4 * p.f.Channels)
	for i := 0; i < got/4; i++ {
		s[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	return got / 4, err
}

// analyzeFile analyses path through an ffmpeg pipe. (The decoder-based
// dsp.AnalyzeFile is used instead once the dsp package provides it: see
// analyzeFileFunc.)
func analyzeFile(t testing.TB, path string) *dsp.Analysis {
	t.Helper()
	if f := analyzeFileFunc; f != nil {
		a, err := f(context.Background(), path, nil)
		if err != nil {
			t.Fatalf("analyse %s: %v", path, err)
		}
		return a
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	parts := strings.Split(strings.TrimSpace(string(out)), ",")
	if len(parts) < 2 {
		t.Fatalf("ffprobe %s: %q", path, out)
	}
	rate, _ := strconv.Atoi(parts[0])
	ch, _ := strconv.Atoi(parts[1])
	cmd := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-acodec", "pcm_f32le", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a, err := dsp.Analyze(context.Background(), &pipeSource{f: dsp.Format{SampleRate: rate, Channels: ch}, r: r}, dsp.Info{Name: filepath.Base(path), Frames: -1}, nil)
	werr := cmd.Wait()
	if err != nil || werr != nil {
		t.Fatalf("analyse %s: %v / ffmpeg: %v %s", path, err, werr, stderr.String())
	}
	return a
}
