package dsp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBandMeter: a sine lands in its band at its mean square (a
// full-scale sine: -3 dB), the other bands far under it; the window is the
// largest power of two within bandWindowSec.
func TestBandMeter(t *testing.T) {
	for _, tc := range []struct {
		rate, n int
		hz, amp float64
	}{
		{48000, 1024, 1000, 1},
		{44100, 1024, 250, 0.1},
		{16000, 256, 3000, 0.5},
		{8000, 128, 700, 1},
		{96000, 2048, 6000, 0.01},
	} {
		b := newBandMeter(tc.rate)
		if b.n != tc.n {
			t.Errorf("%d Hz: window %d, want %d", tc.rate, b.n, tc.n)
		}
		x := make([]float32, b.n)
		for i := range x {
			x[i] = float32(tc.amp * math.Sin(2*math.Pi*tc.hz*float64(i)/float64(tc.rate)+0.3))
		}
		out := make([]uint8, BandCount)
		b.measure(x, out)
		binHz := float64(tc.rate) / float64(b.n)
		want := 20*math.Log10(tc.amp) - 3.01
		in := -1
		for k := range BandCount {
			if float64(b.lo[k])*binHz <= tc.hz && tc.hz < float64(b.hi[k])*binHz {
				in = k
			}
		}
		if in < 0 {
			t.Fatalf("%d Hz: %g Hz in no band", tc.rate, tc.hz)
		}
		// The Hann window's main lobe spans 4 bins: a narrow band holds
		// part of it, its neighbours the rest.
		p := 0.0
		for k := max(in-1, 0); k <= min(in+1, BandCount-1); k++ {
			p += math.Pow(10, BandDb(out[k])/10)
		}
		if got := 10 * math.Log10(p); math.Abs(got-want) > 0.6 {
			t.Errorf("%d Hz, %g Hz at %.2f dB: band %d and its neighbours hold %.2f dB, want %.2f", tc.rate, tc.hz, 20*math.Log10(tc.amp), in, got, want)
		}
		for k := range BandCount {
			if (k < in-2 || k > in+2) && BandDb(out[k]) > want-40 {
				t.Errorf("%d Hz, %g Hz: band %d at %.1f dB, want under %.1f", tc.rate, tc.hz, k, BandDb(out[k]), want-40)
			}
		}
	}
}

func TestBandCode(t *testing.T) {
	for _, tc := range []struct {
		db   float64
		code uint8
	}{{-200, 1}, {math.Inf(-1), 1}, {math.NaN(), 1}, {-127, 1}, {-126.5, 2}, {-3, 249}, {0, 255}, {10, 255}} {
		if got := BandCode(tc.db); got != tc.code {
			t.Errorf("BandCode(%g) = %d, want %d", tc.db, got, tc.code)
		}
	}
	if got := BandDb(BandCode(-40.3)); math.Abs(got+40.5) > 1e-9 {
		t.Errorf("BandDb(BandCode(-40.3)) = %g, want -40.5", got)
	}
}

// TestBandMeterMatchesDFT: the split real FFT gives the band levels a
// plain DFT of the windowed samples gives (random input, every rate's
// window), to the code.
func TestBandMeterMatchesDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rate := range []int{8000, 16000, 44100, 48000} {
		b := newBandMeter(rate)
		x := make([]float32, b.n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 0.1 * (1 + math.Sin(float64(i)/7)))
		}
		got := make([]uint8, BandCount)
		b.measure(x, got)
		for k := range BandCount {
			p := 0.0
			for j := b.lo[k]; j < b.hi[k]; j++ {
				var re, im float64
				for i, v := range x {
					s, c := math.Sincos(-2 * math.Pi * float64(j) * float64(i) / float64(b.n))
					w := float64(v) * b.win[i]
					re += w * c
					im += w * s
				}
				p += re*re + im*im
			}
			want := BandCode(10 * math.Log10(2*b.norm*p))
			if p == 0 {
				want = BandCode(math.Inf(-1))
			}
			if got[k] != want {
				t.Errorf("%d Hz, band %d: code %d, want %d", rate, k, got[k], want)
			}
		}
	}
}
