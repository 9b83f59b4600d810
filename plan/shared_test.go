package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// analyzeFile analyses path with the library's decoders (dsp.AnalyzeFile).
func analyzeFile(t testing.TB, path string) *dsp.Analysis {
	t.Helper()
	a, err := dsp.AnalyzeFile(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("analyse %s: %v", path, err)
	}
	return a
}
