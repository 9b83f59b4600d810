//go:build !amd64

package dsp

// pcm16ToFloat sets dst[i] = src[i] / 32768 (len(dst) >= len(src)).
func pcm16ToFloat(dst []float32, src []int16) { pcm16Go(dst, src) }
