package dsp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// burstsOverNoise returns sec seconds of tone bursts (300 Hz and 1.1 kHz,
// 1.5 s on, 1.5 s off, -20 dBFS peak each) over white noise at -70 dBFS
// RMS, independent in each channel, interleaved.
func burstsOverNoise(rate, ch int, sec float64) []float32 {
	r := rand.New(rand.NewPCG(7, 11))
	n := int(sec * float64(rate))
	out := make([]float32, n*ch)
	noise := math.Pow(10, -70.0/20)
	for i := range n {
		t := float64(i) / float64(rate)
		ph := math.Mod(t, 3)
		v := 0.0
		if ph < 1.5 {
			g := min(ph, 1.5-ph, 0.02) / 0.02 // 20 ms ramps
			v = 0.05 * g * (math.Sin(2*math.Pi*300*t) + math.Sin(2*math.Pi*1100*t))
		}
		for c := range ch {
			out[i*ch+c] = float32(v + noise*r.NormFloat64())
		}
	}
	return out
}

// withOffset returns x with dc[c] added to channel c from sample frame from on.
func withOffset(x []float32, ch int, dc []float32, from int) []float32 {
	y := append([]float32(nil), x...)
	for i := from * ch; i < len(y); i++ {
		y[i] += dc[i%ch]
	}
	return y
}

// TestOffsetOutOfEnvelope checks that a DC offset does not reach the
// envelope, the levels or the voice classes: tone bursts over noise at -70
// dBFS with 0.01 (-40 dBFS) added to one channel and -0.004 to the other,
// at 48 and 16 kHz, read frame for frame as without it, levels within 0.2
// dB (the pauses read -40 dBFS if the offset stays in); an offset that
// starts in the middle is out of the envelope 2.1 s later, and the frames
// before it are those of the input without it to the bit. The sample peak
// still holds the offset (it is in the samples); the loudness ignores it.
func TestOffsetOutOfEnvelope(t *testing.T) {
	for _, tc := range []struct {
		rate, ch int
		dc       []float32
		// dB: the estimate carries the mean the tone bursts leave in its
		// window, up to A / (pi f T) for a burst of amplitude A at f
		// starting or stopping in a window of T seconds: 2.7e-5 here,
		// 0.3 dB of a pause's peak at -63 dBFS (its RMS moves 0.03 dB).
		peakTol float64
	}{
		{48000, 2, []float32{0.01, -0.004}, 0.5},
		{16000, 2, []float32{0.01, -0.004}, 0.5},
		{16000, 1, []float32{-0.01}, 0.5},
	} {
		t.Run(fmt.Sprintf("%dHz-%dch", tc.rate, tc.ch), func(t *testing.T) {
			f := Format{SampleRate: tc.rate, Channels: tc.ch}
			x := burstsOverNoise(tc.rate, tc.ch, 20)
			base := analyzeSynth(t, &sliceSource{f, x})
			got := analyzeSynth(t, &sliceSource{f, withOffset(x, tc.ch, tc.dc, 0)})
			compareEnvelopes(t, "offset throughout", base, got, 0, tc.peakTol)
			if !near(got.NoiseFloorDb, base.NoiseFloorDb, 0.2) || !near(got.ThresholdDb, base.ThresholdDb, 0.2) || !near(got.SpeechLevelDb, base.SpeechLevelDb, 0.2) {
				t.Errorf("levels with the offset: floor %.2f, threshold %.2f, speech %.2f dBFS; without: %.2f, %.2f, %.2f",
					got.NoiseFloorDb, got.ThresholdDb, got.SpeechLevelDb, base.NoiseFloorDb, base.ThresholdDb, base.SpeechLevelDb)
			}
			if !near(base.NoiseFloorDb, -70, 1) {
				t.Errorf("noise floor %.2f dBFS, want -70", base.NoiseFloorDb)
			}
			if !near(got.Loudness.Integrated, base.Loudness.Integrated, 0.01) {
				t.Errorf("loudness %.3f LUFS with the offset, %.3f without", got.Loudness.Integrated, base.Loudness.Integrated)
			}
			// The tones' peak, 0.1, plus the offset of 0.01.
			if d := got.Loudness.SamplePeak - base.Loudness.SamplePeak; d < 0.6 {
				t.Errorf("sample peak %.2f dBFS with the offset, %.2f without: the offset is in the samples", got.Loudness.SamplePeak, base.Loudness.SamplePeak)
			}

			// The offset from the middle on: the same to the bit before it,
			// the same within tolerance 2.1 s after it.
			mid := 10 * tc.rate
			step := analyzeSynth(t, &sliceSource{f, withOffset(x, tc.ch, tc.dc, mid)})
			for k := range 1000 {
				if step.Envelope.RMSDb[k] != base.Envelope.RMSDb[k] || step.Envelope.PeakDb[k] != base.Envelope.PeakDb[k] {
					t.Fatalf("frame %d, before the offset starts: %v / %v dBFS, without it %v / %v", k,
						step.Envelope.RMSDb[k], step.Envelope.PeakDb[k], base.Envelope.RMSDb[k], base.Envelope.PeakDb[k])
				}
			}
			compareEnvelopes(t, "offset from 10 s", base, step, 1210, tc.peakTol)
		})
	}
}

// compareEnvelopes checks got's envelope and voice classes against want's
// from frame from on: levels within 0.2 dB, peaks within peakTol, classes
// the same in 99 % of the frames.
func compareEnvelopes(t *testing.T, what string, want, got *Analysis, from int, peakTol float64) {
	t.Helper()
	w, g := want.Envelope, got.Envelope
	if len(w.RMSDb) != len(g.RMSDb) || len(w.Voice) != len(g.Voice) {
		t.Fatalf("%s: %d frames, %d classes; want %d, %d", what, len(g.RMSDb), len(g.Voice), len(w.RMSDb), len(w.Voice))
	}
	bad := 0
	for k := from; k < len(w.RMSDb); k++ {
		if math.Abs(float64(g.RMSDb[k]-w.RMSDb[k])) > 0.2 || math.Abs(float64(g.PeakDb[k]-w.PeakDb[k])) > peakTol {
			if bad++; bad <= 3 {
				t.Errorf("%s: frame %d reads %.2f dBFS (peak %.2f), without the offset %.2f (%.2f)", what, k, g.RMSDb[k], g.PeakDb[k], w.RMSDb[k], w.PeakDb[k])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d frames of %d differ", what, bad, len(w.RMSDb)-from)
	}
	diff := 0
	for k := from; k < len(w.Voice); k++ {
		if (w.Voice[k] == VoiceFloor) != (g.Voice[k] == VoiceFloor) || math.Abs(VoiceScore(w.Voice[k])-VoiceScore(g.Voice[k])) > 0.1 {
			diff++
		}
	}
	if diff*100 > len(w.Voice)-from {
		t.Errorf("%s: %d of %d frames classed differently", what, diff, len(w.Voice)-from)
	}
}

// TestOffsetVoiceScores checks that the voice network does not hear a DC
// offset either: real speech over a noisy bed (where the classifier runs
// on most frames), 20 dB quieter than recorded (so the network hears it
// 20 dB up, and the offset with it), with 0.01 added scores as without it.
func TestOffsetVoiceScores(t *testing.T) {
	clean, rate := readWAVMono(t, filepath.Join(recordings, "en_asterisk_allison_demo-instruct_73s.wav"))
	_, top := frameLevels(clean, rate)
	mix := withRedBed(clean, top-12)
	for i := range mix {
		mix[i] *= 0.1
	}
	f := Format{SampleRate: rate, Channels: 1}
	base := analyzeSynth(t, &sliceSource{f, mix})
	got := analyzeSynth(t, &sliceSource{f, withOffset(mix, 1, []float32{0.01}, 0)})
	classified, flipped, sum := 0, 0, 0.0
	for k, v := range base.Envelope.Voice {
		w := got.Envelope.Voice[k]
		if v == VoiceFloor || v == VoiceLoud || w == VoiceFloor || w == VoiceLoud {
			continue
		}
		classified++
		a, b := VoiceScore(v), VoiceScore(w)
		sum += math.Abs(a - b)
		if (a >= 0.5) != (b >= 0.5) {
			flipped++
		}
	}
	t.Logf("%d frames classified; with the offset: mean score change %.4f, %d frames change side", classified, sum/float64(classified), flipped)
	if classified < len(base.Envelope.Voice)/2 {
		t.Fatalf("only %d of %d frames classified", classified, len(base.Envelope.Voice))
	}
	if sum/float64(classified) > 0.01 || flipped*200 > classified {
		t.Errorf("the offset moves the scores: mean change %.4f, %d of %d frames change side (want under 0.01 and 0.5 %%)", sum/float64(classified), flipped, classified)
	}
}

// TestOffsetVoiceInput checks that the voice detector's input loses the
// offset once: after noise with 0.01 added (0.3 s, under the first
// estimate, and 3 s), the detector's ring of downmixed samples has a mean
// of about 0, not 0.01 (kept) nor -0.01 (taken out twice).
func TestOffsetVoiceInput(t *testing.T) {
	for _, sec := range []float64{0.3, 3} {
		f := Format{SampleRate: 16000, Channels: 2}
		x := withOffset(burstsOverNoise(f.SampleRate, f.Channels, sec), 2, []float32{0.01, 0.01}, 0)
		for i := range x { // noise only: no bursts
			x[i] = 0.01 + (x[i]-0.01)*1e-3
		}
		a, err := newAnalyzer(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Write(x); err != nil {
			t.Fatal(err)
		}
		a.Result(Info{})
		v := a.voice
		n := min(v.n, int64(len(v.ring)))
		s := 0.0
		for i := v.n - n; i < v.n; i++ {
			s += float64(v.ring[i&v.mask])
		}
		if m := s / float64(n); math.Abs(m) > 1e-4 {
			t.Errorf("%g s: the detector's input has a mean of %.5f, want 0", sec, m)
		}
	}
}
