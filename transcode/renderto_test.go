package transcode

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// ffprobeDuration is the container duration ffprobe reports for a file.
func ffprobeDuration(t *testing.T, path string) float64 {
	t.Helper()
	b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		t.Fatalf("ffprobe duration %q: %v", b, err)
	}
	return d
}

// onlyWriter hides every method of its writer but Write (no Seek, no
// ReadFrom, no *os.File), as a pipe or a network connection would.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

func TestRenderToWAVMatchesRenderByteForByte(t *testing.T) {
	for _, c := range []struct {
		name, codec string
		ch          string
	}{
		{"16-bit stereo", "pcm_s16le", "2"},
		{"24-bit mono, odd data size", "pcm_s24le", "1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := gen(t, "in.wav", "-f", "lavfi", "-i", "sine=f=440:d=4:sample_rate=44100", "-ac", c.ch, "-c:a", c.codec)
			a := analyze(t, in)
			p := planOf(4, dsp.Range{Start: 0.1, End: 1.3}, dsp.Range{Start: 2.00001, End: 3.70002})
			o := Options{Format: "wav", Normalize: "podcast", Rumble: true}
			var buf bytes.Buffer
			res, err := RenderTo(context.Background(), in, a, p, o, onlyWriter{&buf}, nil)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.wav")
			fres, err := Render(context.Background(), in, a, p, o, out, nil)
			if err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), file) {
				t.Fatalf("RenderTo wrote %d bytes, Render %d, and they differ", buf.Len(), len(file))
			}
			if res.Size != int64(buf.Len()) || fres.Size != res.Size || res.Duration != fres.Duration || res.Name != "" || fres.Name != "out.wav" {
				t.Errorf("results differ: RenderTo %+v, Render %+v (%d bytes)", res, fres, buf.Len())
			}
			// The header's sizes, written before any sample, are the file's.
			b := buf.Bytes()
			if string(b[0:4]) != "RIFF" || int(binary.LittleEndian.Uint32(b[4:])) != len(b)-8 {
				t.Errorf("RIFF size %d, file %d bytes", binary.LittleEndian.Uint32(b[4:]), len(b))
			}
			data := int(binary.LittleEndian.Uint32(b[wavHeaderLen-4:]))
			if want := len(b) - wavHeaderLen - data&1; data != want {
				t.Errorf("data size %d, want %d", data, want)
			}
			x, f := readAll(t, out)
			frames := len(x) / f.Channels
			want := int(math.Round(1.3*44100)-math.Round(0.1*44100)) + int(math.Round(3.70002*44100)-math.Round(2.00001*44100))
			if frames != want || math.Abs(res.Duration-float64(want)/44100) > 1e-9 {
				t.Errorf("%d frames (%.6f s reported), want %d", frames, res.Duration, want)
			}
			if got := ffprobeDuration(t, out); math.Abs(got-float64(want)/44100) > 0.0005 {
				t.Errorf("ffprobe reads %.4f s, want %.4f", got, float64(want)/44100)
			}
		})
	}
}

func TestRenderToStreamsCompressedFormats(t *testing.T) {
	in := gen(t, "in.wav", "-f", "lavfi", "-i", "sine=f=440:d=6:sample_rate=48000", "-ac", "2", "-c:a", "pcm_s16le")
	a := analyze(t, in)
	p := planOf(6, dsp.Range{Start: 0.5, End: 2.5}, dsp.Range{Start: 3, End: 5.25})
	for _, c := range []struct {
		format string
		tol    float64 // the encoder's delay and padding, which only a Xing/LAME tag removes
		magic  string  // a marker of the streaming layout
	}{
		{"mp3", 0.06, ""},
		{"mp3_320", 0.06, ""},
		{"m4a", 0.05, "moof"},
	} {
		t.Run(c.format, func(t *testing.T) {
			var buf bytes.Buffer
			res, err := RenderTo(context.Background(), in, a, p, Options{Format: c.format, Normalize: "none"}, onlyWriter{&buf}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Size != int64(buf.Len()) || res.Duration != 4.25 {
				t.Errorf("result %+v for %d bytes, want Duration 4.25", res, buf.Len())
			}
			out := filepath.Join(t.TempDir(), "out"+Ext(c.format))
			if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			d := ffprobeDuration(t, out)
			t.Logf("%s: %d bytes, ffprobe %.4f s", c.format, buf.Len(), d)
			if d < 4.25-0.01 || d > 4.25+c.tol {
				t.Errorf("ffprobe reads %.4f s, want 4.25 (+%.2f)", d, c.tol)
			}
			if c.magic != "" && !bytes.Contains(buf.Bytes()[:min(buf.Len(), 1<<16)], []byte(c.magic)) {
				t.Errorf("no %q box: not a fragmented MP4", c.magic)
			}
			if _, ok := dsp.MP3GaplessDuration(buf.Bytes()[:min(buf.Len(), 1<<16)]); ok {
				t.Errorf("a streamed MP3 carries a Xing tag, which ffmpeg can only fill in by seeking")
			}
		})
	}
	// The same plan rendered to a file keeps the seekable layout: an exact
	// gapless length for MP3.
	out := filepath.Join(t.TempDir(), "out.mp3")
	res, err := Render(context.Background(), in, a, p, Options{Format: "mp3", Normalize: "none"}, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Duration-4.25) > 0.001 {
		t.Errorf("Render's mp3 lasts %.4f s by its LAME tag, want 4.25", res.Duration)
	}
}

func TestRenderReplacesOnlyWhenComplete(t *testing.T) {
	in := gen(t, "in.wav", "-f", "lavfi", "-i", "sine=d=3", "-c:a", "pcm_s16le")
	a := analyze(t, in)
	p := planOf(3, dsp.Range{Start: 0, End: 2})
	dir := t.TempDir()
	out := filepath.Join(dir, "out.mp3")
	if err := os.WriteFile(out, []byte("the user's previous file"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A failing encoder leaves the existing file as it was, and no temporary file.
	if _, err := Render(context.Background(), in, a, p, Options{Format: "mp3", FFmpeg: "/nonexistent/ffmpeg"}, out, nil); !errors.Is(err, ErrFFmpegMissing) {
		t.Fatalf("missing ffmpeg: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := Render(ctx, in, a, p, Options{Format: "wav"}, out, func(f float64) { cancel() }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "the user's previous file" {
		t.Errorf("out changed by failed renders: %q", b)
	}
	assertDir(t, dir, "out.mp3")
	// A complete render replaces it.
	if _, err := Render(context.Background(), in, a, p, Options{Format: "mp3"}, out, nil); err != nil {
		t.Fatal(err)
	}
	if d := ffprobeDuration(t, out); math.Abs(d-2) > 0.06 {
		t.Errorf("replaced out lasts %.3f s, want 2", d)
	}
	if st, err := os.Stat(out); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o600 {
		t.Errorf("replaced out: mode %v; want the replaced file's 0600", st.Mode().Perm())
	}
	assertDir(t, dir, "out.mp3")
	// A plan past the input's end (the input shrank since its analysis) is
	// an error, not a file padded with seconds of silence.
	// (A plan past the end of its own analysis is refused before: checkInput.)
	long := planOf(6, dsp.Range{Start: 0, End: 6})
	was := *a
	was.Input.Duration, was.Input.Frames = 6, 2*a.Input.Frames
	if _, err := RenderTo(context.Background(), in, &was, long, Options{Format: "wav"}, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "ended 3.00 s before") {
		t.Errorf("plan past the end: %v", err)
	}
}

// assertDir fails unless dir holds exactly the names given.
func assertDir(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// TestRenderToVideoStartsAtZero: an MP4 streamed (fragmented) starts its
// video at 0 as the file Render writes does, with the same frames. Without
// an edit list in its index, a stream's first frame is shown at the
// encoder's reordering delay (80 ms at 25 fps, the two B-frames libx264
// holds back) while its audio starts at 0.
func TestRenderToVideoStartsAtZero(t *testing.T) {
	in := gen(t, "v.mp4", "-f", "lavfi", "-i", "testsrc=size=96x54:rate=25:duration=6",
		"-f", "lavfi", "-i", "sine=f=440:d=6:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	a := analyze(t, in)
	p := planOf(a.Input.Duration, dsp.Range{Start: 0.5, End: 2.5}, dsp.Range{Start: 3, End: 5.2})
	var buf bytes.Buffer
	if _, err := RenderTo(context.Background(), in, a, p, Options{Format: "mp4", Normalize: "none"}, onlyWriter{&buf}, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	streamed := filepath.Join(dir, "streamed.mp4")
	if err := os.WriteFile(streamed, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file.mp4")
	if _, err := Render(context.Background(), in, a, p, Options{Format: "mp4", Normalize: "none"}, file, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes()[:min(buf.Len(), 1<<16)], []byte("moof")) {
		t.Fatalf("no moof box: not a fragmented MP4")
	}
	firstVideo := func(path string) (start string, frames int) {
		b, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path).Output()
		if err != nil {
			t.Fatalf("ffprobe %s: %v", path, err)
		}
		pts := strings.Fields(string(b))
		if len(pts) == 0 {
			t.Fatalf("%s: no video packet", path)
		}
		sort.Slice(pts, func(i, j int) bool {
			x, _ := strconv.ParseFloat(pts[i], 64)
			y, _ := strconv.ParseFloat(pts[j], 64)
			return x < y
		})
		return pts[0], len(pts)
	}
	s0, n0 := firstVideo(file)
	s1, n1 := firstVideo(streamed)
	if s0 != "0.000000" || s1 != s0 || n1 != n0 {
		t.Errorf("first video frame at %s s of %d (file: %s s of %d), want both at 0 with the same frames", s1, n1, s0, n0)
	}
}
