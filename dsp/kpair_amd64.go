package dsp

import (
	"math"

	"golang.org/x/sys/cpu"
)

// kPairCoef holds the K-weighting coefficients for kPairAVX, each twice
// (one per lane): b0, b1, b2, a2, -a1, r2, -r1, and the starts of the
// largest and smallest samples (-Inf, +Inf).
type kPairCoef [9][2]float64

// kPairAVX runs lane.measureFMA on both channels of the stereo segment
// seg at once; st holds the two channels' x1, x2, y1, y2, z1, z2, and acc
// receives their sums of squares, largest samples, K-weighted energies,
// smallest samples and sums.
//
//go:noescape
func kPairAVX(seg []float32, st *[6][2]float64, co *kPairCoef, acc *[5][2]float64)

// pairKernel reports whether kPairAVX can run here (AVX and FMA).
func pairKernel() bool { return cpu.X86.HasAVX && cpu.X86.HasFMA }

// measurePair is measureFMA on lanes l (channel 0) and m (channel 1) of a
// stereo segment, in one pass.
func measurePair(l, m *lane, seg []float32) (out [2]segSums) {
	var co kPairCoef
	for k, v := range [7]float64{l.shelf.B0, l.shelf.B1, l.shelf.B2, l.shelf.A2, -l.shelf.A1, l.rlb.A2, -l.rlb.A1} {
		co[k] = [2]float64{v, v}
	}
	co[7] = [2]float64{math.Inf(-1), math.Inf(-1)}
	co[8] = [2]float64{math.Inf(1), math.Inf(1)}
	st := [6][2]float64{
		{l.k.x1, m.k.x1}, {l.k.x2, m.k.x2}, {l.k.y1, m.k.y1},
		{l.k.y2, m.k.y2}, {l.k.z1, m.k.z1}, {l.k.z2, m.k.z2},
	}
	var acc [5][2]float64
	kPairAVX(seg[:len(seg)&^1], &st, &co, &acc)
	for i, s := range []*kState{&l.k, &m.k} {
		s.x1, s.x2 = st[0][i], st[1][i]
		s.y1, s.y2, s.z1, s.z2 = flushTiny(st[2][i]), flushTiny(st[3][i]), flushTiny(st[4][i]), flushTiny(st[5][i])
		out[i] = segSums{sq: acc[0][i], hi: acc[1][i], e: acc[2][i], lo: acc[3][i], sx: acc[4][i]}
	}
	return out
}
