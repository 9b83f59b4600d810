package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/google/go-cmp/cmp"
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

// TestTimelinesReferenceAbsoluteInput: by default the timelines of analyze
// and cut reference the input by its absolute path (given relative on the
// command line, with a space in its name), as a file:// URL in the XML
// formats and OTIO and as a path in the EDL; --timeline-media-path
// replaces it.
func TestTimelinesReferenceAbsoluteInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "my talk.wav")
	b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i",
		"sine=f=440:d=6:sample_rate=16000", "-af", "volume='if(between(t,2,4),0,0.3)':eval=frame", in).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	t.Chdir(dir)
	url := "file://" + strings.ReplaceAll(filepath.ToSlash(in), " ", "%20")
	want := map[string]string{
		".fcpxml": `src="` + url + `"`,
		".xml":    "<pathurl>file://localhost/" + strings.TrimPrefix(url, "file:///") + "</pathurl>",
		".otio":   `"target_url": "` + url + `"`,
		".edl":    "* FROM FILE: " + in + "\r\n* SOURCE FILE: " + in + "\r\n",
	}
	for _, c := range []struct {
		name string
		args []string
		tl   string
	}{
		{"cut", []string{"cut", "-o", "out/cut.wav", "--timelines", "all", "my talk.wav"}, "out"},
		{"analyze", []string{"analyze", "--timelines", "all", "--timeline-dir", "tl", "my talk.wav"}, "tl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.MkdirAll(filepath.Join(dir, "out"), 0o755)
			var out, errb bytes.Buffer
			if code := run(context.Background(), c.args, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			for ext, w := range want {
				b, err := os.ReadFile(filepath.Join(dir, c.tl, "my talk-autocut"+ext))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), w) {
					t.Errorf("%s does not reference %s:\n%s", ext, w, b)
				}
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"analyze", "--timelines", "edl", "--timeline-dir", "other", "--timeline-media-path", `D:\media\my talk.wav`, "my talk.wav"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "other", "my talk-autocut.edl")); !strings.Contains(string(b), `* FROM FILE: D:\media\my talk.wav`) {
		t.Errorf("--timeline-media-path not in the EDL:\n%s", b)
	}
}

// TestTimelinesDescribeTheSource: from generated media through analyze:
// a 640x360 and a portrait 1080x1920 video report their size in the
// analysis and their FCPXML and Premiere XML say that size; an 8 kHz
// recording's Premiere sequence runs at 48 kHz (its file at 8 kHz); the
// EDL names the source file.
func TestTimelinesDescribeTheSource(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, args ...string) string {
		p := filepath.Join(dir, name)
		if b, err := exec.Command("ffmpeg", append(append([]string{"-v", "error"}, args...), p)...).CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v: %s", err, b)
		}
		return p
	}
	speech := "volume='if(between(t,1.5,3),0,0.3)':eval=frame"
	video := func(name, size string) string {
		return gen(name, "-f", "lavfi", "-i", "testsrc2=size="+size+":rate=30000/1001:duration=4", "-f", "lavfi", "-i", "sine=f=440:d=4",
			"-af", speech, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	}
	for _, c := range []struct {
		name, path string
		w, h, rate int
		seqRate    string
	}{
		{"640x360", video("small.mp4", "640x360"), 640, 360, 44100, "44100"},
		{"vertical", video("tall.mp4", "1080x1920"), 1080, 1920, 44100, "44100"},
		{"8 kHz", gen("call.wav", "-f", "lavfi", "-i", "sine=f=440:d=4:sample_rate=8000", "-af", speech), 0, 0, 8000, "48000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl := filepath.Join(dir, "tl-"+c.name)
			var out, errb bytes.Buffer
			if code := run(context.Background(), []string{"analyze", "--timelines", "fcpxml,premiere,edl", "--timeline-dir", tl, c.path}, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var a struct {
				Input struct{ Width, Height, SampleRate int }
			}
			if err := json.Unmarshal(out.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
			if a.Input.Width != c.w || a.Input.Height != c.h || a.Input.SampleRate != c.rate {
				t.Errorf("analysis input %+v, want %dx%d at %d Hz", a.Input, c.w, c.h, c.rate)
			}
			stem := strings.TrimSuffix(filepath.Base(c.path), filepath.Ext(c.path))
			read := func(ext string) string {
				b, err := os.ReadFile(filepath.Join(tl, stem+"-autocut"+ext))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			fcp, xmeml, edl := read(".fcpxml"), read(".xml"), read(".edl")
			if c.w > 0 {
				if w := fmt.Sprintf(`width="%d" height="%d"`, c.w, c.h); !strings.Contains(fcp, w) {
					t.Errorf("FCPXML lacks %s:\n%s", w, fcp)
				}
				if w := fmt.Sprintf("<width>%d</width><height>%d</height>", c.w, c.h); strings.Count(xmeml, w) != 2 || strings.Contains(xmeml, "<width>1920</width>") {
					t.Errorf("Premiere XML: sequence and file should both say %s:\n%s", w, xmeml)
				}
			}
			seq := "<format><samplecharacteristics><depth>16</depth><samplerate>" + c.seqRate + "</samplerate>"
			file := fmt.Sprintf("<samplerate>%d</samplerate></samplecharacteristics><channelcount>", c.rate)
			if !strings.Contains(xmeml, seq) || !strings.Contains(xmeml, file) {
				t.Errorf("Premiere XML: want the sequence at %s Hz and the file at %d Hz:\n%s", c.seqRate, c.rate, xmeml)
			}
			if !strings.Contains(edl, "* FROM CLIP NAME: "+filepath.Base(c.path)+"\r\n* FROM FILE: "+c.path+"\r\n* SOURCE FILE: "+c.path+"\r\n") {
				t.Errorf("EDL does not name its source %s:\n%s", c.path, edl)
			}
		})
	}
}

// TestTimelinesAllLeavesOutWhatCannotBeStated: a 12.5 fps video's
// --timelines all writes the kinds that state its rate (FCPXML, OTIO, CSV)
// and warns of those that cannot (Premiere XML and EDL count whole frames
// per second), exit 0; naming such a kind is an error.
func TestTimelinesAllLeavesOutWhatCannotBeStated(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "pal.mp4")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=96x54:rate=12.5:duration=4",
		"-f", "lavfi", "-i", "sine=f=440:d=4", "-af", "volume='if(between(t,1.5,3),0,0.3)':eval=frame",
		"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", in).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	tl := filepath.Join(dir, "tl")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"analyze", "--timelines", "all", "--timeline-dir", tl, in}, &out, &errb); code != 0 {
		t.Fatalf("--timelines all: exit %d: %s", code, errb.String())
	}
	var got []string
	ents, _ := os.ReadDir(tl)
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if want := []string{"pal-autocut.csv", "pal-autocut.fcpxml", "pal-autocut.otio"}; !slices.Equal(got, want) {
		t.Errorf("wrote %q, want %q", got, want)
	}
	for _, k := range []string{"premiere", "edl"} {
		if w := "warning: --timelines all: left out " + k + " at 12.5 fps"; !strings.Contains(errb.String(), w) {
			t.Errorf("stderr %q lacks %q", errb.String(), w)
		}
	}
	errb.Reset()
	if code := run(context.Background(), []string{"analyze", "--timelines", "edl", "--timeline-dir", tl, in}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "edl at 12.5 fps") {
		t.Errorf("--timelines edl: exit %d, stderr %q; want 1 and the rate named", code, errb.String())
	}
}

// cut --transcribe finds its transcriber before the analysis: a model not
// pulled fails at once. --model without --transcribe is a mistake.
func TestCutChecksTheTranscriberFirst(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // no model pulled
	t.Setenv("AUTOCUT_WHISPER_MODEL", "")
	in := writeToneWAV(t, [2]float64{1, 0.3}, [2]float64{1, 0}, [2]float64{1, 0.3})
	out := filepath.Join(t.TempDir(), "out.wav")
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--transcribe", "--model", "base.en"}, 1, "model base.en is not pulled (autocut models pull base.en)"},
		{[]string{"--model", "base.en"}, 2, "--model base.en: the model is for --transcribe"},
	} {
		var errb bytes.Buffer
		code := run(context.Background(), append([]string{"cut", in, "-o", out}, tc.args...), &bytes.Buffer{}, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.says) || strings.Contains(errb.String(), "analysing") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q, before any analysis", tc.args, code, errb.String(), tc.code, tc.says)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("cut wrote its output")
	}
}

// TestCutWarnsOfTruncation checks that cut says so when the WAV holds less
// than its header gives (it cut what the file holds without a word).
func TestCutWarnsOfTruncation(t *testing.T) {
	in := writeToneWAV(t, [2]float64{1, 0.3}, [2]float64{1, 0}, [2]float64{1, 0.3})
	st, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(in, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	code := run(context.Background(), []string{"cut", in, "-o", filepath.Join(t.TempDir(), "out.wav")}, &bytes.Buffer{}, &errb)
	if code != 0 || !strings.Contains(errb.String(), "warning: "+dsp.WarnTruncated) {
		t.Errorf("exit %d, stderr %q; want 0 and a warning that the input is truncated", code, errb.String())
	}
}

// Timelines the edit rate cannot have and mp4 of an audio-only input are
// refused before the analysis (no "analysing" line), exit 2, nothing
// written: not after the render, with the cut file written and its
// timelines missing. --timelines all with an option no kind can honour is
// one error, not a warning for each kind left out.
func TestCutChecksTheInputsRateFirst(t *testing.T) {
	in := writeToneWAV(t, [2]float64{1, 0.3}, [2]float64{1, 0}, [2]float64{1, 0.3})
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"cut", "--timelines", "edl", "--drop-frame", "-o", filepath.Join(dir, "a.wav")},
			"autocut cut: --timelines edl --timeline-rate 30 --drop-frame: drop-frame timecode exists only at 29.97 and 59.94, not 30\n"},
		{[]string{"cut", "--timelines", "all", "--timeline-rate", "25", "--drop-frame", "-o", filepath.Join(dir, "b.wav")},
			"autocut cut: --timelines all --timeline-rate 25 --drop-frame: drop-frame timecode exists only at 29.97 and 59.94, not 25\n"},
		{[]string{"analyze", "--timelines", "all", "--timeline-rate", "25", "--drop-frame", "--timeline-dir", dir},
			"autocut analyze: --timelines all --timeline-rate 25 --drop-frame: drop-frame timecode exists only at 29.97 and 59.94, not 25\n"},
		{[]string{"cut", "--timelines", "fcpxml,edl", "--timeline-rate", "12.5", "-o", filepath.Join(dir, "c.wav")},
			"autocut cut: --timelines fcpxml,edl --timeline-rate 12.5: edl at 12.5 fps: it states whole frames per second or an NTSC rate (such as 25 or 30000/1001) and cannot state this one; choose such a rate, or another kind (fcpxml, otio, csv)\n"},
		{[]string{"cut", "-o", filepath.Join(dir, "d.mp4")},
			"autocut cut: " + in + " is audio only: mp4 needs a video input (write mp3, mp3_320, wav, m4a)\n"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append(tc.args, in), &out, &errb)
		if code != 2 || out.Len() != 0 {
			t.Errorf("%v: exit %d, %d bytes on stdout; want 2 and none", tc.args, code, out.Len())
		}
		if diff := cmp.Diff(tc.says, errb.String()); diff != "" {
			t.Errorf("%v: stderr (-want +got):\n%s", tc.args, diff)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}

// A directory autocut cannot write in (/proc refuses even root) fails
// before the analysis, exit 1: not after it, nor, for timelines, after the
// cut file is written.
func TestUnwritableDirectoryFailsFirst(t *testing.T) {
	if fi, err := os.Stat("/proc"); err != nil || !fi.IsDir() {
		t.Skip("no /proc")
	}
	in := writeToneWAV(t, [2]float64{1, 0.3}, [2]float64{1, 0}, [2]float64{1, 0.3})
	dir := t.TempDir()
	for _, args := range [][]string{
		{"cut", "-o", "/proc/autocut-test.wav"},
		{"cut", "--timelines", "csv", "--timeline-dir", "/proc", "-o", filepath.Join(dir, "a.wav")},
		{"analyze", "--timelines", "csv", "--timeline-dir", "/proc"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append(args, in), &out, &errb)
		want := "autocut " + args[0] + ": cannot write in the output directory /proc: no such file or directory\n"
		if diff := cmp.Diff(want, errb.String()); code != 1 || out.Len() != 0 || diff != "" {
			t.Errorf("%v: exit %d, %d bytes on stdout, stderr (-want +got):\n%s", args, code, out.Len(), diff)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
	// A timeline directory under a file (a directory that is a file is a
	// usage error, found with the flags).
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tlDir, why string
	}{
		{filepath.Join(file, "tl"), "stat " + filepath.Join(file, "tl") + ": not a directory"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"cut", "--timelines", "csv", "--timeline-dir", c.tlDir, "-o", filepath.Join(dir, "a.wav"), in}, &out, &errb)
		want := "autocut cut: cannot write in the timeline directory " + c.tlDir + ": " + c.why + "\n"
		if diff := cmp.Diff(want, errb.String()); code != 1 || diff != "" {
			t.Errorf("--timeline-dir %s: exit %d, stderr (-want +got):\n%s", c.tlDir, code, diff)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}

// An input shorter than one frame has no timeline: said before the work
// (cut wrote the cut file, then failed on "no kept range spans a whole
// frame"), exit 1, nothing written.
func TestTimelinesOfAnInputShorterThanAFrame(t *testing.T) {
	in := writeToneWAV(t, [2]float64{0.01, 0.3})
	dir := t.TempDir()
	for _, args := range [][]string{
		{"cut", "--timelines", "all", "--timeline-dir", dir, "-o", filepath.Join(dir, "a.wav")},
		{"analyze", "--timelines", "csv", "--timeline-dir", dir},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append(args, in), &out, &errb)
		want := "autocut " + args[0] + ": --timelines " + args[2] + ": in.wav lasts 0.010 s, not one whole frame at 30 fps: no kept range spans a whole frame\n"
		if diff := cmp.Diff(want, errb.String()); code != 1 || out.Len() != 0 || diff != "" {
			t.Errorf("%v: exit %d, %d bytes on stdout, stderr (-want +got):\n%s", args, code, out.Len(), diff)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}

// Without ffmpeg, cut to a format it encodes fails before the analysis
// (no "analysing" line), as the README says: "autocut says so and stops".
// WAV is written in pure Go.
func TestCutWithoutFFmpegStopsFirst(t *testing.T) {
	in := writeToneWAV(t, [2]float64{1, 0.3}, [2]float64{1, 0}, [2]float64{1, 0.3})
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	for _, name := range []string{"a.mp3", "a.m4a"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"cut", "-o", filepath.Join(dir, name), in}, &out, &errb)
		want := "autocut cut: ffmpeg/ffprobe not found: install the Debian package ffmpeg (exec: \"ffmpeg\": executable file not found in $PATH)\n"
		if diff := cmp.Diff(want, errb.String()); code != 1 || diff != "" {
			t.Errorf("%s: exit %d, stderr (-want +got):\n%s", name, code, diff)
		}
	}
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"cut", "-o", filepath.Join(dir, "a.wav"), in}, &bytes.Buffer{}, &errb); code != 0 {
		t.Errorf("a.wav: exit %d: %s", code, errb.String())
	}
}
