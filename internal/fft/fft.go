// Package fft is an in-place iterative radix-2 complex FFT of one
// power-of-two size, with precomputed twiddles and bit reversal, that
// allocates nothing per call (go-dsp's fft allocates a result slice on
// every call). dsp measures the spectrum of the frames it classifies with
// it, transcode's denoiser its frames.
package fft

import (
	"math"
	"math/bits"
)

// Plan transforms sequences of one length.
type Plan struct {
	n      int
	rev    []int
	cosTab []float64
	sinTab []float64
}

// NewPlan returns the plan of length n, a power of two.
func NewPlan(n int) *Plan {
	p := &Plan{n: n, rev: make([]int, n), cosTab: make([]float64, n/2), sinTab: make([]float64, n/2)}
	shift := 64 - bits.Len(uint(n-1))
	for i := range p.rev {
		p.rev[i] = int(bits.Reverse64(uint64(i)) >> shift)
	}
	for i := range p.cosTab {
		p.cosTab[i] = math.Cos(2 * math.Pi * float64(i) / float64(n))
		p.sinTab[i] = math.Sin(2 * math.Pi * float64(i) / float64(n))
	}
	return p
}

// Len returns the plan's length.
func (p *Plan) Len() int { return p.n }

// Transform computes the forward (inverse=false) or unscaled inverse DFT
// of re+i*im (each of the plan's length) in place.
func (p *Plan) Transform(re, im []float64, inverse bool) {
	n := p.n
	for i, j := range p.rev {
		if i < j {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		step := n / size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				wr, wi := p.cosTab[k*step], sign*p.sinTab[k*step]
				a, b := start+k, start+k+half
				xr := re[b]*wr - im[b]*wi
				xi := re[b]*wi + im[b]*wr
				re[b], im[b] = re[a]-xr, im[a]-xi
				re[a], im[a] = re[a]+xr, im[a]+xi
			}
		}
	}
}
