package silero

// dot returns the dot product of a and b[:len(a)], as dotGo adds it up.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	return dotSSE(a, b)
}

// dotSSE is dotGo in SSE: the four sums are the four lanes of one
// register (MULPS, ADDPS: each product and sum rounded to float32 as Go
// does without fused multiply-adds). len(b) must be at least len(a).
//
//go:noescape
func dotSSE(a, b []float32) float32

// dot4 sets out[k] to dot(a, w[k*stride:]) for k = 0..3, each summed as
// dotGo does; the four sums run side by side, so that each waits less on
// its own additions.
func dot4(a, w []float32, stride int, out *[4]float32) {
	if len(a) == 0 {
		*out = [4]float32{}
		return
	}
	_ = w[3*stride+len(a)-1] // bounds: the four rows lie in w
	dot4SSE(a, w, stride, out)
}

//go:noescape
func dot4SSE(a, w []float32, stride int, out *[4]float32)
