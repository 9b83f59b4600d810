package dsp

import "math"

// A lane measures one channel of the interleaved frames the analyzer is
// given, a batch at a time: for each segment of the batch (a run of
// frames inside one 10 ms frame) the sum of squares, the sample peak, the
// K-weighted energy, the sum and the extremes, and the channel's true
// peak. Lanes share nothing, so the analyzer may run them on different
// cores (Analyze does) and merge their per-segment sums in channel order
// afterwards: the result is the same, to the bit, as running them one
// after the other.
type lane struct {
	c, ch      int // the channel, and the channel count
	shelf, rlb Biquad
	k          kState
	tp         *truePeakMeter // this channel's true peak (tp.max)
	fma        bool

	// Per segment of the current batch: the sum of squares, the sample
	// peak and the K-weighted energy; and for the envelope, which takes
	// the channel's DC offset out of them (offset.go), the sum of the
	// samples and their largest and smallest values (under framePeakRate
	// the interpolated ones halfway between them count too).
	sq, pk, ke []float64
	sx, hi, lo []float64
}

// segSums are a lane's measures of one segment.
type segSums struct {
	sq, e      float64 // sum of squares, of the K-weighted samples
	sx, hi, lo float64 // sum of the samples, largest, smallest
}

// peak returns the segment's sample peak, its largest |x| (0 for no samples).
func (s segSums) peak() float64 { return max(s.hi, -s.lo, 0) }

// add measures the true peak of segment seg (n frames) and appends its
// measures s.
func (l *lane) add(s segSums, seg []float32, n int) {
	hi, lo := l.tp.segment(seg, l.ch, l.c, n, s.hi, s.lo)
	l.sq, l.pk, l.ke = append(l.sq, s.sq), append(l.pk, s.peak()), append(l.ke, s.e)
	l.sx, l.hi, l.lo = append(l.sx, s.sx), append(l.hi, hi), append(l.lo, lo)
}

// clear empties the per-segment measures for a new batch.
func (l *lane) clear() {
	l.sq, l.pk, l.ke = l.sq[:0], l.pk[:0], l.ke[:0]
	l.sx, l.hi, l.lo = l.sx[:0], l.hi[:0], l.lo[:0]
}

func newLane(c int, f Format, fma bool) *lane {
	l := &lane{c: c, ch: f.Channels, tp: newTruePeakMeter(f.SampleRate, f.Channels), fma: fma}
	l.shelf, l.rlb = kWeighting(f.SampleRate)
	return l
}

// run measures the batch p cut into segments of segs frames.
func (l *lane) run(p []float32, segs []int32) {
	l.clear()
	off := 0
	for _, n := range segs {
		seg := p[off*l.ch : (off+int(n))*l.ch]
		var s segSums
		if l.fma {
			s = l.measureFMA(seg)
		} else {
			s = l.measure(seg)
		}
		l.add(s, seg, int(n))
		off += int(n)
	}
}

// measure runs the K-weighting (the shelf, then the RLB high-pass, each a
// biquad in direct form I) over the lane's channel of seg and returns its
// sums (seg holds at least one frame). One recursion per loop: the lanes
// of a stereo input run on the two cores side by side instead of
// interleaved in one.
func (l *lane) measure(seg []float32) segSums {
	b0, b1, b2 := l.shelf.B0, l.shelf.B1, l.shelf.B2
	a1, a2 := l.shelf.A1, l.shelf.A2
	r1, r2 := l.rlb.A1, l.rlb.A2
	s := &l.k
	x1, x2, y1, y2, z1, z2 := s.x1, s.x2, s.y1, s.y2, s.z1, s.z2
	ch := l.ch
	var sq, e, sx float64
	hi, lo := math.Inf(-1), math.Inf(1)
	for i := l.c; i < len(seg); i += ch {
		x := float64(seg[i])
		sq += x * x
		sx += x
		if !(hi > x) { // as MAXPD and MINPD choose (kPairAVX)
			hi = x
		}
		if !(lo < x) {
			lo = x
		}
		u := b0*x + b1*x1 + b2*x2
		y := u - a2*y2 - a1*y1
		z := y - 2*y1 + y2 - r2*z2 - r1*z1
		e += z * z
		x2, x1, y2, y1, z2, z1 = x1, x, y1, y, z1, z
	}
	s.x1, s.x2 = x1, x2
	s.y1, s.y2, s.z1, s.z2 = flushTiny(y1), flushTiny(y2), flushTiny(z1), flushTiny(z2)
	return segSums{sq: sq, e: e, sx: sx, hi: hi, lo: lo}
}

// measureFMA is measure with fused multiply-adds on the feedback paths,
// which halves their latency (used where the CPU has FMA).
func (l *lane) measureFMA(seg []float32) segSums {
	b0, b1, b2 := l.shelf.B0, l.shelf.B1, l.shelf.B2
	a1, a2 := l.shelf.A1, l.shelf.A2
	r1, r2 := l.rlb.A1, l.rlb.A2
	s := &l.k
	x1, x2, y1, y2, z1, z2 := s.x1, s.x2, s.y1, s.y2, s.z1, s.z2
	ch := l.ch
	// The float64 conversions round each product, so that no compiler
	// fuses it into an addition: every machine, and kPairAVX, computes
	// the same bits.
	var sq, e, sx float64
	hi, lo := math.Inf(-1), math.Inf(1)
	for i := l.c; i < len(seg); i += ch {
		x := float64(seg[i])
		sq += float64(x * x)
		sx += x
		if !(hi > x) { // as MAXPD and MINPD choose (kPairAVX)
			hi = x
		}
		if !(lo < x) {
			lo = x
		}
		u := float64(b0*x) + float64(b1*x1) + float64(b2*x2)
		y := math.FMA(-a1, y1, u-float64(a2*y2))
		z := math.FMA(-r1, z1, y-2*y1+y2-float64(r2*z2))
		e += float64(z * z)
		x2, x1, y2, y1, z2, z1 = x1, x, y1, y, z1, z
	}
	s.x1, s.x2 = x1, x2
	s.y1, s.y2, s.z1, s.z2 = flushTiny(y1), flushTiny(y2), flushTiny(z1), flushTiny(z2)
	return segSums{sq: sq, e: e, sx: sx, hi: hi, lo: lo}
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
func (a *analyzer) setFMA(fma bool) {
	for _, l := range a.lanes {
		l.fma = fma
	}
	a.pair = fma && a.ch == 2 && pairKernel()
}

// runLanes measures the batch p, cut into segs, in every lane. A stereo
// input with the pair kernel runs both lanes in one pass; otherwise w,
// when not nil, runs the odd channels' lanes meanwhile.
func (a *analyzer) runLanes(p []float32, segs []int32, w *laneWorker) {
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
	l.clear()
	m.clear()
	off := 0
	for _, n := range segs {
		seg := p[off*2 : (off+int(n))*2]
		s := measurePair(l, m, seg)
		l.add(s[0], seg, int(n))
		m.add(s[1], seg, int(n))
		off += int(n)
	}
}

// pruning returns how many true-peak segments the lanes saw and how many
// of them the pruning bound let them skip.
func (a *analyzer) pruning() (segments, skipped int64) {
	for _, l := range a.lanes {
		segments += l.tp.segments
		skipped += l.tp.skipped
	}
	return segments, skipped
}
