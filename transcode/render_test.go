package transcode

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
)

func gen(t testing.TB, name string, args ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if b, err := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-y"}, args...), p)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	return p
}

func analyze(t testing.TB, path string) *dsp.Analysis {
	t.Helper()
	a, err := dsp.AnalyzeFile(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// planOf builds a plan keeping ranges of a file of duration d.
func planOf(d float64, keep ...dsp.Range) *plan.Plan {
	p := &plan.Plan{Keep: keep}
	final := 0.0
	for _, k := range keep {
		final += k.Len()
	}
	p.Stats = plan.Stats{OriginalSec: d, FinalSec: final}
	return p
}

func readAll(t testing.TB, path string) ([]float32, dsp.Format) {
	t.Helper()
	s, err := dsp.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var all []float32
	buf := make([]float32, 8192)
	for {
		n, err := s.Read(buf)
		all = append(all, buf[:n]...)
		if err != nil {
			break
		}
	}
	return all, s.Format()
}

func TestRenderWAVIsSampleAccurateAndClickFree(t *testing.T) {
	in := gen(t, "sine.wav", "-f", "lavfi", "-i", "sine=f=1000:d=10:sample_rate=48000", "-af", "volume=0.5", "-ac", "2", "-c:a", "pcm_s16le")
	a := analyze(t, in)
	p := planOf(10, dsp.Range{Start: 0.1234567, End: 1.5678}, dsp.Range{Start: 2.0001, End: 3.33333}, dsp.Range{Start: 3.33333, End: 4.1}, dsp.Range{Start: 5.55, End: 9.99})
	out := filepath.Join(t.TempDir(), "out.wav")
	res, err := Render(context.Background(), in, a, p, Options{Format: "wav", Normalize: "none"}, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, f := readAll(t, out)
	got := float64(len(x)/f.Channels) / float64(f.SampleRate)
	if math.Abs(got-p.Stats.FinalSec) > 0.001 || math.Abs(res.Duration-p.Stats.FinalSec) > 0.001 {
		t.Errorf("duration %.6f (reported %.6f), plan finalSec %.6f", got, res.Duration, p.Stats.FinalSec)
	}
	// The sine's own largest step: amplitude * 2*pi*f/rate (plus 16-bit rounding and dither).
	maxSlope := 0.5*2*math.Pi*1000/48000 + 3.0/32768
	worst := 0.0
	for i := f.Channels; i < len(x); i++ {
		worst = max(worst, math.Abs(float64(x[i]-x[i-f.Channels])))
	}
	t.Logf("largest sample-to-sample step %.5f, sine's own %.5f", worst, maxSlope)
	if worst > maxSlope {
		t.Errorf("a cut left a step of %.5f > %.5f", worst, maxSlope)
	}
}

func TestRumbleFilter(t *testing.T) {
	for _, c := range []struct {
		freq      float64
		minLossDb float64
		maxLossDb float64
	}{{30, 12, 200}, {1000, -0.5, 0.5}} {
		f := dsp.Format{SampleRate: 48000, Channels: 1}
		src := &sineSource{f: f, freq: c.freq, amp: 0.5, frames: 48000 * 2}
		hp := newHighPass(src, 70)
		var sumIn, sumOut float64
		buf := make([]float32, 1024)
		i := 0
		for {
			n, err := hp.Read(buf)
			for _, v := range buf[:n] {
				if i > 24000 { // after the filter settles
					sumOut += float64(v) * float64(v)
					s := 0.5 * math.Sin(2*math.Pi*c.freq*float64(i)/48000)
					sumIn += s * s
				}
				i++
			}
			if err != nil {
				break
			}
		}
		loss := 10 * math.Log10(sumIn/sumOut)
		t.Logf("%g Hz loses %.2f dB", c.freq, loss)
		if loss < c.minLossDb || loss > c.maxLossDb {
			t.Errorf("%g Hz: loss %.2f dB, want %.1f..%.1f", c.freq, loss, c.minLossDb, c.maxLossDb)
		}
	}
}

type sineSource struct {
	f      dsp.Format
	freq   float64
	amp    float64
	frames int
	pos    int
}

func (s *sineSource) Format() dsp.Format { return s.f }
func (s *sineSource) Read(p []float32) (int, error) {
	n := 0
	for n+s.f.Channels <= len(p) && s.pos < s.frames {
		v := float32(s.amp * math.Sin(2*math.Pi*s.freq*float64(s.pos)/float64(s.f.SampleRate)))
		for c := 0; c < s.f.Channels; c++ {
			p[n] = v
			n++
		}
		s.pos++
	}
	if n == 0 {
		return 0, errEOF
	}
	return n, nil
}

var errEOF = io.EOF

// ebur128 measures a file with ffmpeg's ebur128 filter: integrated LUFS and true peak dBTP.
func ebur128(t testing.TB, path string) (float64, float64) {
	t.Helper()
	b, err := exec.Command("ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("ebur128: %v: %s", err, b)
	}
	s := string(b)
	mi := regexp.MustCompile(`I:\s+(-?[\d.]+) LUFS`).FindAllStringSubmatch(s, -1)
	mp := regexp.MustCompile(`Peak:\s+(-?[\d.]+|-inf) dBFS`).FindAllStringSubmatch(s, -1)
	if len(mi) == 0 || len(mp) == 0 {
		t.Fatalf("no ebur128 summary in: %s", s[max(0, len(s)-500):])
	}
	i, _ := strconv.ParseFloat(mi[len(mi)-1][1], 64)
	p, _ := strconv.ParseFloat(mp[len(mp)-1][1], 64)
	return i, p
}

// recording returns the path of one of the real recordings in the
// repository's testdata (see its ATTRIBUTION.txt).
func recording(name string) string { return filepath.Join("..", "testdata", "recordings", name) }

// recordings returns the paths of the named recordings found in the
// repository's testdata or the real material (internal/realdata); a name
// in neither is left out, and said so.
func recordings(t *testing.T, names ...string) []string {
	t.Helper()
	dirs := realdata.Recordings(t)
	var out []string
	for _, n := range names {
		found := false
		for _, d := range dirs {
			if p := filepath.Join(d, n); exists(p) {
				out, found = append(out, p), true
				break
			}
		}
		if !found {
			t.Logf("%s: not measured (not in the repository; %s)", n, realdata.Var)
		}
	}
	return out
}

func TestNormalizeMeetsTargetMeasuredByFFmpeg(t *testing.T) {
	inputs := append(recordings(t, "en_asterisk_allison_demo-instruct_73s.wav", "fr_picovoice_leopard_test_fr.wav", "music_loop_garzul_cc0.flac"),
		// a hot input whose peaks the limiter must catch
		gen(t, "hot.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=3:amplitude=0.9:d=20", "-ar", "44100", "-ac", "2"))
	for _, in := range inputs {
		a := analyze(t, in)
		d := a.Input.Duration
		p := planOf(d, dsp.Range{Start: 0, End: d * 0.4}, dsp.Range{Start: d * 0.5, End: d})
		for _, c := range []struct{ format, norm string }{{"wav", "podcast"}, {"mp3", "youtube"}, {"m4a", "podcast"}, {"mp3_320", "podcast"}} {
			t.Run(filepath.Base(in)+"/"+c.format+"/"+c.norm, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), OutputName(filepath.Base(in), c.format))
				res, err := Render(context.Background(), in, a, p, Options{Format: c.format, Normalize: c.norm, Rumble: true}, out, nil)
				if err != nil {
					t.Fatal(err)
				}
				li, tp := ebur128(t, out)
				want, _ := normalizationOf(c.norm)
				t.Logf("in %.2f LUFS, gain %+.2f dB -> ffmpeg ebur128: I %.2f LUFS (target %.0f), TP %.2f dBTP; duration %.3f s (plan %.3f)",
					res.LoudnessIn, res.GainDb, li, want, tp, res.Duration, p.Stats.FinalSec)
				if math.Abs(li-want) > 0.5 {
					t.Errorf("integrated %.2f LUFS, want %.0f +/- 0.5", li, want)
				}
				if tp > -1.0 {
					t.Errorf("true peak %.2f dBTP, want <= -1.0", tp)
				}
				if math.Abs(res.Duration-p.Stats.FinalSec) > 0.03 {
					t.Errorf("output duration %.4f s, plan %.4f s", res.Duration, p.Stats.FinalSec)
				}
			})
		}
	}
}

func TestRenderVideoStaysInSync(t *testing.T) {
	// 20 minutes at 29.97 fps with 200 cuts (small frames keep it quick).
	in := gen(t, "v.mp4", "-f", "lavfi", "-i", "testsrc2=size=96x54:rate=30000/1001:duration=1200",
		"-f", "lavfi", "-i", "sine=f=440:d=1200:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-c:a", "aac", "-shortest")
	a := analyze(t, in)
	if a.Input.Type != "video" {
		t.Fatalf("input type %q", a.Input.Type)
	}
	var keep []dsp.Range
	for s := 0.37; s < 1199; s += 6 { // 200 kept ranges of 4.13 s
		keep = append(keep, dsp.Range{Start: s, End: s + 4.13})
	}
	p := planOf(a.Input.Duration, keep...)
	out := filepath.Join(t.TempDir(), "v-autocut.mp4")
	res, err := Render(context.Background(), in, a, p, Options{Format: "mp4", Normalize: "none"}, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	vd, ad := streamDurations(t, out)
	frame := 1001.0 / 30000
	t.Logf("video %.4f s, audio %.4f s, plan %.4f s, result %.4f s", vd, ad, p.Stats.FinalSec, res.Duration)
	if math.Abs(vd-ad) >= frame {
		t.Errorf("audio and video differ by %.4f s (>= one frame)", vd-ad)
	}
	var frames int64
	for _, s := range timeline.FrameList(p.Keep, a.Input.FrameRate, a.Input.Duration) {
		frames += s.Len()
	}
	want := float64(frames) * frame
	t.Logf("frame-snapped plan: %d frames = %.4f s", frames, want)
	if math.Abs(vd-want) >= frame {
		t.Errorf("video %.4f s, frame-snapped plan %.4f s", vd, want)
	}
}

func streamDurations(t testing.TB, path string) (video, audio float64) {
	t.Helper()
	for _, sel := range []string{"v:0", "a:0"} {
		b, err := exec.Command("ffprobe", "-v", "error", "-select_streams", sel, "-show_entries", "stream=duration", "-of", "csv=p=0", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		d, _ := strconv.ParseFloat(regexp.MustCompile(`[\d.]+`).FindString(string(b)), 64)
		if sel == "v:0" {
			video = d
		} else {
			audio = d
		}
	}
	return
}

func TestRenderErrors(t *testing.T) {
	in := gen(t, "a.wav", "-f", "lavfi", "-i", "sine=d=3", "-c:a", "pcm_s16le")
	a := analyze(t, in)
	p := planOf(3, dsp.Range{Start: 0, End: 2})
	dir := t.TempDir()
	if _, err := Render(context.Background(), in, a, p, Options{Format: "mp4"}, filepath.Join(dir, "x.mp4"), nil); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("mp4 for audio: %v, want ErrInvalidParams", err)
	}
	if _, err := Render(context.Background(), in, a, p, Options{Format: "mp3", FFmpeg: "/nonexistent/ffmpeg"}, filepath.Join(dir, "x.mp3"), nil); !errors.Is(err, ErrFFmpegMissing) {
		t.Errorf("missing ffmpeg: %v, want ErrFFmpegMissing", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.mp3")); !os.IsNotExist(err) {
		t.Errorf("partial output left behind: %v", err)
	}
	// Cancellation kills ffmpeg and removes the partial output.
	long := gen(t, "long.wav", "-f", "lavfi", "-i", "sine=d=600", "-c:a", "pcm_s16le")
	la := analyze(t, long)
	ctx, cancel := context.WithCancel(context.Background())
	out := filepath.Join(dir, "long.mp3")
	_, err := Render(ctx, long, la, planOf(600, dsp.Range{Start: 0, End: 600}), Options{Format: "mp3"}, out,
		func(f float64) {
			if f > 0.05 {
				cancel()
			}
		})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled render: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("partial output left behind after cancel: %v", err)
	}
}

// TestRenderBadArguments: Render and RenderTo check what they are given
// before any work and answer with the sentinel of what is wrong; a nil
// analysis or plan panicked, and kept ranges that are not a plan's (NaN,
// unsorted, past the input) rendered something, or blamed the input.
func TestRenderBadArguments(t *testing.T) {
	in := gen(t, "a.wav", "-f", "lavfi", "-i", "sine=d=3", "-c:a", "pcm_s16le")
	a := analyze(t, in)
	good := planOf(3, dsp.Range{Start: 0, End: 2})
	noFormat := *a
	noFormat.Input.SampleRate = 0
	hugeRate := *a
	hugeRate.Input.SampleRate = 1 << 40
	tests := []struct {
		name string
		a    *dsp.Analysis
		p    *plan.Plan
		out  string
		want error
	}{
		{"nil analysis", nil, good, "x.wav", plan.ErrBadAnalysis},
		{"analysis without format", &noFormat, good, "x.wav", plan.ErrBadAnalysis},
		{"analysis at 2^40 Hz", &hugeRate, good, "x.wav", plan.ErrBadAnalysis}, // had not returned after 20 s
		{"nil plan", a, nil, "x.wav", plan.ErrInvalidParams},
		{"NaN start", a, planOf(3, dsp.Range{Start: math.NaN(), End: 2}), "x.wav", plan.ErrInvalidParams},
		{"infinite end", a, planOf(3, dsp.Range{Start: 0, End: math.Inf(1)}), "x.wav", plan.ErrInvalidParams},
		{"negative start", a, planOf(3, dsp.Range{Start: -1, End: 2}), "x.wav", plan.ErrInvalidParams},
		{"reversed", a, planOf(3, dsp.Range{Start: 2, End: 1}), "x.wav", plan.ErrInvalidParams},
		{"unsorted", a, planOf(3, dsp.Range{Start: 2, End: 3}, dsp.Range{Start: 0, End: 1}), "x.wav", plan.ErrInvalidParams},
		{"overlapping", a, planOf(3, dsp.Range{Start: 0, End: 2}, dsp.Range{Start: 1, End: 3}), "x.wav", plan.ErrInvalidParams},
		{"past the input", a, planOf(3, dsp.Range{Start: 0, End: 100}), "x.wav", plan.ErrInvalidParams},
		{"nothing kept", a, planOf(3), "x.wav", plan.ErrNothingToKeep},
		{"no output path", a, good, "", plan.ErrInvalidParams},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := ""
			if tc.out != "" {
				out = filepath.Join(dir, tc.out)
			}
			if _, err := Render(context.Background(), in, tc.a, tc.p, Options{Format: "wav"}, out, nil); !errors.Is(err, tc.want) {
				t.Errorf("Render = %v, want %v", err, tc.want)
			}
			if tc.out == "" {
				return
			}
			if _, err := RenderTo(context.Background(), in, tc.a, tc.p, Options{Format: "wav"}, io.Discard, nil); !errors.Is(err, tc.want) {
				t.Errorf("RenderTo = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := RenderTo(context.Background(), in, a, good, Options{Format: "wav"}, nil, nil); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("RenderTo to a nil writer = %v, want ErrInvalidParams", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left behind: %v", ents)
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }
