package dsp

import (
	"math"
	"math/cmplx"
	"testing"
)

// TestBiquadSections: the cookbook sections pass what they should and
// stop what they should, -3 dB at fc for a Butterworth section, and Step
// filters as the transfer function says (a tone's steady amplitude).
func TestBiquadSections(t *testing.T) {
	const rate = 48000.0
	gain := func(q Biquad, f float64) float64 {
		z := cmplx.Exp(complex(0, -2*math.Pi*f/rate))
		return cmplx.Abs((complex(q.B0, 0) + complex(q.B1, 0)*z + complex(q.B2, 0)*z*z) /
			(1 + complex(q.A1, 0)*z + complex(q.A2, 0)*z*z))
	}
	for _, tc := range []struct {
		name     string
		q        Biquad
		pass     float64 // a frequency it passes (gain 1 within 1 %)
		stop     float64 // one it stops (under -40 dB)
		fc, tone float64
	}{
		{"high-pass 300 Hz", HighPass(300, math.Sqrt2/2, rate), 12000, 10, 300, 1000},
		{"low-pass 3400 Hz", LowPass(3400, math.Sqrt2/2, rate), 50, 23000, 3400, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if g := gain(tc.q, tc.pass); math.Abs(g-1) > 0.01 {
				t.Errorf("gain at %v Hz %.4f, want 1", tc.pass, g)
			}
			if g := gain(tc.q, tc.stop); g > 0.01 {
				t.Errorf("gain at %v Hz %.4f, want under 0.01", tc.stop, g)
			}
			if g := 20 * math.Log10(gain(tc.q, tc.fc)); math.Abs(g+3.01) > 0.01 {
				t.Errorf("gain at fc %.3f dB, want -3.01", g)
			}
			var s [4]float64
			peak := 0.0
			for i := range int(rate) {
				y := tc.q.Step(&s, math.Sin(2*math.Pi*tc.tone*float64(i)/rate))
				if i > int(rate)/2 {
					peak = max(peak, math.Abs(y))
				}
			}
			if want := gain(tc.q, tc.tone); math.Abs(peak-want) > 1e-3 {
				t.Errorf("Step: a %v Hz tone comes out at %.4f, want %.4f", tc.tone, peak, want)
			}
		})
	}
}
