package dsp

import "math"

// A lane measures one channel of the interleaved frames the Analyzer is
// given, a batch at a time: for each segment of the batch (a run of
// frames inside one 10 ms frame) the sum of squares, the sample peak and
// the K-weighted energy, and the channel's true peak. Lanes share nothing,
// so the Analyzer may run them on different cores (Analyze does) and
// merge their per-segment sums in channel order afterwards: the result is
// the same, to the bit, as running them one after the other.
type lane struct {
	c, ch      int // the channel, and the channel count
	shelf, rlb biquad
	k          kState
	tp         *truePeakMeter // this channel's true peak (tp.max)
	fma        bool

	// Per segment of the current batch: the sum of squares, the sample
	// peak, the K-weighted energy and the envelope's peak (the sample
	// peak, or under framePeakRate the interpolated one).
	sq, pk, ke, fp []float64
}

func newLane(c int, f Format, fma bool) *lane {
	l := &lane{c: c, ch: f.Channels, tp: newTruePeakMeter(f.SampleRate, f.Channels), fma: fma}
	l.shelf, l.rlb = kWeighting(f.SampleRate)
	return l
}

// run measures the batch p cut into segments of segs frames.
func (l *lane) run(p []float32, segs []int32) {
	l.sq, l.pk, l.ke, l.fp = l.sq[:0], l.pk[:0], l.ke[:0], l.fp[:0]
	off := 0
	for _, n := range segs {
		seg := p[off*l.ch : (off+int(n))*l.ch]
		var sq, pk, e float64
		if l.fma {
			sq, pk, e = l.measureFMA(seg)
		} else {
			sq, pk, e = l.measure(seg)
		}
		l.fp = append(l.fp, l.tp.segment(seg, l.ch, l.c, int(n), pk))
		l.sq = append(l.sq, sq)
		l.pk = append(l.pk, pk)
		l.ke = append(l.ke, e)
		off += int(n)
	}
}

// measure runs the K-weighting (the shelf, then the RLB high-pass, each a
// biquad in direct form I) over the lane's channel of seg and returns the
// sum of squares, the largest |x| and the sum of squares of the K-weighted
// samples. One recursion per loop: the lanes of a stereo input run on the
// two cores side by side instead of interleaved in one.
func (l *lane) measure(seg []float32) (sq, pk, e float64) {
	b0, b1, b2 := l.shelf.b0, l.shelf.b1, l.shelf.b2
	a1, a2 := l.shelf.a1, l.shelf.a2
	r1, r2 := l.rlb.a1, l.rlb.a2
	s := &l.k
	x1, x2, y1, y2, z1, z2 := s.x1, s.x2, s.y1, s.y2, s.z1, s.z2
	ch := l.ch
	for i := l.c; i < len(seg); i += ch {
		x := float64(seg[i])
		sq += x * x
		if ax := math.Abs(x); ax > pk {
			pk = ax
		}
		u := b0*x + b1*x1 + b2*x2
		y := u - a2*y2 - a1*y1
		z := y - 2*y1 + y2 - r2*z2 - r1*z1
		e += z * z
		x2, x1, y2, y1, z2, z1 = x1, x, y1, y, z1, z
	}
	s.x1, s.x2 = x1, x2
	s.y1, s.y2, s.z1, s.z2 = flushTiny(y1), flushTiny(y2), flushTiny(z1), flushTiny(z2)
	return sq, pk, e
}

// measureFMA is measure with fused multiply-adds on the feedback paths,
// which halves their latency (used where the CPU has FMA).
func (l *lane) measureFMA(seg []float32) (sq, pk, e float64) {
	b0, b1, b2 := l.shelf.b0, l.shelf.b1, l.shelf.b2
	a1, a2 := l.shelf.a1, l.shelf.a2
	r1, r2 := l.rlb.a1, l.rlb.a2
	s := &l.k
	x1, x2, y1, y2, z1, z2 := s.x1, s.x2, s.y1, s.y2, s.z1, s.z2
	ch := l.ch
	// The float64 conversions round each product, so that no compiler
	// fuses it into an addition: every machine, and kPairAVX, computes
	// the same bits.
	for i := l.c; i < len(seg); i += ch {
		x := float64(seg[i])
		sq += float64(x * x)
		if ax := math.Abs(x); ax > pk {
			pk = ax
		}
		u := float64(b0*x) + float64(b1*x1) + float64(b2*x2)
		y := math.FMA(-a1, y1, u-float64(a2*y2))
		z := math.FMA(-r1, z1, y-2*y1+y2-float64(r2*z2))
		e += float64(z * z)
		x2, x1, y2, y1, z2, z1 = x1, x, y1, y, z1, z
	}
	s.x1, s.x2 = x1, x2
	s.y1, s.y2, s.z1, s.z2 = flushTiny(y1), flushTiny(y2), flushTiny(z1), flushTiny(z2)
	return sq, pk, e
}

// flushTiny zeroes filter state too small to matter, so silence never
// drives the recursions into slow denormal arithmetic.
func flushTiny(v float64) float64 {
	if v > -1e-30 && v < 1e-30 {
		return 0
	}
	return v
}

// setFMA chooses the recursions every lane runs (tests compare them).
func (a *Analyzer) setFMA(fma bool) {
	for _, l := range a.lanes {
		l.fma = fma
	}
	a.pair = fma && a.ch == 2 && pairKernel()
}

// runLanes measures the batch p, cut into segs, in every lane. A stereo
// input with the pair kernel runs both lanes in one pass; otherwise w,
// when not nil, runs the odd channels' lanes meanwhile.
func (a *Analyzer) runLanes(p []float32, segs []int32, w *laneWorker) {
	if a.pair {
		runPair(a.lanes[0], a.lanes[1], p, segs)
		return
	}
	step := 1
	if w != nil {
		step = 2
		w.start(p, segs)
	}
	for c := 0; c < len(a.lanes); c += step {
		a.lanes[c].run(p, segs)
	}
	w.wait()
}

// runPair is lane.run for the two lanes of a stereo input at once
// (measurePair), the true peaks still per channel.
func runPair(l, m *lane, p []float32, segs []int32) {
	l.sq, l.pk, l.ke, l.fp = l.sq[:0], l.pk[:0], l.ke[:0], l.fp[:0]
	m.sq, m.pk, m.ke, m.fp = m.sq[:0], m.pk[:0], m.ke[:0], m.fp[:0]
	off := 0
	for _, n := range segs {
		seg := p[off*2 : (off+int(n))*2]
		acc := measurePair(l, m, seg)
		l.fp = append(l.fp, l.tp.segment(seg, 2, 0, int(n), acc[1][0]))
		m.fp = append(m.fp, m.tp.segment(seg, 2, 1, int(n), acc[1][1]))
		l.sq, l.pk, l.ke = append(l.sq, acc[0][0]), append(l.pk, acc[1][0]), append(l.ke, acc[2][0])
		m.sq, m.pk, m.ke = append(m.sq, acc[0][1]), append(m.pk, acc[1][1]), append(m.ke, acc[2][1])
		off += int(n)
	}
}

// pruning returns how many true-peak segments the lanes saw and how many
// of them the pruning bound let them skip.
func (a *Analyzer) pruning() (segments, skipped int64) {
	for _, l := range a.lanes {
		segments += l.tp.segments
		skipped += l.tp.skipped
	}
	return segments, skipped
}
