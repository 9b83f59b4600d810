package dsp

import (
	"math"

	"github.com/autocut-dev/autocut/internal/fft"
)

// The spectrum of the classified frames (Envelope.Bands).
//
// Level alone cannot tell a note of a music bed from the onset of a word
// when both stand at the same level over the bed: the planner's edge rule
// counted such notes, 30 to 50 ms before a word or after its end, as
// speech (plan's TestRealMix, allison over music at 15 and 20 dB: boundary
// P95 60 ms). Their spectrum can: a note of the bed lies, band by band,
// within the levels the bed reaches in the pauses; a word stands out of
// them in some bands. So each frame the voice network classifies (where
// level cannot decide, see voice.go) also gets the levels of BandCount
// bands: a Hann window of the largest power of two samples within
// bandWindowSec (1024 at 44.1 and 48 kHz), centred on the frame, its
// power spectrum summed over log-spaced bands from bandLoHz to bandHiHz
// (or 0.45 x the sample rate), as mean squares (a full-scale sine in one
// band: -3 dB), coded by BandCode. The planner compares them with the
// bed's (plan's bedLike).

// BandCount is the number of frequency bands of Envelope.Bands.
const BandCount = 16

const (
	bandLoHz      = 100.0
	bandHiHz      = 8000.0
	bandWindowSec = 0.025
	bandMinWindow = 64
	bandMaxWindow = 8192
)

// BandCode returns the code of a band level (dB): 1 + 2 x (db + 127),
// rounded, within [1, 255] (0.5 dB steps from -127 dB to 0 dB).
func BandCode(db float64) uint8 {
	if math.IsNaN(db) {
		return 1
	}
	return uint8(min(max(math.Round(1+2*(db+127)), 1), 255))
}

// BandDb returns the level (dB) of band code c (BandCode; c must not be 0).
func BandDb(c uint8) float64 { return float64(c-1)/2 - 127 }

// bandMeter measures the band levels of one window of samples: a real
// FFT of n points as a complex one of n/2 (internal/fft; the even samples
// as the real part, the odd as the imaginary), split after. Nothing in its
// per-frame path allocates.
type bandMeter struct {
	n      int       // window length, a power of two
	win    []float64 // Hann window
	norm   float64   // 1 / (n x the window's sum of squares)
	plan   *fft.Plan // of n/2 points
	re, im []float64 // its input and output
	wc, ws []float64 // the split's twiddles: cos and sin of -2 pi k / n, k < n/2
	lo     [BandCount]int
	hi     [BandCount]int // each band's bins [lo, hi), within [1, n/2)
}

func newBandMeter(rate int) *bandMeter {
	n := bandMinWindow
	for n*2 <= bandMaxWindow && float64(n*2) <= bandWindowSec*float64(rate) {
		n *= 2
	}
	m := n / 2
	b := &bandMeter{n: n, win: make([]float64, n), plan: fft.NewPlan(m), re: make([]float64, m), im: make([]float64, m),
		wc: make([]float64, m), ws: make([]float64, m)}
	sq := 0.0
	for i := range b.win {
		w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
		b.win[i] = w
		sq += w * w
	}
	b.norm = 1 / (float64(n) * sq)
	for k := range b.wc {
		b.ws[k], b.wc[k] = math.Sincos(-2 * math.Pi * float64(k) / float64(n))
	}
	hiHz := min(bandHiHz, 0.45*float64(rate))
	binHz := float64(rate) / float64(n)
	for k := range BandCount {
		f0 := bandLoHz * math.Pow(hiHz/bandLoHz, float64(k)/BandCount)
		f1 := bandLoHz * math.Pow(hiHz/bandLoHz, float64(k+1)/BandCount)
		b.lo[k] = min(max(int(math.Ceil(f0/binHz)), 1), m)
		b.hi[k] = min(max(int(math.Ceil(f1/binHz)), b.lo[k]), m)
	}
	return b
}

// measure writes the band codes of the window x (n samples) to out.
func (b *bandMeter) measure(x []float32, out []uint8) {
	m := b.n / 2
	for i := range m {
		b.re[i] = float64(x[2*i]) * b.win[2*i]
		b.im[i] = float64(x[2*i+1]) * b.win[2*i+1]
	}
	b.plan.Transform(b.re, b.im, false)
	for k := range BandCount {
		p := 0.0
		for j := b.lo[k]; j < b.hi[k]; j++ {
			// X[j] = E + W^j O, from Z[j] and Z[m-j]: E = (Z[j] + conj
			// Z[m-j]) / 2, O = (Z[j] - conj Z[m-j]) / 2i.
			zr, zi := b.re[j], b.im[j]
			cr, ci := b.re[m-j], -b.im[m-j]
			er, ei := (zr+cr)/2, (zi+ci)/2
			or, oi := (zi-ci)/2, -(zr-cr)/2
			xr := er + b.wc[j]*or - b.ws[j]*oi
			xi := ei + b.wc[j]*oi + b.ws[j]*or
			p += xr*xr + xi*xi
		}
		// Both halves of the spectrum: a full-scale sine gives 0.5.
		p *= 2 * b.norm
		db := -math.Inf(1)
		if p > 0 {
			db = 10 * math.Log10(p)
		}
		out[k] = BandCode(db)
	}
}
