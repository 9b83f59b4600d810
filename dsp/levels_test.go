package dsp

import (
	"fmt"
	"testing"
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
			if a.ThresholdDb < max(tc.noiseDb+6, minThresholdDb) || a.ThresholdDb > tc.speechDb-6 {
				t.Errorf("threshold %.1f dB not between noise %+.0f+6 and speech %.0f-6", a.ThresholdDb, tc.noiseDb, tc.speechDb)
			}
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
