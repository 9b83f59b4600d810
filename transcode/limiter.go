package transcode

import (
	"io"
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// limiterHalfTaps is half the length of the inter-sample peak interpolator.
const limiterHalfTaps = 8

// interpPhases are the 3 fractional phases (1/4, 2/4, 3/4) of the 4x
// interpolator: Hann-windowed sinc, 2*limiterHalfTaps taps each, applied to
// x[m-H+1] ... x[m+H] to estimate the signal between x[m] and x[m+1].
type interpPhases [3][2 * limiterHalfTaps]float64

func newInterpPhases() (ph interpPhases, bound float64) {
	for k := 1; k <= 3; k++ {
		frac := float64(k) / 4
		for j := -limiterHalfTaps + 1; j <= limiterHalfTaps; j++ {
			x := frac - float64(j)
			w := 0.5 + 0.5*math.Cos(math.Pi*x/float64(limiterHalfTaps+1)) // Hann
			s := 1.0
			if x != 0 {
				s = math.Sin(math.Pi*x) / (math.Pi * x)
			}
			ph[k-1][j+limiterHalfTaps-1] = s * w
		}
	}
	// bound is the largest sum of |taps| of any phase: |interpolated| <= bound * max|x|.
	bound = 1
	for _, p := range ph {
		s := 0.0
		for _, v := range p {
			s += math.Abs(v)
		}
		bound = max(bound, s)
	}
	return ph, bound
}

// peakAt returns the largest |value| of frame m's samples and of the 3
// interpolated points after it, over all channels; x holds interleaved
// frames and m is an index into it with H-1 frames before and H after.
func (ph *interpPhases) peakAt(x []float32, ch, m int) float64 {
	const H = limiterHalfTaps
	peak := 0.0
	for c := 0; c < ch; c++ {
		w := x[(m-H+1)*ch+c : (m+H)*ch+c+1]
		peak = max(peak, math.Abs(float64(w[(H-1)*ch])))
		var s0, s1, s2 float64
		for j := 0; j < 2*H; j++ {
			v := float64(w[j*ch])
			s0 += v * ph[0][j]
			s1 += v * ph[1][j]
			s2 += v * ph[2][j]
		}
		peak = max(peak, math.Abs(s0), math.Abs(s1), math.Abs(s2))
	}
	return peak
}

// limiterSource is a look-ahead true-peak limiter: it estimates the peak of
// the 4x oversampled signal for the frames that could reach the ceiling,
// and lowers the gain smoothly ahead of any frame that would exceed it.
//
// Gain: r[m] = min(1, ceiling/peak[m]); a sliding minimum of r over the
// look-ahead window followed by a moving average over the same window gives
// a gain that is never above r at a peak (every averaged window covers it)
// and ramps over the window instead of stepping; release is exponential.
//
// Cheap paths: a frame whose samples (and the interpolator's neighbours)
// stay below ceiling/bound cannot make a peak above the ceiling, so r = 1
// with no interpolation; where no r < 1 lies within the look-ahead windows
// the sliding minimum and average are 1 without being computed, and once the
// release has come back to unity the frames are copied through.
//
// It works on whole buffers held in one linear slice (no per-frame ring
// arithmetic, no allocation after the first Read).
type limiterSource struct {
	src     dsp.Source
	ch      int
	ceiling float64
	thresh  float64 // |x| below ceiling/bound cannot make an inter-sample peak above the ceiling
	ph      interpPhases
	rel     float64

	x    []float32 // interleaved frames [base, in)
	base int64
	in   int64 // frames received (zeros of the flush included)

	lastBig int64 // last frame with a sample at or above thresh
	lastLow int64 // last frame with r < 1
	gainLaw

	out   int64 // frames emitted
	gPrev float64
	total int64 // real frames in the input, known at its end
	eof   bool
}

func newLimiter(src dsp.Source, ceilingDb, lookSec float64) *limiterSource {
	f := src.Format()
	l := &limiterSource{
		src: src, ch: f.Channels,
		ceiling: math.Pow(10, ceilingDb/20),
		gainLaw: newGainLaw(max(1, int(lookSec*float64(f.SampleRate)))),
		rel:     1 - math.Exp(-1/(0.08*float64(f.SampleRate))),
		gPrev:   1,
		lastBig: -1 << 40,
		lastLow: -1 << 40,
	}
	var bound float64
	l.ph, bound = newInterpPhases()
	l.thresh = l.ceiling / bound * (1 - 1e-6) // rounding may only make it interpolate more
	// The interpolator's history before the first frame is silence.
	l.base = -2 * limiterHalfTaps
	l.x = make([]float32, 2*limiterHalfTaps*l.ch)
	return l
}

// gainLaw turns the ratios r[m] = min(1, ceiling/peak[m]) into the gain
// before release: a sliding minimum of r over look+1 steps, then a moving
// average of the minima over look+1 steps. It keeps its state only while
// active: after a stretch of r = 1 as long as both windows, the gain is 1
// and reset rebuilds the state that stretch would have left.
type gainLaw struct {
	look        int       // look-ahead steps L
	active      bool      // the sliding minimum and average are being tracked
	rq          []float64 // sliding-min deque values
	rqi         []int64   // and their indices
	rHead, rLen int
	mRing       []float64 // last L+1 sliding-min values
	mSum        float64
	mPos        int
}

func newGainLaw(look int) gainLaw {
	return gainLaw{look: look, rq: make([]float64, look+2), rqi: make([]int64, look+2), mRing: make([]float64, look+1)}
}

func (l *limiterSource) Format() dsp.Format { return l.src.Format() }

// delay is the limiter's latency in frames: H for the interpolator, L for the look-ahead.
func (l *limiterSource) delay() int { return limiterHalfTaps + l.look }

// reset puts the sliding minimum and average in the state they have after
// a stretch of r = 1 ending at frame m-1.
func (l *gainLaw) reset(m int64) {
	l.rq[0], l.rqi[0] = 1, m-1
	l.rHead, l.rLen = 0, 1
	for i := range l.mRing {
		l.mRing[i] = 1
	}
	l.mSum = float64(l.look + 1)
	l.mPos = 0
	l.active = true
}

// slide pushes r[m] into the sliding minimum over r[m-L..m] and returns the
// moving average of the last L+1 minima: the gain of frame m-L.
func (l *gainLaw) slide(r float64, m int64) float64 {
	size := len(l.rq)
	for l.rLen > 0 && l.rq[(l.rHead+l.rLen-1)%size] >= r {
		l.rLen--
	}
	l.rq[(l.rHead+l.rLen)%size], l.rqi[(l.rHead+l.rLen)%size] = r, m
	l.rLen++
	for l.rqi[l.rHead] < m-int64(l.look) {
		l.rHead = (l.rHead + 1) % size
		l.rLen--
	}
	mv := l.rq[l.rHead]
	l.mSum += mv - l.mRing[l.mPos]
	l.mRing[l.mPos] = mv
	l.mPos++
	if l.mPos == len(l.mRing) { // re-add exactly once per window so the running sum cannot drift
		l.mPos = 0
		l.mSum = 0
		for _, v := range l.mRing {
			l.mSum += v
		}
	}
	return min(l.mSum/float64(l.look+1), 1)
}

// process runs frames [from, l.in) of l.x (global indices) through the
// limiter, writing the frames that come out to dst; it returns the number
// of samples written.
func (l *limiterSource) process(from int64, dst []float32) int {
	const H = limiterHalfTaps
	ch, L := l.ch, int64(l.look)
	x := l.x
	thresh := float32(l.thresh)
	n := 0
	for g := from; g < l.in; g++ {
		if !l.active && l.gPrev == 1 && g-l.lastBig >= 2*H && l.lastLow < g-H-2*L {
			// Fast path: up to the next big frame, r = 1 (no sample near
			// enough the ceiling for the interpolator), the sliding minimum
			// and average are 1 and the gain is unity: frames are copied.
			e := g
		scan:
			for ; e < l.in; e++ {
				for _, v := range x[int(e-l.base)*ch : int(e-l.base+1)*ch] {
					if v >= thresh || -v >= thresh {
						break scan
					}
				}
			}
			t0, t1 := max(g-H-L, 0), max(e-H-L, 0)
			if t1 > t0 {
				k := copy(dst[n:], x[int(t0-l.base)*ch:int(t1-l.base)*ch])
				n += k
				l.out += int64(k / ch)
			}
			if e == l.in {
				break
			}
			g = e // the big frame goes through the full path
		}
		i := int(g - l.base)
		for _, v := range x[i*ch : (i+1)*ch] {
			if v >= thresh || -v >= thresh {
				l.lastBig = g
			}
		}
		m := g - H // frame whose inter-sample peaks are now computable
		if m < 0 {
			continue
		}
		r := 1.0
		if g-l.lastBig < 2*H {
			if peak := l.ph.peakAt(x, ch, int(m-l.base)); peak > l.ceiling {
				r = l.ceiling / peak
				l.lastLow = m
			}
		}
		t := m - L // frame whose gain is now known
		avg := 1.0
		if l.lastLow >= m-2*L { // some r < 1 in [t-L, t+L]
			if !l.active {
				l.reset(m)
			}
			avg = l.slide(r, m)
		} else {
			l.active = false
		}
		if t < 0 {
			continue
		}
		gn := avg
		if avg > l.gPrev {
			gn = l.gPrev + (avg-l.gPrev)*l.rel
			if avg == 1 && gn > 1-1e-9 {
				gn = 1 // inaudible, and lets the copy path resume
			}
		}
		l.gPrev = gn
		k := int(t - l.base)
		if gn == 1 {
			copy(dst[n:n+ch], x[k*ch:(k+1)*ch])
		} else {
			for c := 0; c < ch; c++ {
				dst[n+c] = float32(float64(x[k*ch+c]) * gn)
			}
		}
		n += ch
		l.out++
	}
	return n
}

func (l *limiterSource) Read(p []float32) (int, error) {
	ch := l.ch
	frames := len(p) / ch
	if frames == 0 {
		return 0, nil
	}
	const H = limiterHalfTaps
	keep := int64(max(l.delay(), 2*H))
	if need := (int(keep) + frames) * ch; cap(l.x) < need {
		nx := make([]float32, need)
		copy(nx, l.x)
		l.x = nx
	}
	l.x = l.x[:cap(l.x)]
	for {
		if l.eof && l.out >= l.total {
			return 0, io.EOF
		}
		// Keep the frames still needed: the next output's and the interpolator's history.
		if from := max(l.in-keep, l.base); from > l.base {
			copy(l.x, l.x[int(from-l.base)*ch:int(l.in-l.base)*ch])
			l.base = from
		}
		start := l.in
		off := int(l.in - l.base)
		if l.eof {
			// flush: zeros until every real frame is out
			k := min(frames, int(l.total+int64(l.delay())-l.in))
			clear(l.x[off*ch : (off+k)*ch])
			l.in += int64(k)
		} else {
			m, err := l.src.Read(l.x[off*ch : (off+frames)*ch])
			l.in += int64(m / ch)
			if err == io.EOF {
				l.eof = true
				l.total = l.in
			} else if err != nil {
				return l.process(start, p), err
			}
		}
		if n := l.process(start, p); n > 0 {
			return n, nil
		}
	}
}
