package transcode

import (
	"context"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// rmsDb returns the RMS level of [from, to) seconds of a decoded file.
func rmsDb(x []float32, f dsp.Format, from, to float64) float64 {
	a, b := int(from*float64(f.SampleRate))*f.Channels, int(to*float64(f.SampleRate))*f.Channels
	var s float64
	for _, v := range x[a:b] {
		s += float64(v) * float64(v)
	}
	return 10 * math.Log10(s/float64(b-a))
}

func TestDenoiseLowersPausesKeepsSpeech(t *testing.T) {
	dir := t.TempDir()
	speech := filepath.Join(dir, "speech.wav")
	if b, err := exec.Command("espeak-ng", "-w", speech, "Here is the thing nobody tells you about editing audio. We recorded this episode in a small room.").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, b)
	}
	padded := filepath.Join(dir, "padded.wav")
	if b, err := exec.Command("sox", speech, "-r", "48000", padded, "gain", "-n", "-3", "pad", "2", "2").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, b)
	}
	for _, level := range []float64{-55, -45} {
		noisy := filepath.Join(dir, "noisy.wav")
		// pink noise whose RMS is `level` dBFS, mixed under the speech;
		// -R seeds sox's generator, so every run hears the same noise
		if b, err := exec.Command("sox", "-R", "-m", padded, "|sox -R -n -r 48000 -c 1 -p synth 60 pinknoise gain -n "+ftoa(level+19), noisy, "trim", "0", dur(t, padded)).CombinedOutput(); err != nil {
			t.Fatalf("sox mix: %v: %s", err, b)
		}
		a := analyze(t, noisy)
		p, err := plan.Make(a, plan.Params{MinSilenceSec: 0.5, KeepSilenceMs: 0, MinSpeechMs: 0}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Everything is kept, so the pauses stay in the output to be
		// measured: the lead-in and the tail.
		d := a.Input.Duration
		r := renderDenoised(t, noisy, a, p.Cuts, []dsp.Range{{Start: 0.3, End: 1.7}, {Start: d - 1.7, End: d - 0.3}})
		before, after := r.each[0][0], r.each[0][1]
		tailB, tailA := r.each[1][0], r.each[1][1]
		dl := r.loudAfter - r.loudBefore
		t.Logf("noise %.0f dBFS: pause %.1f -> %.1f dB (%.1f dB lower), tail %.1f -> %.1f; speech loudness %.2f -> %.2f LUFS (%+.2f LU)",
			level, before, after, before-after, tailB, tailA, r.loudBefore, r.loudAfter, dl)
		if math.Abs(before-level) > 2 {
			t.Errorf("test noise measures %.1f dBFS, meant %.0f", before, level)
		}
		if before-after < 10 || tailB-tailA < 10 {
			t.Errorf("noise in pauses lowered by %.1f / %.1f dB, want >= 10", before-after, tailB-tailA)
		}
		if math.Abs(dl) >= 1 {
			t.Errorf("speech loudness changed by %+.2f LU, want < 1", dl)
		}
		if math.Abs(r.outDur-a.Input.Duration) > 1e-6 {
			t.Errorf("duration %.6f -> %.6f", a.Input.Duration, r.outDur)
		}
	}
}

// denoised is what renderDenoised measured: the pauses' level before and
// after (dBFS, energy-weighted over pauseSec seconds) and the integrated
// loudness before and after (LUFS).
type denoised struct {
	before, after, pauseSec float64
	loudBefore, loudAfter   float64
	each                    [][2]float64 // per pause: level before and after, dBFS
	outDur                  float64      // the output's duration, s
}

// drop is how much lower the pauses are after the denoiser, dB.
func (d denoised) drop() float64 { return d.before - d.after }

// renderDenoised renders in through the denoiser alone (everything kept;
// the cuts give the noise profile) to WAV and measures the pauses.
func renderDenoised(t *testing.T, in string, a *dsp.Analysis, cuts []plan.Cut, pauses []dsp.Range) denoised {
	t.Helper()
	full := &plan.Plan{Keep: []dsp.Range{{Start: 0, End: a.Input.Duration}}, Cuts: cuts}
	out := filepath.Join(t.TempDir(), "clean.wav")
	if _, err := Render(context.Background(), in, a, full, Options{Format: "wav", Normalize: "none", Denoise: true}, out, nil); err != nil {
		t.Fatal(err)
	}
	x0, f := readAll(t, in)
	x1, _ := readAll(t, out)
	var before, after, n float64
	var each [][2]float64
	for _, p := range pauses {
		w := p.End - p.Start
		b, a := rmsDb(x0, f, p.Start, p.End), rmsDb(x1, f, p.Start, p.End)
		each = append(each, [2]float64{b, a})
		before += math.Pow(10, b/10) * w
		after += math.Pow(10, a/10) * w
		n += w
	}
	b := analyze(t, out)
	return denoised{before: 10 * math.Log10(before/n), after: 10 * math.Log10(after/n), pauseSec: n,
		loudBefore: a.Loudness.Integrated, loudAfter: b.Loudness.Integrated, each: each, outDur: b.Input.Duration}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func dur(t *testing.T, path string) string {
	t.Helper()
	b, err := exec.Command("soxi", "-D", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(b[:len(b)-1])
}

// TestNoiseRangesDigitalSilence checks where the noise profile is taken
// when the plan cuts no silence: a tone between gaps of digital silence
// has no noise to profile (its background is digital silence), so no
// frame is taken, where the tone's own frames were taken for noise while
// the analysis reported the tone's level as its noise floor.
func TestNoiseRangesDigitalSilence(t *testing.T) {
	const rate = 16000
	x := make([]float32, 6*rate)
	for i := range x {
		if (i/rate)%2 == 0 {
			x[i] = float32(0.1 * math.Sin(2*math.Pi*440*float64(i)/rate))
		}
	}
	a, err := dsp.Analyze(context.Background(), &samples{dsp.Format{SampleRate: rate, Channels: 1}, x}, dsp.Info{Name: "tone"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := noiseRanges(a, nil); len(r) != 0 {
		t.Errorf("noise profile taken from %d ranges (first %+v) of a tone between digital silence (noise floor %.2f dB, speech %.2f dB)", len(r), r[0], a.NoiseFloorDb, a.SpeechLevelDb)
	}
}

// samples is a dsp.Source over samples in memory.
type samples struct {
	f dsp.Format
	x []float32
}

func (s *samples) Format() dsp.Format { return s.f }

func (s *samples) Read(p []float32) (int, error) {
	if len(s.x) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.x)
	s.x = s.x[n:]
	return n, nil
}
