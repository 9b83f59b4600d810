package fft

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"
	"time"

	godsp "github.com/mjibson/go-dsp/fft"
	"gonum.org/v1/gonum/dsp/fourier"
)

// BenchmarkFFT measures one denoiser frame's round trip (forward transform
// of a real frame, inverse back) at the sizes stftSize picks (512 at 8 kHz,
// 1024 at 16 kHz, 2048 at 44.1/48 kHz) with the hand-written complex FFT,
// gonum's real and complex FFTs and go-dsp's.
func BenchmarkFFT(b *testing.B) {
	for _, n := range []int{512, 1024, 2048} {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Sin(float64(i)*0.37) + 0.3*math.Cos(float64(i)*1.9)
		}
		b.Run(fmt.Sprintf("hand/n=%d", n), func(b *testing.B) {
			p := NewPlan(n)
			re, im := make([]float64, n), make([]float64, n)
			b.ReportAllocs()
			for b.Loop() {
				copy(re, x)
				clear(im)
				p.Transform(re, im, false)
				p.Transform(re, im, true)
			}
		})
		b.Run(fmt.Sprintf("gonum-real/n=%d", n), func(b *testing.B) {
			f := fourier.NewFFT(n)
			c := make([]complex128, n/2+1)
			y := make([]float64, n)
			b.ReportAllocs()
			for b.Loop() {
				f.Coefficients(c, x)
				f.Sequence(y, c)
			}
		})
		b.Run(fmt.Sprintf("gonum-complex/n=%d", n), func(b *testing.B) {
			f := fourier.NewCmplxFFT(n)
			s, c := make([]complex128, n), make([]complex128, n)
			b.ReportAllocs()
			for b.Loop() {
				for i, v := range x {
					s[i] = complex(v, 0)
				}
				f.Coefficients(c, s)
				f.Sequence(s, c)
			}
		})
		b.Run(fmt.Sprintf("go-dsp/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				godsp.IFFT(godsp.FFTReal(x))
			}
		})
	}
}

// TestFFTMatchesGonum: the transform agrees with gonum's.
func TestFFTMatchesGonum(t *testing.T) {
	n := 2048
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Sin(float64(i)*0.37) + 0.3*math.Cos(float64(i)*1.9)
	}
	want := fourier.NewFFT(n).Coefficients(nil, x)
	re, im := make([]float64, n), make([]float64, n)
	copy(re, x)
	NewPlan(n).Transform(re, im, false)
	for k, w := range want {
		if d := cmplx.Abs(complex(re[k], im[k]) - w); d > 1e-9 {
			t.Fatalf("bin %d: %v, gonum %v", k, complex(re[k], im[k]), w)
		}
	}
}

// BenchmarkFFTAlternated times the hand-written FFT and gonum's real FFT in
// alternation (100 round trips of each per iteration), so the machine's
// load hits both alike, and reports gonum's time over ours.
func BenchmarkFFTAlternated(b *testing.B) {
	for _, n := range []int{512, 1024, 2048} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x := make([]float64, n)
			for i := range x {
				x[i] = math.Sin(float64(i)*0.37) + 0.3*math.Cos(float64(i)*1.9)
			}
			p := NewPlan(n)
			re, im := make([]float64, n), make([]float64, n)
			f := fourier.NewFFT(n)
			c := make([]complex128, n/2+1)
			y := make([]float64, n)
			var hand, gon time.Duration
			for b.Loop() {
				t0 := time.Now()
				for range 100 {
					copy(re, x)
					clear(im)
					p.Transform(re, im, false)
					p.Transform(re, im, true)
				}
				t1 := time.Now()
				for range 100 {
					f.Coefficients(c, x)
					f.Sequence(y, c)
				}
				hand += t1.Sub(t0)
				gon += time.Since(t1)
			}
			b.ReportMetric(gon.Seconds()/hand.Seconds(), "gonum_over_hand")
			b.ReportMetric(float64(hand.Nanoseconds())/float64(100*b.N), "hand_ns/roundtrip")
			b.ReportMetric(float64(gon.Nanoseconds())/float64(100*b.N), "gonum_ns/roundtrip")
		})
	}
}
