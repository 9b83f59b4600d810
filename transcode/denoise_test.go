package transcode

import (
	"context"
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
		// Keep everything, so the pauses stay in the output to be measured;
		// the plan's silences give the noise profile.
		full := &plan.Plan{Keep: []dsp.Range{{Start: 0, End: a.Input.Duration}}, Cuts: p.Cuts}
		out := filepath.Join(dir, "clean.wav")
		if _, err := Render(context.Background(), noisy, a, full, Options{Format: "wav", Normalize: "none", Denoise: true}, out, nil); err != nil {
			t.Fatal(err)
		}
		x0, f := readAll(t, noisy)
		x1, _ := readAll(t, out)
		d := a.Input.Duration
		before := rmsDb(x0, f, 0.3, 1.7) // the lead-in pause
		after := rmsDb(x1, f, 0.3, 1.7)
		tailB, tailA := rmsDb(x0, f, d-1.7, d-0.3), rmsDb(x1, f, d-1.7, d-0.3)
		b := analyze(t, out)
		dl := b.Loudness.Integrated - a.Loudness.Integrated
		t.Logf("noise %.0f dBFS: pause %.1f -> %.1f dB (%.1f dB lower), tail %.1f -> %.1f; speech loudness %.2f -> %.2f LUFS (%+.2f LU)",
			level, before, after, before-after, tailB, tailA, a.Loudness.Integrated, b.Loudness.Integrated, dl)
		if math.Abs(before-level) > 2 {
			t.Errorf("test noise measures %.1f dBFS, meant %.0f", before, level)
		}
		if before-after < 10 || tailB-tailA < 10 {
			t.Errorf("noise in pauses lowered by %.1f / %.1f dB, want >= 10", before-after, tailB-tailA)
		}
		if math.Abs(dl) >= 1 {
			t.Errorf("speech loudness changed by %+.2f LU, want < 1", dl)
		}
		if math.Abs(b.Input.Duration-a.Input.Duration) > 1e-6 {
			t.Errorf("duration %.6f -> %.6f", a.Input.Duration, b.Input.Duration)
		}
	}
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
