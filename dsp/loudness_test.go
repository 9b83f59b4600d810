package dsp

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/internal/testtier"
)

var inf = math.Inf(-1)

// testRates are the rates every EBU case runs at; 69313 Hz is prime, so
// 100 ms is not a whole number of samples.
var testRates = []struct {
	rate  int
	quant int // sample type: 0 float, 16/32 integer-rounded
}{{44100, 16}, {48000, 0}, {69313, 32}}

func analyzeSynth(t testing.TB, s Source) *Analysis {
	t.Helper()
	a, err := Analyze(context.Background(), s, Info{Frames: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestEBU3341Integrated(t *testing.T) {
	const k = 1000.0
	tests := []struct {
		name  string
		ch    int
		tones []tone
		want  float64
	}{
		{"3341-1", 2, []tone{{20, k, lv(-23)}}, -23},
		{"3341-2", 2, []tone{{20, k, lv(-33)}}, -33},
		{"3341-3", 2, []tone{{10, k, lv(-36)}, {60, k, lv(-23)}, {10, k, lv(-36)}}, -23},
		{"3341-4", 2, []tone{{10, k, lv(-72)}, {10, k, lv(-36)}, {60, k, lv(-23)}, {10, k, lv(-36)}, {10, k, lv(-72)}}, -23},
		{"3341-5", 2, []tone{{20, k, lv(-26)}, {20.1, k, lv(-20)}, {20, k, lv(-26)}}, -23},
		{"3341-6 5.0", 5, []tone{{20, k, []float64{-28, -28, -24, -30, -30}}}, -23},
		{"3341-6 5.1", 6, []tone{{20, k, []float64{-28, -28, -24, inf, -30, -30}}}, -23},
		{"5.1 LFE ignored", 6, []tone{{20, k, []float64{-28, -28, -24, -6, -30, -30}}}, -23},
		{"mono -23 dBFS", 1, []tone{{20, k, lv(-23)}}, -26},
	}
	for _, r := range testRates {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%d", tc.name, r.rate), func(t *testing.T) {
				s := newSynth(r.rate, tc.ch, tc.tones...)
				s.quant = r.quant
				a := analyzeSynth(t, s)
				if got := a.Loudness.Integrated; !near(got, tc.want, 0.1) {
					t.Errorf("I = %.3f LUFS, want %.1f +/- 0.1", got, tc.want)
				}
				t.Logf("I = %.3f LUFS", a.Loudness.Integrated)
			})
		}
	}
}

func TestEBU3341MomentaryShortTerm(t *testing.T) {
	const k = 1000.0
	for _, r := range testRates {
		t.Run(fmt.Sprint(r.rate), func(t *testing.T) {
			// 3341-9: S = -23 at every 100 ms reading.
			var tones []tone
			for i := 0; i < 5; i++ {
				tones = append(tones, tone{1.34, k, lv(-20)}, tone{1.66, k, lv(-30)})
			}
			a := analyzeSynth(t, newSynth(r.rate, 2, tones...))
			for i, s := range shortTermSeries(a.Blocks) {
				if !near(s, -23, 0.1) {
					t.Errorf("3341-9: S at %.1f s = %.3f, want -23 +/- 0.1", float64(i+shortTermBlks)*0.1, s)
				}
			}
			// 3341-12: M = -23 at every 100 ms reading.
			tones = nil
			for i := 0; i < 25; i++ {
				tones = append(tones, tone{0.18, k, lv(-20)}, tone{0.22, k, lv(-30)})
			}
			a = analyzeSynth(t, newSynth(r.rate, 2, tones...))
			for i, m := range momentarySeries(a.Blocks) {
				if !near(m, -23, 0.1) {
					t.Errorf("3341-12: M at %.1f s = %.3f, want -23 +/- 0.1", float64(i+momentaryBlks)*0.1, m)
				}
			}
			for i := 1; i <= 20; i++ {
				// 3341-10: 3 s burst after 0.15*i s of silence: max S = -23.
				a = analyzeSynth(t, newSynth(r.rate, 2, tone{0.15 * float64(i), k, lv(inf)}, tone{3, k, lv(-23)}, tone{1, k, lv(inf)}))
				if got := a.Loudness.ShortTermMax; !near(got, -23, 0.1) {
					t.Errorf("3341-10 #%d: max S = %.3f, want -23 +/- 0.1", i, got)
				}
				// 3341-11: 3 s burst at -38+i dBFS, offset silence: max S = level.
				want := -38 + float64(i)
				a = analyzeSynth(t, newSynth(r.rate, 2, tone{0.5 + 0.13*float64(i), k, lv(inf)}, tone{3, k, lv(want)}, tone{1, k, lv(inf)}))
				if got := a.Loudness.ShortTermMax; !near(got, want, 0.1) {
					t.Errorf("3341-11 #%d: max S = %.3f, want %.0f +/- 0.1", i, got, want)
				}
				// 3341-13: 0.4 s burst after 0.02*i s offset: max M = -23.
				a = analyzeSynth(t, newSynth(r.rate, 2, tone{1 + 0.02*float64(i), k, lv(inf)}, tone{0.4, k, lv(-23)}, tone{1, k, lv(inf)}))
				if got := a.Loudness.MomentaryMax; !near(got, -23, 0.1) {
					t.Errorf("3341-13 #%d: max M = %.3f, want -23 +/- 0.1", i, got)
				}
				// 3341-14: 0.4 s burst at -38+i dBFS: max M = level.
				a = analyzeSynth(t, newSynth(r.rate, 2, tone{0.5 + 0.07*float64(i), k, lv(inf)}, tone{0.4, k, lv(want)}, tone{1, k, lv(inf)}))
				if got := a.Loudness.MomentaryMax; !near(got, want, 0.1) {
					t.Errorf("3341-14 #%d: max M = %.3f, want %.0f +/- 0.1", i, got, want)
				}
			}
			// 3341-1: M = S = I.
			a = analyzeSynth(t, newSynth(r.rate, 2, tone{20, k, lv(-23)}))
			l := a.Loudness
			if !near(l.MomentaryMax, -23, 0.1) || !near(l.ShortTermMax, -23, 0.1) {
				t.Errorf("3341-1: max M %.3f, max S %.3f, want -23", l.MomentaryMax, l.ShortTermMax)
			}
		})
	}
}

func TestEBU3342LoudnessRange(t *testing.T) {
	const k = 1000.0
	tests := []struct {
		name   string
		levels []float64
		want   float64
	}{
		{"3342-1", []float64{-20, -30}, 10},
		{"3342-2", []float64{-20, -15}, 5},
		{"3342-3", []float64{-40, -20}, 20},
		{"3342-4", []float64{-50, -35, -20, -35, -50}, 15},
	}
	for _, r := range testRates {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%d", tc.name, r.rate), func(t *testing.T) {
				var tones []tone
				for _, l := range tc.levels {
					tones = append(tones, tone{20, k, lv(l)})
				}
				s := newSynth(r.rate, 2, tones...)
				s.quant = r.quant
				a := analyzeSynth(t, s)
				if got := a.Loudness.Range; !near(got, tc.want, 1) {
					t.Errorf("LRA = %.2f LU, want %.0f +/- 1", got, tc.want)
				}
				t.Logf("LRA = %.2f LU", a.Loudness.Range)
			})
		}
	}
}

func TestLoudnessOf(t *testing.T) {
	const k = 1000.0
	a := analyzeSynth(t, newSynth(48000, 2, tone{10, k, lv(-36)}, tone{60, k, lv(-23)}, tone{10, k, lv(-36)}))
	tests := []struct {
		name   string
		ranges []Range
		want   float64
		tol    float64
	}{
		{"whole", []Range{{0, 80}}, a.Loudness.Integrated, 1e-9},
		{"loud part", []Range{{10, 70}}, -23, 0.02},
		{"quiet parts joined", []Range{{0, 10}, {70, 80}}, -36, 0.02},
		{"short quiet + loud", []Range{{0, 1}, {10, 70}}, -23, 0.05},
		{"sub-block rounding", []Range{{10.04, 69.96}}, -23, 0.02},
		{"clipped to input", []Range{{-5, 5}, {75, 200}}, -36, 0.02},
		{"shorter than 400 ms", []Range{{20, 20.3}}, inf, 0},
		{"none", nil, inf, 0},
	}
	for _, tc := range tests {
		got := a.LoudnessOf(tc.ranges)
		if math.IsInf(tc.want, -1) {
			if !math.IsInf(got, -1) {
				t.Errorf("%s: LoudnessOf = %.3f, want -inf", tc.name, got)
			}
			continue
		}
		if !near(got, tc.want, tc.tol) {
			t.Errorf("%s: LoudnessOf = %.4f, want %.4f +/- %g", tc.name, got, tc.want, tc.tol)
		}
	}
}

func TestSilenceIsMinusInf(t *testing.T) {
	a := analyzeSynth(t, newSynth(44100, 2, tone{5, 1000, lv(inf)}))
	l := a.Loudness
	for name, v := range map[string]float64{"I": l.Integrated, "TP": l.TruePeak, "SP": l.SamplePeak, "M": l.MomentaryMax, "S": l.ShortTermMax} {
		if !math.IsInf(v, -1) {
			t.Errorf("%s of silence = %g, want -inf", name, v)
		}
	}
	if l.Range != 0 {
		t.Errorf("LRA of silence = %g, want 0", l.Range)
	}
}

// TestLoudnessRangeDynamic measures a signal on which LRA methods differ:
// 10 minutes of pink noise whose gain drifts slowly over a 24 dB span
// (two sines of 47 s and 13 s period multiplied). Step signals give every
// method the same LRA; this one separates them by the window hop. With
// 3 s windows every 100 ms, as EBU Tech 3342 asks, it measures LRA
// 15.58 LU and I -27.32 LUFS (libebur128's coarser 1 s hop reads a few
// tenths of an LU lower); ffmpeg's ebur128 filter on the same signal prints its own
// figures, parsed and compared too.
func TestLoudnessRangeDynamic(t *testing.T) {
	testtier.Slow(t, "10 minutes of audio from ffmpeg")
	const graph = "anoisesrc=color=pink:seed=7:amplitude=0.3:sample_rate=48000:duration=600," +
		"volume='pow(10,-24*(0.5+0.5*sin(2*PI*t/47))*(0.5+0.5*sin(2*PI*t/13))/20)':eval=frame"
	cmd := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", graph, "-f", "f32le", "-acodec", "pcm_f32le", "-")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	src := &ffmpegSource{f: Format{SampleRate: 48000, Channels: 1}, r: bufio.NewReaderSize(io.TeeReader(stdout, h), 1<<16)}
	a, err := Analyze(context.Background(), src, Info{Frames: 600 * 48000}, nil)
	if werr := cmd.Wait(); err == nil {
		err = werr
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PCM sha256 %x: I %.3f LUFS, LRA %.3f LU", h.Sum(nil), a.Loudness.Integrated, a.Loudness.Range)
	if !near(a.Loudness.Range, 15.58, 0.1) || !near(a.Loudness.Integrated, -27.32, 0.05) {
		t.Errorf("I %.3f LUFS, LRA %.3f LU; want -27.32 and 15.58", a.Loudness.Integrated, a.Loudness.Range)
	}
	out, err := exec.Command("ffmpeg", "-nostats", "-f", "lavfi", "-i", graph+",ebur128", "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg ebur128: %v\n%s", err, out)
	}
	summary := string(out[strings.LastIndex(string(out), "Summary:"):])
	var fI, fLRA float64
	for _, line := range strings.Split(summary, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "I:" {
			fI, _ = strconv.ParseFloat(f[1], 64)
		}
		if len(f) >= 2 && f[0] == "LRA:" {
			fLRA, _ = strconv.ParseFloat(f[1], 64)
		}
	}
	t.Logf("ffmpeg ebur128: I %.1f LUFS, LRA %.1f LU", fI, fLRA)
	if !near(a.Loudness.Integrated, fI, 0.1) || !near(a.Loudness.Range, fLRA, 0.1) {
		t.Errorf("ours I %.3f LRA %.3f, ffmpeg I %.1f LRA %.1f", a.Loudness.Integrated, a.Loudness.Range, fI, fLRA)
	}
}
