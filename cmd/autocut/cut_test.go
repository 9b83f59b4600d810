package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCutCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "talk.wav")
	// Two tone bursts separated by 3 s of near-silence: one cut expected.
	b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i",
		"sine=f=440:d=8:sample_rate=44100", "-af", "volume='if(between(t,2,5),0.0005,0.3)':eval=frame", "-ac", "2", in).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	for _, c := range []struct {
		args   []string
		out    string
		maxDur float64
	}{
		{[]string{"cut", "--preset", "podcast", "-o", filepath.Join(dir, "a.wav"), in}, "a.wav", 6},
		{[]string{"cut", in, "-o", filepath.Join(dir, "b.mp3"), "--normalize", "none", "--rumble=false", "--keep-silence", "0",
			"--timelines", "fcpxml,premiere,edl,otio,csv", "--timeline-dir", filepath.Join(dir, "tl"), "--timeline-rate", "25"}, "b.mp3", 5.2},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), c.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		if !strings.Contains(errb.String(), "rendering 100%") {
			t.Errorf("no plain progress lines in: %s", errb.String())
		}
		d := probeDur(t, filepath.Join(dir, c.out))
		t.Logf("%s: %.3f s; %s", c.out, d, strings.TrimSpace(errb.String()))
		if d < 4.5 || d > c.maxDur {
			t.Errorf("%s lasts %.3f s, want 4.5..%.1f", c.out, d, c.maxDur)
		}
	}
	for _, ext := range []string{".fcpxml", ".xml", ".edl", ".otio", ".csv"} {
		b, err := os.ReadFile(filepath.Join(dir, "tl", "talk-autocut"+ext))
		if err != nil || len(b) < 50 {
			t.Errorf("timeline %s: %v", ext, err)
		}
	}
	// --transcribe cuts the filler of flite speech ("um" between two sentences).
	var parts []string
	for i, text := range []string{"So I think we should go to the market today.", "um", "The numbers came in higher than anyone expected."} {
		f := filepath.Join(dir, "p"+strconv.Itoa(i)+".wav")
		if b, err := exec.Command("flite", "-voice", "rms", "-t", text, "-o", f).CombinedOutput(); err != nil {
			t.Fatalf("flite: %v %s", err, b)
		}
		parts = append(parts, f)
	}
	speech := filepath.Join(dir, "speech.wav")
	if b, err := exec.Command("sox", append(parts, speech, "pad", "0.3", "0.3")...).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, b)
	}
	var tout, terr bytes.Buffer
	if code := run(context.Background(), []string{"cut", "--transcribe", "--keep-silence", "0", "-o", filepath.Join(dir, "s.wav"), speech}, &tout, &terr); code != 0 {
		t.Fatalf("cut --transcribe: exit %d: %s", code, terr.String())
	}
	if !strings.Contains(terr.String(), "pocketsphinx found 1 filler words") {
		t.Errorf("no filler reported: %s", terr.String())
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"cut", "--timelines", "aaf", "-o", filepath.Join(dir, "z.wav"), in}, &out, &errb); code != 2 {
		t.Errorf("unknown timeline kind: exit %d, want 2", code)
	}
	if code := run(context.Background(), []string{"cut", in}, &out, &errb); code != 2 {
		t.Errorf("missing -o: exit %d, want 2", code)
	}
	if code := run(context.Background(), []string{"cut", "-o", filepath.Join(dir, "x.mp4"), in}, &out, &errb); code != 2 {
		t.Errorf("mp4 from audio: exit %d, want 2 (%s)", code, errb.String())
	}
}

func probeDur(t *testing.T, path string) float64 {
	t.Helper()
	b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || math.IsNaN(d) {
		t.Fatalf("duration %q", b)
	}
	return d
}
