package dsp

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLevelsSpeechOverNoise checks the noise floor, speech level and
// automatic threshold on speech-like bursts over noise, from a studio
// (-70 dBFS) to a noisy room (-40 dBFS) and for a quiet speaker (speech at
// -36 dBFS RMS): the threshold must sit at least 6 dB above the noise and
// at least 6 dB below the speech.
func TestLevelsSpeechOverNoise(t *testing.T) {
	tests := []struct {
		rate, ch          int
		speechDb, noiseDb float64
	}{
		{44100, 2, -20, -70},
		{48000, 1, -20, -70},
		{44100, 2, -36, -70},
		{16000, 1, -36, -70},
		{44100, 2, -26, -55},
		{44100, 2, -20, -40},
		{8000, 1, -18, -40},
		{44100, 1, -36, -60},
		{22050, 2, -12, -40},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%dHz-%dch-speech%.0f-noise%.0f", tc.rate, tc.ch, tc.speechDb, tc.noiseDb), func(t *testing.T) {
			a := analyzeSynth(t, newSpeechLike(tc.rate, tc.ch, 60, tc.speechDb, tc.noiseDb, 42))
			t.Logf("noise floor %.1f dB, speech level %.1f dB, threshold %.1f dB", a.NoiseFloorDb, a.SpeechLevelDb, a.ThresholdDb)
			if !near(a.NoiseFloorDb, tc.noiseDb, 3) {
				t.Errorf("noise floor %.1f dB, want %.0f +/- 3", a.NoiseFloorDb, tc.noiseDb)
			}
			if a.SpeechLevelDb < tc.speechDb-3 || a.SpeechLevelDb > tc.speechDb+10 {
				t.Errorf("speech level %.1f dB, want %.0f..%.0f", a.SpeechLevelDb, tc.speechDb-3, tc.speechDb+10)
			}
			checkPauseThreshold(t, a, tc.noiseDb)
			// The threshold must separate the actual frames: most pause frames
			// below it, most loud speech frames above.
			below, loudAbove, loud := 0, 0, 0
			for _, v := range a.Envelope.RMSDb {
				if float64(v) < a.ThresholdDb {
					below++
				}
				if float64(v) > tc.speechDb-3 {
					loud++
					if float64(v) > a.ThresholdDb {
						loudAbove++
					}
				}
			}
			if frac := float64(below) / float64(a.Envelope.Frames()); frac < 0.15 || frac > 0.7 {
				t.Errorf("%.0f %% of frames below the threshold; speech-like input pauses about 25-40 %% of the time", 100*frac)
			}
			if loud == 0 || loudAbove != loud {
				t.Errorf("%d of %d loud frames above the threshold", loudAbove, loud)
			}
		})
	}
}

// checkPauseThreshold fails t when the pause threshold lies over the
// speech level less SpeechMarginDb (or, for a voice over a steady bed
// within that margin, over the bed + 6 dB), or, where the noise lies far
// enough under the margin (6 dB), within 6 dB of the noise.
func checkPauseThreshold(t *testing.T, a *Analysis, noiseDb float64) {
	t.Helper()
	if a.ThresholdDb > max(a.SpeechLevelDb-SpeechMarginDb, a.NoiseFloorDb+6.5)+1e-9 {
		t.Errorf("threshold %.1f dB over the speech level %.1f - %g and over the noise %.1f + 6", a.ThresholdDb, a.SpeechLevelDb, SpeechMarginDb, a.NoiseFloorDb)
	}
	if a.SpeechLevelDb-SpeechMarginDb >= noiseDb+6 && a.ThresholdDb < max(noiseDb+6, minThresholdDb) {
		t.Errorf("threshold %.1f dB under the noise %+.0f + 6", a.ThresholdDb, noiseDb)
	}
}

func TestEstimateLevels(t *testing.T) {
	rep := func(v float32, n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	tests := []struct {
		name               string
		rms                []float32
		noise, speech, thr float64
	}{
		{"empty", nil, FloorDb, FloorDb, -70},
		{"digital silence", rep(-120, 100), -119.75, -119.75, -70},
		{"two levels", append(rep(-60, 300), rep(-20, 700)...), -59.75, -19.75, -45.75},
		{"digital silence ignored", append(append(rep(-120, 5000), rep(-60, 300)...), rep(-20, 700)...), -59.75, -19.75, -45.75},
		{"narrow gap keeps 6 dB over noise", append(rep(-50, 300), rep(-46, 700)...), -49.75, -45.75, -43.75},
		{"loud: clamped to -10", append(rep(0, 300), rep(5, 700)...), 0.25, 5.25, -10},
		{"speech cap 10 dB below speech", append(rep(-80, 300), rep(-30, 700)...), -79.75, -29.75, -62.25},
	}
	for _, tc := range tests {
		got := EstimateLevels(tc.rms)
		want := Levels{tc.noise, tc.speech, tc.thr}
		if !near(got.NoiseFloorDb, want.NoiseFloorDb, 1e-9) || !near(got.SpeechLevelDb, want.SpeechLevelDb, 1e-9) || !near(got.ThresholdDb, want.ThresholdDb, 1e-9) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, want)
		}
	}
}

// TestBackgroundDb checks the background level an analysis reports: the
// noise floor, but digital silence where the pauses are digitally silent
// and every other frame is programme (tone bursts between silent gaps,
// whose floor EstimateLevels finds at the tones' own level).
func TestBackgroundDb(t *testing.T) {
	rep := func(v float32, n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	cat := func(parts ...[]float32) []float32 {
		var out []float32
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name string
		rms  []float32
		want float64
	}{
		{"empty", nil, FloorDb},
		{"all digital silence", rep(-120, 100), FloorDb},
		{"tone bursts between silent gaps", cat(rep(-21, 200), rep(-120, 200), rep(-21, 200), rep(-120, 200)), FloorDb},
		{"silent gaps of 10 %", cat(rep(-21, 900), rep(-120, 100)), FloorDb},
		{"silent gaps under 10 %", cat(rep(-21, 901), rep(-120, 99)), -20.75},
		{"speech over noise with a silent lead-in", cat(rep(-120, 500), rep(-60, 300), rep(-20, 700)), -59.75},
		{"steady tone", rep(-23, 1000), -22.75},
	}
	for _, tc := range tests {
		if got := BackgroundDb(tc.rms, EstimateLevels(tc.rms)); !near(got, tc.want, 1e-9) {
			t.Errorf("%s: %.2f dB, want %.2f", tc.name, got, tc.want)
		}
	}
	// The whole analysis: 440 Hz bursts of 2 s at -21 dBFS RMS with 2 s of
	// digital silence between them report a digitally silent background;
	// the pause threshold is EstimateLevels' as before.
	const rate = 16000
	x := make([]float32, 14*rate)
	for i := range x {
		if (i/(2*rate))%2 == 0 {
			x[i] = float32(0.089 * math.Sqrt2 * math.Sin(2*math.Pi*440*float64(i)/rate))
		}
	}
	a, err := Analyze(context.Background(), &sliceSource{Format{SampleRate: rate, Channels: 1}, x}, Info{Name: "bursts"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.NoiseFloorDb != FloorDb {
		t.Errorf("bursts between digital silence: noise floor %.2f dB (speech %.2f dB), want %g (digital silence)", a.NoiseFloorDb, a.SpeechLevelDb, FloorDb)
	}
	if thr, _ := PauseThreshold(SmoothedLevels(a.Envelope.RMSDb), EstimateLevels(a.Envelope.RMSDb), false); a.ThresholdDb != thr {
		t.Errorf("threshold %.2f dB, want EstimateLevels' pause threshold %.2f dB", a.ThresholdDb, thr)
	}
}

// sliceSource is a Source over samples in memory (short test signals only).
type sliceSource struct {
	f Format
	s []float32
}

func (s *sliceSource) Format() Format { return s.f }

func (s *sliceSource) Read(p []float32) (int, error) {
	if len(s.s) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:len(p)/s.f.Channels*s.f.Channels], s.s)
	s.s = s.s[n:]
	return n, nil
}

// TestLevelsEspeakSpeech checks the automatic threshold on real synthetic
// speech (espeak-ng) scaled to a speech level and mixed with white noise:
// frames that hold only noise must fall below the threshold and frames of
// loud speech above it.
func TestLevelsEspeakSpeech(t *testing.T) {
	dir := t.TempDir()
	wav := filepath.Join(dir, "speech.wav")
	text := "The quick brown fox jumps over the lazy dog. Then it rests for a while. " +
		"After that, it runs again into the forest, where nobody can see it. Silence follows."
	if out, err := exec.Command("espeak-ng", "-g", "12", "-w", wav, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v\n%s", err, out)
	}
	src, err := os.Open(wav)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// espeak-ng writes canonical 16-bit mono WAV.
	hdr := make([]byte, 44)
	if _, err := io.ReadFull(src, hdr); err != nil {
		t.Fatal(err)
	}
	rate := int(binary.LittleEndian.Uint32(hdr[24:]))
	raw, err := io.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	clean := make([]float64, len(raw)/2)
	for i := range clean {
		clean[i] = float64(int16(binary.LittleEndian.Uint16(raw[2*i:]))) / 32768
	}
	// Per 10 ms frame RMS of the clean speech, and its active-speech RMS.
	// Same frame boundaries as the analyzer: round(k * rate / 100).
	var frameMS []float64
	for k := 0; ; k++ {
		i, j := (k*rate+50)/100, ((k+1)*rate+50)/100
		if j > len(clean) {
			break
		}
		ms := 0.0
		for _, v := range clean[i:j] {
			ms += v * v
		}
		frameMS = append(frameMS, ms/float64(j-i))
	}
	maxMS := 0.0
	for _, m := range frameMS {
		maxMS = math.Max(maxMS, m)
	}
	act, n := 0.0, 0
	for _, m := range frameMS {
		if m > maxMS*1e-4 { // within 40 dB of the loudest frame
			act += m
			n++
		}
	}
	activeDb := 10 * math.Log10(act/float64(n))
	tests := []struct{ speechDb, noiseDb float64 }{{-20, -70}, {-36, -70}, {-26, -50}, {-20, -40}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("speech%.0f-noise%.0f", tc.speechDb, tc.noiseDb), func(t *testing.T) {
			g := math.Pow(10, (tc.speechDb-activeDb)/20)
			na := math.Pow(10, tc.noiseDb/20)
			rng := rand.New(rand.NewPCG(1, 2))
			mix := make([]float32, len(clean))
			for i, v := range clean {
				mix[i] = float32(v*g + na*rng.NormFloat64())
			}
			a := analyzeSynth(t, &sliceSource{f: Format{rate, 1}, s: mix})
			t.Logf("noise floor %.1f dB, speech level %.1f dB, threshold %.1f dB", a.NoiseFloorDb, a.SpeechLevelDb, a.ThresholdDb)
			checkPauseThreshold(t, a, tc.noiseDb)
			noiseOnly, noiseBelow, loud, loudAbove := 0, 0, 0, 0
			for i, m := range frameMS {
				if i >= a.Envelope.Frames() {
					break
				}
				speech := 10*math.Log10(m+1e-30) + 20*math.Log10(g)
				env := float64(a.Envelope.RMSDb[i])
				switch {
				case speech < tc.noiseDb-10:
					noiseOnly++
					if env < a.ThresholdDb {
						noiseBelow++
					}
				case speech > tc.speechDb-6:
					loud++
					if env > a.ThresholdDb {
						loudAbove++
					}
				}
			}
			t.Logf("%d/%d noise-only frames below, %d/%d loud speech frames above", noiseBelow, noiseOnly, loudAbove, loud)
			if noiseOnly < 50 || noiseBelow < noiseOnly*99/100 {
				t.Errorf("%d of %d noise-only frames below the threshold, want 99 %%", noiseBelow, noiseOnly)
			}
			if loud < 50 || loudAbove != loud {
				t.Errorf("%d of %d loud speech frames above the threshold", loudAbove, loud)
			}
		})
	}
}

// TestSmoothedLevelsOnePowPerFrame checks SmoothedLevels, which computes
// each frame's power once, against the direct definition (the mean power
// of frames i-2..i+2 within the input, in dB, floored) on random levels of
// every short length and a long run: equal to the bit.
func TestSmoothedLevelsOnePowPerFrame(t *testing.T) {
	direct := func(rmsDb []float32) []float32 {
		n := len(rmsDb)
		out := make([]float32, n)
		for i := range out {
			s, c := 0.0, 0
			for j := max(i-2, 0); j <= min(i+2, n-1); j++ {
				s += math.Pow(10, float64(rmsDb[j])/10)
				c++
			}
			out[i] = float32(FloorDb)
			if m := s / float64(c); m > 1e-12 {
				out[i] = float32(max(10*math.Log10(m), FloorDb))
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 11, 5000} {
		lv := make([]float32, n)
		for i := range lv {
			lv[i] = float32(-120 + 120*rng.Float64())
		}
		if d := cmp.Diff(direct(lv), SmoothedLevels(lv)); d != "" {
			t.Errorf("%d frames: differs (-direct +got):\n%s", n, d)
		}
	}
}
