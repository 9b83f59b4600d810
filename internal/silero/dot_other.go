//go:build !amd64

package silero

// dot returns the dot product of a and b[:len(a)].
func dot(a, b []float32) float32 { return dotGo(a, b) }

// dot4 sets out[k] to dot(a, w[k*stride:]) for k = 0..3.
func dot4(a, w []float32, stride int, out *[4]float32) {
	for k := range out {
		out[k] = dotGo(a, w[k*stride:])
	}
}
