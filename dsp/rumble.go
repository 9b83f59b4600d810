package dsp

// The level a listener hears (Envelope.HighPassDb, HighPassPeakDb).
//
// Every preset renders through the rumble filter (RumbleHz, a 4th-order
// Butterworth high-pass: RumbleSections), so what is under it (breath on
// the microphone, handling noise, a plosive's pop, traffic rumble) is no
// part of what is heard, yet it can set the input's sample peak and the
// speech level (the 95th percentile of the 10 ms levels): MFA's speaker
// with a cold (cold_corpus) blows sub-100 Hz blasts of -5 to -9 dB per
// 100 ms into the microphone, which set its sample peak at -3.7 dBFS and
// its speech level at -24.2 dBFS while his words stand at -32 to -49 dB.
// So the analysis also measures each 10 ms frame, and the input's sample
// peak, after that filter (on every channel, as the render filters them;
// from the same per-channel powers as Envelope.RMSDb), and the planner
// takes its references from them. The filter starts as if the input had
// always held its first sample, so a DC offset opens no transient; it
// runs on the voice detector's goroutine, beside the lanes.

// RumbleHz is the rumble filter's corner frequency: the render's
// high-pass (transcode's Rumble option) and the level measured after it.
const RumbleHz = 70.0

// RumbleSections returns the rumble filter at the sample rate:
// HighPass4(RumbleHz, rate).
func RumbleSections(rate int) [2]Biquad { return HighPass4(RumbleHz, rate) }

// HighPass4 returns a 4th-order Butterworth high-pass at fc Hz for the
// sample rate as two biquads, to be run one after the other.
func HighPass4(fc float64, rate int) [2]Biquad {
	return [2]Biquad{
		HighPass(fc, 0.54119610, float64(rate)), // 1/(2 cos(pi/8))
		HighPass(fc, 1.30656296, float64(rate)), // 1/(2 cos(3pi/8))
	}
}

// rumbleMeter measures the 10 ms frames of interleaved samples after the
// rumble filter: their mean square over all channels (out, dBFS as
// Envelope.RMSDb) and the largest |sample| (peak). Frames end at
// round(k*rate/100) samples, as the analyzer's.
type rumbleMeter struct {
	rate, ch int64
	sec      [2]Biquad
	st       [][2][4]float64 // per channel, per section
	started  bool
	pos      int64   // sample frames measured
	idx      int64   // current 10 ms frame
	end      int64   // its end (sample frames)
	sq       float64 // its sum of squares so far
	start    int64   // its first sample frame
	peak     float64
	out      []float32
}

func newRumbleMeter(rate, ch int) *rumbleMeter {
	m := &rumbleMeter{rate: int64(rate), ch: int64(ch), sec: RumbleSections(rate), st: make([][2][4]float64, ch)}
	m.end = m.boundary(1)
	return m
}

func (m *rumbleMeter) boundary(k int64) int64 { return (k*m.rate + 50) / 100 }

// write measures interleaved samples (whole frames).
func (m *rumbleMeter) write(seg []float32) {
	ch := int(m.ch)
	if !m.started && len(seg) >= ch {
		for c := range ch {
			x := float64(seg[c])
			m.st[c][0] = [4]float64{x, x, 0, 0}
		}
		m.started = true
	}
	s0, s1 := m.sec[0], m.sec[1]
	for len(seg) > 0 {
		n := int(min(int64(len(seg)/ch), m.end-m.pos))
		part := seg[:n*ch]
		seg = seg[n*ch:]
		c0 := 0
		if ch == 2 {
			m.pair(part)
			c0 = 2
		}
		for c := c0; c < ch; c++ {
			st := &m.st[c]
			// Direct form I, as Biquad.Step, with the state in locals.
			x1, x2, y1, y2 := st[0][0], st[0][1], st[0][2], st[0][3]
			z1, z2 := st[1][2], st[1][3]
			sq, pk := 0.0, m.peak
			for i := c; i < len(part); i += ch {
				x := float64(part[i])
				// The feedback term last: the recursions' latency.
				y := s0.B0*x + s0.B1*x1 + s0.B2*x2 - s0.A2*y2 - s0.A1*y1
				z := s1.B0*y + s1.B1*y1 + s1.B2*y2 - s1.A2*z2 - s1.A1*z1
				x2, x1, y2, y1, z2, z1 = x1, x, y1, y, z1, z
				sq += z * z
				if z > pk {
					pk = z
				} else if -z > pk {
					pk = -z
				}
			}
			m.sq += sq
			m.peak = pk
			st[0] = [4]float64{x1, x2, flushTiny(y1), flushTiny(y2)}
			st[1] = [4]float64{flushTiny(y1), flushTiny(y2), flushTiny(z1), flushTiny(z2)}
		}
		m.pos += int64(n)
		if m.pos == m.end {
			m.close()
		}
	}
}

// pair is write's inner loop for the two channels of a stereo part at
// once: two independent recursions side by side run in about the time of one.
func (m *rumbleMeter) pair(part []float32) {
	s0, s1 := m.sec[0], m.sec[1]
	l, r := &m.st[0], &m.st[1]
	lx1, lx2, ly1, ly2, lz1, lz2 := l[0][0], l[0][1], l[0][2], l[0][3], l[1][2], l[1][3]
	rx1, rx2, ry1, ry2, rz1, rz2 := r[0][0], r[0][1], r[0][2], r[0][3], r[1][2], r[1][3]
	sq, pk := 0.0, m.peak
	for i := 0; i+1 < len(part); i += 2 {
		lx, rx := float64(part[i]), float64(part[i+1])
		ly := s0.B0*lx + s0.B1*lx1 + s0.B2*lx2 - s0.A2*ly2 - s0.A1*ly1
		ry := s0.B0*rx + s0.B1*rx1 + s0.B2*rx2 - s0.A2*ry2 - s0.A1*ry1
		lz := s1.B0*ly + s1.B1*ly1 + s1.B2*ly2 - s1.A2*lz2 - s1.A1*lz1
		rz := s1.B0*ry + s1.B1*ry1 + s1.B2*ry2 - s1.A2*rz2 - s1.A1*rz1
		lx2, lx1, ly2, ly1, lz2, lz1 = lx1, lx, ly1, ly, lz1, lz
		rx2, rx1, ry2, ry1, rz2, rz1 = rx1, rx, ry1, ry, rz1, rz
		sq += lz*lz + rz*rz
		if lz > pk {
			pk = lz
		} else if -lz > pk {
			pk = -lz
		}
		if rz > pk {
			pk = rz
		} else if -rz > pk {
			pk = -rz
		}
	}
	m.sq += sq
	m.peak = pk
	l[0] = [4]float64{lx1, lx2, flushTiny(ly1), flushTiny(ly2)}
	l[1] = [4]float64{flushTiny(ly1), flushTiny(ly2), flushTiny(lz1), flushTiny(lz2)}
	r[0] = [4]float64{rx1, rx2, flushTiny(ry1), flushTiny(ry2)}
	r[1] = [4]float64{flushTiny(ry1), flushTiny(ry2), flushTiny(rz1), flushTiny(rz2)}
}

// close ends the current frame (complete, or the partial last one).
func (m *rumbleMeter) close() {
	m.out = append(m.out, dbOfPower(m.sq/float64((m.pos-m.start)*m.ch)))
	m.sq = 0
	m.start = m.pos
	m.idx++
	m.end = m.boundary(m.idx + 1)
}

// flush ends a partial last frame.
func (m *rumbleMeter) flush() {
	if m.pos > m.start {
		m.close()
	}
}
