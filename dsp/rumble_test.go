package dsp

import (
	"context"
	"math"
	"testing"
)

// TestHighPassLevels: the levels after the rumble filter keep a voice's
// band and lose what lies under RumbleHz, on every channel; a DC offset
// opens no transient; the envelope's frames and these line up.
func TestHighPassLevels(t *testing.T) {
	const rate = 48000
	tone := func(hz, db float64) func(i int) float64 {
		a := math.Sqrt2 * math.Pow(10, db/20) // RMS db
		// faded in over 0.1 s: a tone switched on opens a transient
		return func(i int) float64 {
			g := min(float64(i)/(0.1*rate), 1)
			return g * a * math.Sin(2*math.Pi*hz*float64(i)/rate)
		}
	}
	for _, tc := range []struct {
		name     string
		ch       int
		sig      func(i int) float64
		dc       float64
		wantDb   float64 // the level after the filter from 0.2 s on (10 ms frames' powers averaged)
		tolDb    float64
		wantPeak float64 // the peak after the filter, dBFS
		peakTol  float64
	}{
		// 1 kHz: the filter's gain is 1 (to 0.01 dB).
		{"1 kHz mono", 1, tone(1000, -20), 0, -20, 0.05, -20 + 20*math.Log10(math.Sqrt2), 0.05},
		{"1 kHz stereo", 2, tone(1000, -20), 0, -20, 0.05, -20 + 20*math.Log10(math.Sqrt2), 0.05},
		// 35 Hz, an octave under: 4th-order Butterworth, -10 log10(1 + 2^8) = -24.1 dB.
		{"35 Hz", 1, tone(35, -6), 0, -30.1, 0.3, -30.1 + 20*math.Log10(math.Sqrt2), 0.5},
		// An offset of 0.3 under a 1 kHz tone: the filter takes it out and
		// starts on it without a step.
		{"offset", 1, tone(1000, -40), 0.3, -40, 0.05, -40 + 20*math.Log10(math.Sqrt2), 0.1},
	} {
		n := rate * 1
		s := make([]float32, n*tc.ch)
		for i := range n {
			for c := range tc.ch {
				s[i*tc.ch+c] = float32(tc.sig(i) + tc.dc)
			}
		}
		a, err := Analyze(context.Background(), &sliceSource{f: Format{SampleRate: rate, Channels: tc.ch}, s: s}, Info{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		env := a.Envelope
		if len(env.HighPassDb) != len(env.RMSDb) {
			t.Fatalf("%s: %d high-passed frames for %d", tc.name, len(env.HighPassDb), len(env.RMSDb))
		}
		p := 0.0
		for _, d := range env.HighPassDb[20:] {
			p += math.Pow(10, float64(d)/10)
		}
		if d := 10 * math.Log10(p/float64(len(env.HighPassDb)-20)); math.Abs(d-tc.wantDb) > tc.tolDb {
			t.Errorf("%s: %.2f dB after the filter, want %.2f", tc.name, d, tc.wantDb)
		}
		if math.Abs(env.HighPassPeakDb-tc.wantPeak) > tc.peakTol {
			t.Errorf("%s: peak %.2f dBFS, want %.2f", tc.name, env.HighPassPeakDb, tc.wantPeak)
		}
	}
}

// BenchmarkRumbleMeter measures the levels after the rumble filter alone:
// a second of 44.1 kHz stereo.
func BenchmarkRumbleMeter(b *testing.B) {
	const rate, ch = 44100, 2
	s := make([]float32, rate*ch)
	for i := range s {
		s[i] = float32(0.1 * math.Sin(float64(i)*0.37) * math.Sin(float64(i)*0.0011))
	}
	b.SetBytes(int64(4 * len(s)))
	for range b.N {
		m := newRumbleMeter(rate, ch)
		for off := 0; off < len(s); off += 4096 * ch {
			m.write(s[off:min(off+4096*ch, len(s))])
		}
	}
	b.ReportMetric(float64(b.N)*1e9/float64(b.Elapsed().Nanoseconds()), "x_realtime")
}
