package silero

import (
	"math/rand/v2"
	"testing"
)

// dotRef is dotGo with every product rounded to float32 before it is
// added (an explicit conversion forbids the compiler a fused
// multiply-add), the arithmetic dot must reproduce to the bit.
func dotRef(a, b []float32) float32 {
	var s [4]float32
	i := 0
	for ; i+3 < len(a); i += 4 {
		for k := range 4 {
			s[k] += float32(a[i+k] * b[i+k])
		}
	}
	for ; i < len(a); i++ {
		s[0] += float32(a[i] * b[i])
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// TestDotExact checks dot against the reference order on every length up
// to 300 (the tails 0-3 included) and on the network's sizes, with b
// longer than a as the network passes it.
func TestDotExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lengths := []int{3 * 129, 3 * 128, 3 * 64, 2 * hidden}
	for n := range 300 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		a := make([]float32, n)
		b := make([]float32, n+7)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64() * 1e-3)
		}
		if got, want := dot(a, b), dotRef(a, b[:n]); got != want {
			t.Fatalf("length %d: dot %v, reference %v", n, got, want)
		}
		// dot4: four rows stride apart.
		stride := n + 3
		w := make([]float32, 3*stride+n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 1e-2)
		}
		var out [4]float32
		dot4(a, w, stride, &out)
		for k := range 4 {
			if want := dotRef(a, w[k*stride:k*stride+n]); out[k] != want {
				t.Fatalf("length %d: dot4 row %d %v, reference %v", n, k, out[k], want)
			}
		}
	}
}

// BenchmarkDot measures dot and the plain Go loop on an LSTM gate row
// (256 values).
func BenchmarkDot(b *testing.B) {
	x := make([]float32, 2*hidden)
	w := make([]float32, 2*hidden)
	for i := range x {
		x[i], w[i] = float32(i%7)*0.1, float32(i%5)*0.2
	}
	for _, f := range []struct {
		name string
		dot  func(a, b []float32) float32
	}{{"dot", dot}, {"go", dotGo}} {
		b.Run(f.name, func(b *testing.B) {
			var s float32
			b.ReportAllocs()
			for b.Loop() {
				s += f.dot(x, w)
			}
			_ = s
		})
	}
}
