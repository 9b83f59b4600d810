package dsp

import "math"

// True peak per ITU-R BS.1770-4 Annex 2: the signal is oversampled (4x
// below 96 kHz, 2x below 192 kHz, not at all above) with a polyphase
// interpolation filter and the largest absolute interpolated value is the
// true peak. The filter here is equivalent to the Annex 2 one: 12 taps per
// phase (48 taps at 4x), a Hann-windowed sinc whose phase 0 is the
// identity, each phase normalised to unity gain at DC.
//
// Block pruning keeps it fast and exact: an interpolated value is a
// weighted sum of 12 input samples, so it can never exceed
// gain * max|x| over those samples, where gain is the largest sum of
// absolute tap values of any phase. A segment whose bound does not exceed
// the running maximum cannot raise it and is skipped; the result equals
// full oversampling.

// tpTaps is the number of input samples each interpolated value uses.
const tpTaps = 12

// tpDelay is the delay of the interpolator in input samples: phase 0
// reproduces x[n-tpDelay] exactly.
const tpDelay = tpTaps / 2

// framePeakRate: under this sample rate the envelope's frame peaks are
// interpolated ones (truePeakMeter.frames, framePeak). A sampled peak
// reads a component at f up to 20 log10 cos(pi f / rate) dB low: for
// speech's and clicks' energy under 4 kHz, at most 0.3 dB at 48 kHz and
// 0.7 dB at 32 kHz, but 3 dB at 16 kHz and more at 8 kHz, where the
// planner's tests of a frame's crest (its peak over its RMS) would read a
// click as a softer sound.
const framePeakRate = 32000

// truePeakMeter oversamples each channel and tracks the largest magnitude.
type truePeakMeter struct {
	factor int                   // oversampling factor (1, 2 or 4)
	frames bool                  // each segment's own interpolated peak is measured too (rates under framePeakRate)
	phases [][tpTaps]float32     // phases 1..factor-1 (phase 0 is the identity)
	gain   float64               // max over phases of sum |tap|
	bounds [][2]float32          // per phase: the sums of its positive and its negative taps' |values|
	hist   [][tpTaps - 1]float32 // per channel, the last tpTaps-1 samples
	buf    []float32             // scratch: history + one segment of a channel
	max    float64               // running maximum |value| (linear)

	segments, skipped int64 // segments seen and skipped by pruning
}

// truePeakFactor returns the oversampling factor for a sample rate.
func truePeakFactor(rate int) int {
	switch {
	case rate < 96000:
		return 4
	case rate < 192000:
		return 2
	default:
		return 1
	}
}

func newTruePeakMeter(rate, channels int) *truePeakMeter {
	m := &truePeakMeter{factor: truePeakFactor(rate), frames: rate < framePeakRate, hist: make([][tpTaps - 1]float32, channels)}
	m.gain = 1
	for k := 1; k < m.factor; k++ {
		var taps [tpTaps]float64
		frac := float64(k) / float64(m.factor)
		sum := 0.0
		for j := range taps {
			// Output time n - tpDelay + frac; tap j weights x[n-j].
			u := float64(j-tpDelay) + frac
			taps[j] = sinc(u) * hann(u, tpTaps)
			sum += taps[j]
		}
		var ph [tpTaps]float32
		pos, neg := 0.0, 0.0
		for j := range taps {
			// Stored reversed so that ph[i] weights buf[n+i] with buf oldest first.
			v := taps[j] / sum
			ph[tpTaps-1-j] = float32(v)
			pos += max(v, 0)
			neg += max(-v, 0)
		}
		m.phases = append(m.phases, ph)
		m.bounds = append(m.bounds, [2]float32{float32(pos), float32(neg)})
		m.gain = math.Max(m.gain, pos+neg)
	}
	return m
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// hann is a Hann window of total width w centred on 0.
func hann(x float64, w int) float64 {
	half := float64(w) / 2
	if x <= -half || x >= half {
		return 0
	}
	c := math.Cos(math.Pi * x / float64(w))
	return c * c
}

// segment processes n frames of channel c of the interleaved block seg,
// whose largest and smallest samples are hi and lo, and returns the
// segment's extremes for the envelope: hi and lo, or where m.frames the
// largest and smallest of them and the halfway values of the positions the
// segment completes (framePeak; they lie up to tpDelay samples earlier).
func (m *truePeakMeter) segment(seg []float32, ch, c, n int, hi, lo float64) (float64, float64) {
	peak := max(hi, -lo)
	if peak > m.max {
		m.max = peak
	}
	h := &m.hist[c]
	if m.factor == 1 {
		return hi, lo
	}
	hmax := float32(0)
	for _, v := range h {
		if v < 0 {
			v = -v
		}
		if v > hmax {
			hmax = v
		}
	}
	bound := math.Max(peak, float64(hmax)) * m.gain * (1 + tpGuard)
	m.segments++
	skip := bound <= m.max // cannot raise the maximum
	if skip {
		m.skipped++
		if !m.frames {
			m.keepHistory(seg, ch, c, n)
			return hi, lo
		}
	}
	need := tpTaps - 1 + n
	if cap(m.buf) < need {
		m.buf = make([]float32, need)
	}
	buf := m.buf[:need]
	copy(buf, h[:])
	for i, j := tpTaps-1, c; i < need; i, j = i+1, j+ch {
		buf[i] = seg[j]
	}
	if m.frames {
		fh, fl := m.framePeak(buf, float32(hi), float32(lo))
		hi, lo = float64(fh), float64(fl)
	}
	if !skip {
		m.raise(buf)
	}
	m.max = max(m.max, hi, -lo)
	copy(h[:], buf[need-(tpTaps-1):])
	return hi, lo
}

// framePeak returns the largest and smallest of hi, lo and the values
// halfway between the samples of buf (the positions with a full history):
// a 2x interpolation (an ideal one reads a component at f at most 20 log10
// cos(pi f / 2 rate) dB low, 0.7 dB for 4 kHz at 16 kHz; the 12 taps pass
// less near the band's edge). Every position counts, so the frame's peak
// does not depend on how its samples were cut into segments. Signed, so
// that the envelope can take a DC offset out of them (offset.go).
func (m *truePeakMeter) framePeak(buf []float32, hi, lo float32) (float32, float32) {
	h := len(m.phases) / 2
	return interpolate(buf, hi, lo, false, m.phases[h:h+1], m.bounds[h:h+1])
}

// keepHistory updates channel c's history with the last samples of seg.
func (m *truePeakMeter) keepHistory(seg []float32, ch, c, n int) {
	h := &m.hist[c]
	const hl = tpTaps - 1
	if n >= hl {
		for i, j := 0, (n-hl)*ch+c; i < hl; i, j = i+1, j+ch {
			h[i] = seg[j]
		}
		return
	}
	copy(h[:], h[n:])
	for i, j := hl-n, c; i < hl; i, j = i+1, j+ch {
		h[i] = seg[j]
	}
}

// tpBlock is the number of output positions interpolate checks against
// the pruning bound at a time.
const tpBlock = 32

// tpGuard pads the pruning bounds against the float32 rounding of the
// taps and the sums.
const tpGuard = 1e-5

// interpolate evaluates phases at every position of buf that has a full
// history and returns the largest and smallest of hi, lo and their values;
// with sym, the largest |value| as hi and its negative as lo. Runs of
// tpBlock positions whose values cannot leave [lo, hi] are skipped: a
// phase whose positive taps sum to P and negative ones to -N gives values
// between P min - N max and P max - N min of its inputs (bounds).
func interpolate(buf []float32, hi, lo float32, sym bool, phases [][tpTaps]float32, bounds [][2]float32) (float32, float32) {
	for start := 0; start+tpTaps <= len(buf); start += tpBlock {
		end := min(start+tpBlock, len(buf)-tpTaps+1) // one past the last position
		in := buf[start : end+tpTaps-1]
		// Largest and smallest, not |x|: compares that rarely change the
		// result predict well, where a sign test on every sample does not.
		bh, bl := in[0], in[0]
		for _, v := range in {
			if v > bh {
				bh = v
			}
			if v < bl {
				bl = v
			}
		}
		inside := true
		for _, b := range bounds {
			pad := tpGuard * (b[0] + b[1]) * max(bh, -bl)
			if b[0]*bh-b[1]*bl+pad > hi || b[0]*bl-b[1]*bh-pad < lo {
				inside = false
				break
			}
		}
		if inside {
			continue
		}
		for p := range phases {
			ph := &phases[p]
			for n := 0; n+tpTaps <= len(in); n++ {
				x := in[n : n+tpTaps : n+tpTaps]
				y := ph[0]*x[0] + ph[1]*x[1] + ph[2]*x[2] + ph[3]*x[3] +
					ph[4]*x[4] + ph[5]*x[5] + ph[6]*x[6] + ph[7]*x[7] +
					ph[8]*x[8] + ph[9]*x[9] + ph[10]*x[10] + ph[11]*x[11]
				if y > hi {
					hi = y
				}
				if y < lo {
					lo = y
				}
			}
		}
		if sym {
			hi = max(hi, -lo)
			lo = -hi
		}
	}
	return hi, lo
}

// flush feeds tpDelay zeros per channel so that the interpolation between
// the last samples and the end of the stream is evaluated too.
func (m *truePeakMeter) flush() {
	if m.factor == 1 {
		return
	}
	for c := range m.hist {
		buf := make([]float32, tpTaps-1+tpDelay)
		copy(buf, m.hist[c][:])
		m.raise(buf)
	}
}

// raise takes the values of every phase at the positions of buf with a
// full history into the running maximum |value|.
func (m *truePeakMeter) raise(buf []float32) {
	mx := float32(m.max)
	th, _ := interpolate(buf, mx, -mx, true, m.phases, m.bounds)
	m.max = max(m.max, float64(th))
}
