package dsp

import "math"

// Biquad is a normalised second-order IIR section (a0 = 1):
// y[n] = B0 x[n] + B1 x[n-1] + B2 x[n-2] - A1 y[n-1] - A2 y[n-2].
// It is the one filter section of the module: the K-weighting of the
// loudness meter (two of them), the render's rumble filter and the test
// corpora's band limits.
type Biquad struct {
	B0, B1, B2, A1, A2 float64
}

// HighPass returns the high-pass section at fc Hz of quality q for the
// sample rate (the RBJ cookbook's; q = 1/sqrt 2 for one Butterworth
// section).
func HighPass(fc, q, rate float64) Biquad {
	w := 2 * math.Pi * fc / rate
	cw, alpha := math.Cos(w), math.Sin(w)/(2*q)
	a0 := 1 + alpha
	return Biquad{
		B0: (1 + cw) / 2 / a0, B1: -(1 + cw) / a0, B2: (1 + cw) / 2 / a0,
		A1: -2 * cw / a0, A2: (1 - alpha) / a0,
	}
}

// LowPass returns the low-pass section at fc Hz of quality q for the
// sample rate (the RBJ cookbook's).
func LowPass(fc, q, rate float64) Biquad {
	w := 2 * math.Pi * fc / rate
	cw, alpha := math.Cos(w), math.Sin(w)/(2*q)
	a0 := 1 + alpha
	return Biquad{
		B0: (1 - cw) / 2 / a0, B1: (1 - cw) / a0, B2: (1 - cw) / 2 / a0,
		A1: -2 * cw / a0, A2: (1 - alpha) / a0,
	}
}

// Step filters the sample x in direct form I with the history s (x[n-1],
// x[n-2], y[n-1], y[n-2]), which it updates, and returns y[n].
func (q Biquad) Step(s *[4]float64, x float64) float64 {
	y := q.B0*x + q.B1*s[0] + q.B2*s[1] - q.A1*s[2] - q.A2*s[3]
	s[1], s[0], s[3], s[2] = s[0], x, s[2], y
	return y
}
