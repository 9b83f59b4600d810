// Package realdata finds the test material that is not in the repository:
// real recordings and labelled clips taken from public repositories, which
// may not be committed. They live in a folder named by AUTOCUT_REALDATA,
// laid out as recordings/, fillers/ and corpus/ (each with its sources and
// licences). Material from Debian packages stays in the repository's
// testdata/, so a bare clone still tests real speech.
//
// A test that needs the folder calls Dir (or Path); without it the test
// skips with one line naming the variable, except under CI=true, where the
// missing folder fails it. A test that only widens its set with the folder
// calls Optional. When AUTOCUT_REALDATA_LOG names a file, each call appends
// one line to it ("ran", "skipped" or "partial", then the test's name), so
// that scripts/test.sh can say how many tests ran with the material.
package realdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Var is the environment variable naming the folder.
const Var = "AUTOCUT_REALDATA"

// LogVar names the file each lookup is recorded in (optional).
const LogVar = "AUTOCUT_REALDATA_LOG"

// ErrUnset reports that Var is not set.
var ErrUnset = errors.New(Var + " is not set")

// Lookup returns the folder Var names. It answers ErrUnset when the
// variable is empty and an error when it names no folder.
func Lookup() (string, error) {
	dir := os.Getenv(Var)
	if dir == "" {
		return "", ErrUnset
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("%s=%s: %w", Var, dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s=%s: not a folder", Var, dir)
	}
	return dir, nil
}

// Dir returns the folder, or ends tb: skipped when Var is unset (failed
// under CI=true), failed when Var names no folder.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := Lookup()
	switch {
	case errors.Is(err, ErrUnset) && os.Getenv("CI") != "true":
		record(tb, "skipped")
		tb.Skipf("%s not set: skipping (needs the real material folder, see docs/accuracy.md)", Var)
	case err != nil:
		record(tb, "failed")
		tb.Fatalf("real material: %v (CI=%q)", err, os.Getenv("CI"))
	}
	record(tb, "ran")
	return dir
}

// Path returns a file or folder of the material (elems under the folder),
// or ends tb as Dir does; a missing file fails tb.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("real material: %v", err)
	}
	return p
}

// Optional returns the folder for a test that runs without it on the
// repository's own material and widens its set with it: "" (and one
// logged line naming the variable) when Var is unset outside CI. Under
// CI=true, or when Var names no folder, it fails tb as Dir does.
func Optional(tb testing.TB) string {
	tb.Helper()
	dir, err := Lookup()
	switch {
	case errors.Is(err, ErrUnset) && os.Getenv("CI") != "true":
		record(tb, "partial")
		tb.Logf("%s not set: the repository's material only", Var)
		return ""
	case err != nil:
		record(tb, "failed")
		tb.Fatalf("real material: %v (CI=%q)", err, os.Getenv("CI"))
	}
	record(tb, "ran")
	return dir
}

// Repo returns path (slash-separated, from the module's root) as seen
// from the test's working folder, found by walking up to go.mod.
func Repo(tb testing.TB, path string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, filepath.FromSlash(path))
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatalf("no go.mod above the test's folder")
		}
		dir = up
	}
}

// Recordings returns the folders a recording is looked up in, in order:
// the repository's testdata/recordings, then the material's recordings/
// when Var is set (Optional).
func Recordings(tb testing.TB) []string {
	tb.Helper()
	dirs := []string{Repo(tb, "testdata/recordings")}
	if dir := Optional(tb); dir != "" {
		dirs = append(dirs, filepath.Join(dir, "recordings"))
	}
	return dirs
}

// record appends one line to the file LogVar names, if any. Lines are
// short and the file is opened to append, so parallel test binaries do
// not interleave them.
func record(tb testing.TB, what string) {
	name := os.Getenv(LogVar)
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		tb.Logf("%s: %v", LogVar, err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%s\n", what, tb.Name())
}

// AllRecordings returns the folders for a test that needs the material's
// recordings as well as the repository's: the repository's
// testdata/recordings, the material's recordings/, then the material
// itself (for its corpus/ files, named by their path under it); without
// the material tb ends as Dir ends it.
func AllRecordings(tb testing.TB) []string {
	tb.Helper()
	return []string{Repo(tb, "testdata/recordings"), Path(tb, "recordings"), Dir(tb)}
}

// RecordingFiles returns the paths of the recordings (WAV, FLAC, Ogg and
// MP3 files) in the folders of Recordings, sorted by name; a name found in
// two folders is listed once, from the first.
func RecordingFiles(tb testing.TB) []string {
	tb.Helper()
	seen := map[string]string{}
	for _, dir := range Recordings(tb) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range ents {
			switch filepath.Ext(e.Name()) {
			case ".wav", ".flac", ".ogg", ".mp3":
				if _, ok := seen[e.Name()]; !ok && !e.IsDir() {
					seen[e.Name()] = filepath.Join(dir, e.Name())
				}
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = seen[n]
	}
	return out
}
