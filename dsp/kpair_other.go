//go:build !amd64

package dsp

// pairKernel reports whether measurePair has a kernel here: not on this
// architecture.
func pairKernel() bool { return false }

// measurePair is not used where pairKernel is false.
func measurePair(l, m *lane, seg []float32) [2]segSums {
	panic("dsp: no stereo kernel on this architecture")
}
