package main

// Tests of the real binary: what a user meets at the shell (exit codes,
// signals, files left behind), which in-process calls of run cannot show.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binDir holds the autocut binary the tests build (once, on first use).
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "autocut-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// autocutBin returns the path of the autocut binary built from this package.
func autocutBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binPath = filepath.Join(binDir, "autocut")
		if b, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binError = fmt.Errorf("go build: %v\n%s", err, b)
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

// result is what a run of the binary left.
type result struct {
	stdout, stderr string
	code           int
}

// autocut runs the binary in dir with args and returns its streams and exit code.
func autocut(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(autocutBin(t), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run autocut %v: %v", args, err)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// want fails the test unless the run exited with code and its stderr says
// every one of says.
func (r result) want(t *testing.T, what string, code int, says ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit %d, want %d; stderr:\n%s", what, r.code, code, r.stderr)
	}
	for _, s := range says {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("%s: stderr does not say %q:\n%s", what, s, r.stderr)
		}
	}
}

// fileState is what the tests compare to prove a file untouched.
type fileState struct {
	sum   [32]byte
	mtime time.Time
	size  int64
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{sha256.Sum256(b), st.ModTime(), st.Size()}
}

// listing returns the names in dir (hidden ones too), sorted.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func wantListing(t *testing.T, dir string, names ...string) {
	t.Helper()
	sort.Strings(names)
	if got := listing(t, dir); strings.Join(got, "|") != strings.Join(names, "|") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// pausedTone writes a 16 kHz mono WAV of sec seconds to dir/name: 3 s of
// tone, then 1 s of silence, repeated (a cut every 4 s).
func pausedTone(t *testing.T, dir, name string, sec int) string {
	t.Helper()
	var segs [][2]float64
	for i := 0; i < sec/4; i++ {
		segs = append(segs, [2]float64{3, 0.3}, [2]float64{1, 0})
	}
	src := writeToneWAV(t, segs...)
	path := filepath.Join(dir, name)
	if err := os.Rename(src, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBinaryRefusesToWriteItsInput(t *testing.T) {
	dir := t.TempDir()
	in := pausedTone(t, dir, "talk.wav", 8)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("talk.wav", filepath.Join(dir, "link.wav")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, filepath.Join(dir, "hard.wav")); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, in)
	for _, c := range []struct {
		name, cwd string
		args      []string
	}{
		{"same name", dir, []string{"cut", "-o", "talk.wav", "talk.wav"}},
		{"same name with -y", dir, []string{"cut", "-y", "-o", "talk.wav", "talk.wav"}},
		{"absolute and relative", dir, []string{"cut", "-o", in, "talk.wav"}},
		{"relative through ..", sub, []string{"cut", "-o", "../sub/../talk.wav", "../talk.wav"}},
		{"through a symlink", dir, []string{"cut", "-y", "-o", "link.wav", "talk.wav"}},
		{"input through a symlink", dir, []string{"cut", "-o", "talk.wav", "link.wav"}},
		{"a hard link", dir, []string{"cut", "-y", "-o", "hard.wav", "talk.wav"}},
		{"flags after the file", dir, []string{"cut", "talk.wav", "-o", "./talk.wav"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := autocut(t, c.cwd, c.args...)
			r.want(t, c.name, 2, "refusing to write", "it is the input file")
			if strings.Contains(r.stderr, "analysing") {
				t.Errorf("the check came after the analysis:\n%s", r.stderr)
			}
		})
	}
	if after := stateOf(t, in); after != before {
		t.Errorf("the input changed: %+v, was %+v", after, before)
	}
	if l, err := os.Readlink(filepath.Join(dir, "link.wav")); err != nil || l != "talk.wav" {
		t.Errorf("the symlink changed: %q %v", l, err)
	}
	wantListing(t, dir, "talk.wav", "sub", "link.wav", "hard.wav")
	wantListing(t, sub)
}

func TestBinaryNeverOverwritesWithoutY(t *testing.T) {
	dir := t.TempDir()
	in := pausedTone(t, dir, "talk.wav", 8)
	out := filepath.Join(dir, "out.mp3")
	if err := os.WriteFile(out, []byte("the user's earlier work"), 0o600); err != nil {
		t.Fatal(err)
	}
	unchanged := func(what string) {
		t.Helper()
		if b, _ := os.ReadFile(out); string(b) != "the user's earlier work" {
			t.Errorf("%s: out.mp3 was overwritten (%d bytes)", what, len(b))
		}
	}
	autocut(t, dir, "cut", "-o", "out.mp3", "talk.wav").want(t, "existing output", 1, "out.mp3 exists; use -y to overwrite")
	unchanged("without -y")
	autocut(t, dir, "cut", "-n", "-o", "out.mp3", "talk.wav").want(t, "-n", 1, "out.mp3 exists; use -y to overwrite")
	unchanged("-n")
	autocut(t, dir, "cut", "-n", "-y", "-o", "out.mp3", "talk.wav").want(t, "-n -y", 2, "-y and -n contradict")
	unchanged("-n -y")
	// A dangling symlink is a name in use too.
	if err := os.Symlink("nowhere.wav", filepath.Join(dir, "dangling.wav")); err != nil {
		t.Fatal(err)
	}
	autocut(t, dir, "cut", "-o", "dangling.wav", "talk.wav").want(t, "dangling symlink", 1, "dangling.wav exists; use -y")
	wantListing(t, dir, "talk.wav", "out.mp3", "dangling.wav")

	r := autocut(t, dir, "cut", "-y", "-o", "out.mp3", "talk.wav")
	r.want(t, "-y", 0, "wrote out.mp3")
	// ffprobe counts the encoder's delay and padding: about 0.09 s at 16 kHz.
	if d, kept := probeDur(t, out), keptSec(t, dir, "talk.wav"); d < kept-0.002 || d > kept+0.1 {
		t.Errorf("the replaced out.mp3 lasts %.3f s, want %.3f", d, kept)
	}
	if st, err := os.Stat(out); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o600 {
		t.Errorf("the replaced out.mp3 has mode %v; want its earlier 0600", st.Mode().Perm())
	}

	// Timelines: the same rule, checked before any work.
	sub := filepath.Join(dir, "cuts")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(sub, "talk-autocut.csv")
	if err := os.WriteFile(csv, []byte("an earlier export"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = autocut(t, dir, "cut", "--timelines", "csv,fcpxml", "-o", "cuts/new.wav", "talk.wav")
	r.want(t, "existing timeline", 1, filepath.Join("cuts", "talk-autocut.csv")+" exists; use -y to overwrite")
	if strings.Contains(r.stderr, "analysing") {
		t.Errorf("the timeline check came after the analysis:\n%s", r.stderr)
	}
	wantListing(t, sub, "talk-autocut.csv")
	// With -y: the render and the timelines go next to the output, and the CLI says so.
	r = autocut(t, dir, "cut", "-y", "--timelines", "csv,fcpxml", "-o", "cuts/new.wav", "talk.wav")
	r.want(t, "timelines with -y", 0, "wrote cuts/new.wav:", "wrote "+filepath.Join("cuts", "talk-autocut.csv"), "wrote "+filepath.Join("cuts", "talk-autocut.fcpxml"))
	wantListing(t, sub, "new.wav", "talk-autocut.csv", "talk-autocut.fcpxml")
	if b, _ := os.ReadFile(csv); bytes.Equal(b, []byte("an earlier export")) {
		t.Errorf("the csv timeline was not replaced")
	}
	// The timeline finds the original by its absolute path, wherever it is opened.
	wantSrc := `src="` + (&url.URL{Scheme: "file", Path: filepath.ToSlash(in)}).String() + `"`
	if b, _ := os.ReadFile(filepath.Join(sub, "talk-autocut.fcpxml")); !bytes.Contains(b, []byte(wantSrc)) {
		t.Errorf("the FCPXML does not hold %s:\n%.600s", wantSrc, b)
	}
	wantListing(t, dir, "talk.wav", "out.mp3", "dangling.wav", "cuts")
}

func TestBinaryOutputFormats(t *testing.T) {
	dir := t.TempDir()
	pausedTone(t, dir, "talk.wav", 8)
	formats := "mp3, mp3_320, wav, m4a, mp4, mp4_hq"
	for _, name := range []string{"out.webm", "out.ogg", "out.flac", "out", "out.MP3.txt"} {
		autocut(t, dir, "cut", "-o", name, "talk.wav").want(t, name, 2, "-o "+name+":", "--format ("+formats+")")
	}
	autocut(t, dir, "cut", "--format", "mp3", "-o", "out.wav", "talk.wav").want(t, "mp3 named .wav", 2, "names a wav file but --format is mp3: name it out.mp3")
	autocut(t, dir, "cut", "--format", "wav", "-o", "out.m4a", "talk.wav").want(t, "wav named .m4a", 2, "names an m4a file but --format is wav: name it out.wav")
	autocut(t, dir, "cut", "--format", "flac", "-o", "out.flac", "talk.wav").want(t, "--format flac", 2, "--format flac: allowed "+formats)
	autocut(t, dir, "cut", "-o", "out.mp4", "talk.wav").want(t, "mp4 of audio", 2, "talk.wav is audio only: mp4 needs a video input (write mp3, mp3_320, wav, m4a)")
	wantListing(t, dir, "talk.wav")
	// --format says what to write under a name of no format.
	for _, c := range []struct{ name, format, container string }{
		{"out.ogg", "wav", "wav"},
		{"noext", "mp3", "mp3"},
		{"OUT.MP3", "", "mp3"},
		{"out.m4a", "", "mov,mp4,m4a,3gp,3g2,mj2"},
	} {
		args := []string{"cut", "-o", c.name, "talk.wav"}
		if c.format != "" {
			args = append(args, "--format", c.format)
		}
		autocut(t, dir, args...).want(t, c.name, 0, "wrote "+c.name)
		b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", filepath.Join(dir, c.name)).Output()
		if got := strings.Trim(strings.TrimSpace(string(b)), `"`); err != nil || got != c.container {
			t.Errorf("%s holds %q (%v), want %s", c.name, got, err, c.container)
		}
	}
}

// TestBinaryDefaultOutput: without -o, cut writes FILE's name with
// -autocut next to FILE (wherever it is run from), in FILE's format or
// --format's, under the same rule against overwriting; an input whose
// format autocut does not write needs -o or --format.
func TestBinaryDefaultOutput(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "rec")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pausedTone(t, sub, "talk.wav", 8)
	autocut(t, dir, "cut", "rec/talk.wav").want(t, "no -o", 0, "wrote "+filepath.Join("rec", "talk-autocut.wav"))
	autocut(t, dir, "cut", "rec/talk.wav").want(t, "no -o again", 1, filepath.Join("rec", "talk-autocut.wav")+" exists; use -y to overwrite")
	autocut(t, dir, "cut", "-y", "rec/talk.wav").want(t, "no -o, -y", 0, "wrote "+filepath.Join("rec", "talk-autocut.wav"))
	autocut(t, sub, "cut", "--format", "mp3", "--timelines", "csv", "talk.wav").want(t, "no -o, --format mp3", 0, "wrote talk-autocut.mp3", "wrote talk-autocut.csv")
	if d, kept := probeDur(t, filepath.Join(sub, "talk-autocut.wav")), keptSec(t, sub, "talk.wav"); math.Abs(d-kept) > 0.002 {
		t.Errorf("talk-autocut.wav lasts %.3f s, want %.3f", d, kept)
	}
	if err := os.Rename(filepath.Join(sub, "talk.wav"), filepath.Join(sub, "talk.flac")); err != nil {
		t.Fatal(err)
	}
	autocut(t, dir, "cut", "rec/talk.flac").want(t, "a .flac input", 2, "rec/talk.flac: autocut does not write .flac files; name the output with -o")
	if err := os.Rename(filepath.Join(sub, "talk.flac"), filepath.Join(sub, "talk")); err != nil {
		t.Fatal(err)
	}
	autocut(t, dir, "cut", "rec/talk").want(t, "an input with no extension", 2, "rec/talk: the name has no extension; name the output with -o")
	wantListing(t, dir, "rec")
	wantListing(t, sub, "talk", "talk-autocut.wav", "talk-autocut.mp3", "talk-autocut.csv")
}

// renderUntil starts `autocut cut` with args in dir and sends sigs once its
// stderr reports the render 10% done; it returns the run's result.
func renderUntil(t *testing.T, dir string, sigs []os.Signal, args ...string) result {
	t.Helper()
	cmd := exec.Command(autocutBin(t), args...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	sent := false
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if !sent && strings.HasPrefix(sc.Text(), "rendering  10%") {
			for _, sig := range sigs {
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			}
			sent = true
		}
	}
	cmd.Wait()
	if !sent {
		t.Fatalf("the render never reached 10%%:\n%s", log.String())
	}
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	return result{"", log.String(), code}
}

func TestBinaryInterruptedRenderLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	src := t.TempDir()
	long := pausedTone(t, src, "talk.wav", 600)
	for _, c := range []struct {
		name string
		sig  os.Signal
		args []string
		code int
	}{
		{"SIGINT, mp3", os.Interrupt, []string{"-o", "out.mp3"}, 130},
		{"SIGINT, wav", os.Interrupt, []string{"--denoise", "-o", "out.wav"}, 130},
		{"SIGTERM, m4a", syscall.SIGTERM, []string{"-o", "out.m4a"}, 143},
		{"SIGKILL, mp3", os.Kill, []string{"-o", "out.mp3"}, 137},
		// A second Ctrl-C does not wait for the work to wind down, and still cleans up.
		{"SIGINT twice, mp3", os.Interrupt, []string{"-o", "out.mp3"}, 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "talk.wav")
			if err := os.Link(long, in); err != nil {
				t.Fatal(err)
			}
			before := stateOf(t, in)
			sigs := []os.Signal{c.sig}
			if strings.Contains(c.name, "twice") {
				sigs = append(sigs, c.sig)
			}
			r := renderUntil(t, dir, sigs, append(append([]string{"cut"}, c.args...), "talk.wav")...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d:\n%s", r.code, c.code, r.stderr)
			}
			if after := stateOf(t, in); after != before {
				t.Errorf("the input changed")
			}
			if c.sig == os.Kill {
				// Nothing can clean up after SIGKILL: the partial file stays
				// in the hidden staging directory, never under the final name.
				for _, n := range listing(t, dir) {
					if n != "talk.wav" && !strings.HasPrefix(n, ".autocut-") {
						t.Errorf("after SIGKILL, %s lies beside the input", n)
					}
				}
				return
			}
			word := map[os.Signal]string{os.Interrupt: "autocut: interrupted", syscall.SIGTERM: "autocut: terminated"}[c.sig]
			if !strings.Contains(r.stderr, word) {
				t.Errorf("stderr does not say %q:\n%s", word, r.stderr)
			}
			wantListing(t, dir, "talk.wav")
		})
	}
}

func TestBinaryEncoderFailureLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake encoder is a shell script")
	}
	dir := t.TempDir()
	pausedTone(t, dir, "talk.wav", 8)
	before := stateOf(t, filepath.Join(dir, "talk.wav"))
	// An ffmpeg that writes half a file to its output and fails.
	fake := t.TempDir()
	script := "#!/bin/sh\nfor a; do out=$a; done\nhead -c 5000 >\"$out\"\necho 'fake encoder: disk on fire' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(fake, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(autocutBin(t), "cut", "-o", "out.mp3", "talk.wav")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+"/usr/bin:/bin")
	b, _ := cmd.CombinedOutput()
	r := result{"", string(b), cmd.ProcessState.ExitCode()}
	r.want(t, "failing encoder", 1, "disk on fire")
	wantListing(t, dir, "talk.wav")
	if stateOf(t, filepath.Join(dir, "talk.wav")) != before {
		t.Errorf("the input changed")
	}
}

// keptSec is the plan's kept duration as `autocut analyze` reports it.
func keptSec(t *testing.T, dir string, args ...string) float64 {
	t.Helper()
	r := autocut(t, dir, append([]string{"analyze"}, args...)...)
	if r.code != 0 {
		t.Fatalf("analyze: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Plan struct {
			Stats struct{ FinalSec float64 } `json:"stats"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Plan.Stats.FinalSec
}

func TestBinaryWritesStandardOutput(t *testing.T) {
	dir := t.TempDir()
	if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=12:sample_rate=48000",
		"-af", "volume='if(lt(mod(t,4),3),0.3,0.0005)':eval=frame", "-ac", "2", filepath.Join(dir, "talk.wav")).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	kept := keptSec(t, dir, "talk.wav")
	for _, c := range []struct {
		format, ext string
		tol         float64 // above the kept duration: the encoder's delay and padding
	}{
		{"wav", ".wav", 0.001},
		{"mp3", ".mp3", 0.06},
		{"m4a", ".m4a", 0.05},
	} {
		t.Run(c.format, func(t *testing.T) {
			// As a shell runs it: standard output is the file.
			piped := filepath.Join(dir, "piped"+c.ext)
			f, err := os.Create(piped)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(autocutBin(t), "cut", "-o", "-", "--format", c.format, "talk.wav")
			cmd.Dir = dir
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = f, &errb
			err = cmd.Run()
			f.Close()
			if err != nil {
				t.Fatalf("%v: %s", err, errb.String())
			}
			if !strings.Contains(errb.String(), "wrote standard output") {
				t.Errorf("stderr: %s", errb.String())
			}
			d := probeDur(t, piped)
			t.Logf("%s to stdout: %.4f s, plan keeps %.4f s", c.format, d, kept)
			if d < kept-0.002 || d > kept+c.tol {
				t.Errorf("%s from stdout lasts %.4f s, the plan keeps %.4f s (+%.3f)", c.format, d, kept, c.tol)
			}
			// Through a pipe (no seeking possible), the same bytes.
			cmd = exec.Command(autocutBin(t), "cut", "-o", "-", "--format", c.format, "talk.wav")
			cmd.Dir = dir
			var out bytes.Buffer
			pr, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.Copy(&out, pr)
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			if want, _ := os.ReadFile(piped); c.format != "m4a" && !bytes.Equal(out.Bytes(), want) {
				t.Errorf("through a pipe: %d bytes, to a file: %d bytes, and they differ", out.Len(), len(want))
			}
		})
	}
	// The WAV on stdout is the WAV a file gets, byte for byte.
	autocut(t, dir, "cut", "-o", "file.wav", "talk.wav").want(t, "wav file", 0)
	a, _ := os.ReadFile(filepath.Join(dir, "file.wav"))
	b, _ := os.ReadFile(filepath.Join(dir, "piped.wav"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("-o file.wav (%d bytes) and -o - (%d bytes) differ", len(a), len(b))
	}
	autocut(t, dir, "cut", "-o", "-", "talk.wav").want(t, "-o - without --format", 2, "-o - (standard output) needs --format")
	// A device is written in place, without -y.
	autocut(t, dir, "cut", "-o", os.DevNull, "--format", "wav", "talk.wav").want(t, "/dev/null", 0, "wrote "+os.DevNull)
}

func TestBinaryHelpAndVersion(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"help", "cut"}, {"cut", "--help"}, {"cut", "-h"}} {
		r := autocut(t, dir, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		for _, s := range []string{"usage: autocut cut [flags] [-o OUT] FILE", "\n  -o file\n", "talk-autocut.wav", "\n  --keep-silence duration\n", "\n  -y\n", "250ms"} {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("%v: the help does not say %q:\n%s", args, s, r.stdout)
			}
		}
	}
	for _, cmd := range []string{"analyze", "transcribe"} {
		if r := autocut(t, dir, "help", cmd); r.code != 0 || !strings.Contains(r.stdout, "usage: autocut "+cmd) {
			t.Errorf("help %s: exit %d:\n%s", cmd, r.code, r.stdout)
		}
	}
	if r := autocut(t, dir, "help"); r.code != 0 || !strings.Contains(r.stdout, "commands:") {
		t.Errorf("help: exit %d:\n%s", r.code, r.stdout)
	}
	// version tells what go version -m reads from the binary.
	b, err := exec.Command("go", "version", "-m", autocutBin(t)).Output()
	if err != nil {
		t.Fatal(err)
	}
	info := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "mod" {
			info["version"] = f[2]
		}
		if len(f) >= 2 && f[0] == "build" {
			if k, v, ok := strings.Cut(f[1], "="); ok {
				info[k] = v
			}
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := autocut(t, dir, args...)
		v := strings.TrimSpace(r.stdout)
		if r.code != 0 || !strings.HasPrefix(v, "autocut "+info["version"]) || !strings.Contains(v, runtime.Version()) {
			t.Errorf("%v: %q (exit %d), want autocut %s ... %s", args, v, r.code, info["version"], runtime.Version())
		}
		if rev := info["vcs.revision"]; rev != "" && !strings.Contains(v, rev) {
			t.Errorf("%v: %q does not name the revision %s", args, v, rev)
		}
		t.Logf("%v: %s", args, v)
	}
}

func TestBinaryFlags(t *testing.T) {
	dir := t.TempDir()
	pausedTone(t, dir, "talk.wav", 12)
	// Durations with units, or bare numbers in the flag's unit (seconds for
	// --min-silence, milliseconds for --keep-silence and --min-speech).
	var plans []string
	for _, args := range [][]string{
		{"--min-silence", "0.5", "--keep-silence", "200", "--min-speech", "100"},
		{"--min-silence", "0.5s", "--keep-silence", "200ms", "--min-speech", "100ms"},
		{"--min-silence=500ms", "--keep-silence=0.2s", "--min-speech", "0.1s"},
	} {
		r := autocut(t, dir, append(append([]string{"analyze"}, args...), "talk.wav")...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		var doc struct {
			Plan struct {
				Params struct {
					MinSilenceSec, KeepSilenceMs, MinSpeechMs float64
				} `json:"params"`
				Cuts []struct{ Start, End float64 } `json:"cuts"`
			} `json:"plan"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		p := doc.Plan.Params
		if p.MinSilenceSec != 0.5 || p.KeepSilenceMs != 200 || p.MinSpeechMs != 100 || len(doc.Plan.Cuts) != 3 {
			t.Errorf("%v: params %+v, %d cuts; want 0.5 s, 200 ms, 100 ms, 3 cuts", args, p, len(doc.Plan.Cuts))
		}
		plans = append(plans, fmt.Sprint(doc.Plan))
	}
	if plans[0] != plans[1] || plans[0] != plans[2] {
		t.Errorf("the spellings give different plans:\n%s", strings.Join(plans, "\n"))
	}
	// Mistakes are named by the flag the user typed, never by an API field.
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--threshold", "-5"}, "--threshold -5: allowed -70 to -10 dB"},
		{[]string{"--threshold=-80"}, "--threshold -80: allowed -70 to -10 dB"},
		{[]string{"--threshold", "loud"}, "--threshold loud: not a number (dB)"},
		{[]string{"--min-silence", "50"}, "--min-silence 50: allowed 0.2 to 10 s"},
		{[]string{"--min-silence", "100ms"}, "--min-silence 100ms: allowed 0.2 to 10 s"},
		{[]string{"--keep-silence", "5s"}, "--keep-silence 5s: allowed 0 to 2000 ms"},
		{[]string{"--keep-silence", "-1"}, "--keep-silence -1: allowed 0 to 2000 ms"},
		{[]string{"--min-speech", "soon"}, "--min-speech soon: not a duration"},
		{[]string{"--preset", "loud"}, "--preset loud: allowed podcast, youtube, cours, interview, radical"},
		{[]string{"--decoder", "magic"}, "--decoder magic: allowed auto, native, ffmpeg"},
		{[]string{"--normalize", "loud"}, "--normalize loud: allowed none, podcast, youtube"},
		{[]string{"--denoise=maybe"}, "--denoise maybe: want true or false"},
		{[]string{"--timelines", "aaf"}, "--timelines aaf:"},
		{[]string{"--fcpxml-version", "1.7"}, "--fcpxml-version 1.7: allowed 1.8"},
		{[]string{"--tresh", "3"}, "unknown flag --tresh\nRun 'autocut help cut' for its flags."},
		{[]string{"-o"}, "-o needs a value"},
	} {
		args := append([]string{"cut", "talk.wav"}, c.args...)
		if c.args[0] != "-o" {
			args = append(args, "-o", "x.wav")
		}
		r := autocut(t, dir, args...)
		r.want(t, strings.Join(c.args, " "), 2, "autocut cut: "+c.says)
		for _, field := range []string{"thresholdDb", "minSilenceSec", "keepSilenceMs", "minSpeechMs", "export.", "invalid parameters"} {
			if strings.Contains(r.stderr, field) {
				t.Errorf("%v: the message speaks of %s: %s", c.args, field, r.stderr)
			}
		}
	}
	wantListing(t, dir, "talk.wav")
}
