package dsp

import "golang.org/x/sys/cpu"

// pcm16AVX2 converts 16-bit samples to float32 (len(src) a multiple of 16,
// dst as long): the Go loop of pcm16ToFloat, 16 samples at a time.
//
//go:noescape
func pcm16AVX2(dst []float32, src []int16)

// pcm16ToFloat sets dst[i] = src[i] / 32768 (len(dst) >= len(src)).
func pcm16ToFloat(dst []float32, src []int16) {
	n := 0
	if cpu.X86.HasAVX2 {
		n = len(src) &^ 15
		pcm16AVX2(dst[:n], src[:n])
	}
	pcm16Go(dst[n:], src[n:])
}
