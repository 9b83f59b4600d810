package transcode

import (
	"io"
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// refHalfTaps is half the length of the inter-sample peak interpolator.
const refHalfTaps = 8

// refLimiter is the per-frame limiter the block limiter (limiterSource)
// replaced, kept as the reference its output must match. It is a
// look-ahead true-peak limiter: it estimates the peak of
// the 4x oversampled signal for every frame, and lowers the gain smoothly
// ahead of any frame that would exceed the ceiling.
//
// Gain: r[m] = min(1, ceiling/peak[m]); a sliding minimum of r over the
// look-ahead window followed by a moving average over the same window gives
// a gain that is never above r at a peak (every averaged window covers it)
// and ramps over the window instead of stepping; release is exponential.
type refLimiter struct {
	src     dsp.Source
	ch      int
	ceiling float64
	look    int // look-ahead frames L
	phases  [3][2 * refHalfTaps]float64
	rel     float64

	hist    []float64 // per channel ring of the last 2H input samples
	histPos int
	delay   []float32 // ring of D+1 frames of input samples (D = H + L)
	dPos    int
	d       int

	rq          []float64 // sliding-min deque values
	rqi         []int64   // and their indices
	rHead, rLen int
	mRing       []float64 // last L+1 sliding-min values
	mSum        float64
	mPos        int

	in      int64   // frames received
	bound   float64 // largest sum of |taps| of any phase: |interpolated| <= bound * max|x|
	lastBig int64   // last frame with a sample that could reach the ceiling
	out     int64   // frames emitted
	gPrev   float64
	total   int64 // frames in the input, known at its end
	buf     []float32
	zero    []float32
	eof     bool
}

func newRefLimiter(src dsp.Source, ceilingDb, lookSec float64) *refLimiter {
	f := src.Format()
	l := &refLimiter{
		src: src, ch: f.Channels,
		ceiling: math.Pow(10, ceilingDb/20),
		look:    max(1, int(lookSec*float64(f.SampleRate))),
		rel:     1 - math.Exp(-1/(0.08*float64(f.SampleRate))),
		gPrev:   1,
	}
	for k := 1; k <= 3; k++ {
		frac := float64(k) / 4
		for j := -refHalfTaps + 1; j <= refHalfTaps; j++ {
			x := frac - float64(j)
			w := 0.5 + 0.5*math.Cos(math.Pi*x/float64(refHalfTaps+1)) // Hann
			s := 1.0
			if x != 0 {
				s = math.Sin(math.Pi*x) / (math.Pi * x)
			}
			l.phases[k-1][j+refHalfTaps-1] = s * w
		}
	}
	l.bound = 1
	for _, ph := range l.phases {
		s := 0.0
		for _, v := range ph {
			s += math.Abs(v)
		}
		l.bound = max(l.bound, s)
	}
	l.lastBig = -1 << 40
	l.hist = make([]float64, l.ch*2*refHalfTaps)
	l.d = refHalfTaps + l.look
	l.delay = make([]float32, (l.d+1)*l.ch)
	l.rq = make([]float64, l.look+2)
	l.rqi = make([]int64, l.look+2)
	l.mRing = make([]float64, l.look+1)
	for i := range l.mRing {
		l.mRing[i] = 1
	}
	l.mSum = float64(l.look + 1)
	return l
}

func (l *refLimiter) Format() dsp.Format { return l.src.Format() }

// push feeds one input frame and, once the pipeline is full, writes one
// output frame to dst (returning true).
func (l *refLimiter) push(frame []float32, dst []float32) bool {
	H := refHalfTaps
	ch := l.ch
	// history ring of the last 2H samples per channel
	for c := 0; c < ch; c++ {
		l.hist[c*2*H+l.histPos] = float64(frame[c])
	}
	l.histPos = (l.histPos + 1) % (2 * H)
	// delay line
	copy(l.delay[l.dPos*ch:(l.dPos+1)*ch], frame)
	l.dPos = (l.dPos + 1) % (l.d + 1)
	n := l.in
	l.in++
	m := n - int64(H) // frame whose inter-sample peaks are now computable
	if m < 0 {
		return false
	}
	// A frame far below the ceiling cannot make an inter-sample peak above
	// it: skip the interpolation while no sample of the filter's span is big.
	for c := 0; c < ch; c++ {
		if math.Abs(float64(frame[c]))*l.bound >= l.ceiling {
			l.lastBig = n
		}
	}
	peak := 0.0
	if n-l.lastBig >= int64(2*H) {
		for c := 0; c < ch; c++ {
			peak = max(peak, math.Abs(l.hist[c*2*H+(l.histPos+H-1)%(2*H)]))
		}
	}
	for c := 0; c < ch && n-l.lastBig < int64(2*H); c++ {
		h := l.hist[c*2*H : (c+1)*2*H]
		// oldest sample in the ring is at histPos: x[m-H+1] ... x[m+H]
		xm := h[(l.histPos+H-1)%(2*H)]
		peak = max(peak, math.Abs(xm))
		for k := 0; k < 3; k++ {
			var s float64
			ph := &l.phases[k]
			for j := 0; j < 2*H; j++ {
				s += h[(l.histPos+j)%(2*H)] * ph[j]
			}
			peak = max(peak, math.Abs(s))
		}
	}
	r := 1.0
	if peak > l.ceiling {
		r = l.ceiling / peak
	}
	// sliding minimum over r[m-L..m]
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
	t := m - int64(l.look) // sliding-min value for frame t is now known
	if t < -int64(l.look) {
		return false
	}
	mv := l.rq[l.rHead]
	l.mSum += mv - l.mRing[l.mPos]
	l.mRing[l.mPos] = mv
	l.mPos = (l.mPos + 1) % (l.look + 1)
	if l.mPos == 0 { // re-add exactly once per window so the running sum cannot drift
		l.mSum = 0
		for _, v := range l.mRing {
			l.mSum += v
		}
	}
	if t < 0 {
		return false
	}
	g := min(l.mSum/float64(l.look+1), 1)
	if g > l.gPrev {
		g = l.gPrev + (g-l.gPrev)*l.rel
	}
	l.gPrev = g
	// output frame t is the oldest in the delay line
	src := l.delay[l.dPos*ch : (l.dPos+1)*ch]
	for c := 0; c < ch; c++ {
		dst[c] = float32(float64(src[c]) * g)
	}
	return true
}

func (l *refLimiter) Read(p []float32) (int, error) {
	ch := l.ch
	frames := len(p) / ch
	if frames == 0 {
		return 0, nil
	}
	if cap(l.buf) < frames*ch {
		l.buf = make([]float32, frames*ch)
		l.zero = make([]float32, ch)
	}
	n := 0
	for n == 0 {
		if l.eof {
			// flush: feed zeros until every real frame is out
			for l.out < l.total && n+ch <= len(p) {
				if l.push(l.zero, p[n:n+ch]) {
					n += ch
					l.out++
				}
			}
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		m, err := l.src.Read(l.buf[:frames*ch])
		for i := 0; i+ch <= m; i += ch {
			if l.push(l.buf[i:i+ch], p[n:n+ch]) {
				n += ch
				l.out++
			}
		}
		if err == io.EOF {
			l.eof = true
			l.total = l.in
		} else if err != nil {
			return n, err
		}
	}
	return n, nil
}
