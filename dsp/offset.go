package dsp

import (
	"math"
	"slices"
)

// The envelope measures what is heard, so it leaves out each channel's DC
// offset: a constant an inexpensive interface or a badly trimmed converter
// adds to every sample. It is inaudible, and the loudness ignores it (the
// K-weighting's high-pass removes it), but in an unweighted RMS it sets a
// floor under every pause: plan's TestRealMix mixes with 0.01 (-40 dBFS)
// added had 59 of 168 cases clip more than 30 ms of speech, up to 1.5 s.
//
// The offset is estimated as the channel's mean over the last
// offsetBlocks 100 ms blocks (2 s) and taken out of each 10 ms frame's sums:
//
//	sum (x - m)^2 = sum x^2 - 2 m sum x + n m^2
//	peak          = max(max x - m, m - min x)
//
// (under framePeakRate the interpolated values halfway between the samples
// count among the largest and smallest). But only where the mean stands
// out of how the blocks' means scatter about it (a t statistic over the
// blocks, offsetTLow to offsetTHigh, taken in full from there): a mean
// that low tones, rumble or a bass line leave in the window is noise, and
// taking it out would add its square to every quiet frame. So an input
// without an offset is measured as before, to the bit, nearly everywhere.
// The first estimate needs offsetStartBlocks blocks (0.5 s): the frames
// before it are held back (their levels reach the envelope and the voice
// detector then, and the detector's input so far loses the offset at
// once), so that a file that opens on a pause reads it without its offset
// too. A shorter input is estimated from the blocks it has, two or more.
//
// The window is a compromise. An offset can wander (the librivox
// recording's, 0.0067, moves by 0.003 between blocks) or stop (another
// recording joined on): a mean over 4 s lagged, and where librivox's
// offset stopped in plan's TestSplitMP3SamePlans it still added its
// square to the next pause (-52 dBFS read 6 dB louder for a second). A
// mean over 1 s carries more of what tones leave in it (a burst of
// amplitude A at f that starts or stops in a window of T s moves the mean
// by up to A / (pi f T)).
//
// The sample and true peaks stay those of the samples as they are, offset
// and all. The voice detector's input is downmixed with the offset taken
// out too (the network hears at up to 30 dB of gain, where an offset of
// 0.01 would be 0.3).
const (
	offsetBlocks      = 20 // 100 ms blocks averaged
	offsetStartBlocks = 5  // blocks before the first estimate
	offsetMinBlocks   = 2  // blocks an estimate needs (a short input's)
	offsetTLow        = 4.0
	offsetTHigh       = 6.0
)

// offsetTracker estimates the channels' DC offsets and takes them out of
// the frames' sums.
type offsetTracker struct {
	ch     int
	ring   [offsetBlocks][]float64 // per complete block, by index mod offsetBlocks: the channels' sums
	ringN  [offsetBlocks]int64     // and its length in sample frames
	blocks int64                   // complete blocks so far
	cur    []float64               // the current block's complete frames: the channels' sums
	curN   int64                   // and their length in sample frames
	curFr  int                     // and how many 10 ms frames
	mean   []float64               // the offsets taken out (0 where none stands out)
	dc     offsets                 // the offsets of the voice detector's downmixes
	held   []frameSums             // frames waiting for the first estimate
	ready  bool                    // the first estimate is made
	out    []frameLevel            // closeFrame's result

	// The current 10 ms frame (lane.hi and lane.lo: the envelope's
	// largest and smallest values).
	f frameSums
}

// frameSums are a 10 ms frame's sums: of the squares (all channels), and
// per channel of the samples, and the largest and smallest value.
type frameSums struct {
	sq         float64
	n          int64
	sx, hi, lo []float64
}

// frameLevel is a frame's mean square and envelope peak.
type frameLevel struct{ ms, peak float64 }

func newFrameSums(ch int) frameSums {
	f := frameSums{sx: make([]float64, ch), hi: make([]float64, ch), lo: make([]float64, ch)}
	f.reset()
	return f
}

func (f *frameSums) reset() {
	for c := range f.sx {
		f.sx[c], f.hi[c], f.lo[c] = 0, math.Inf(-1), math.Inf(1)
	}
}

func newOffsetTracker(ch int) *offsetTracker {
	t := &offsetTracker{ch: ch, cur: make([]float64, ch), mean: make([]float64, ch), f: newFrameSums(ch)}
	for i := range t.ring {
		t.ring[i] = make([]float64, ch)
	}
	return t
}

// add adds segment k of channel c's lane to the frame.
func (t *offsetTracker) add(c int, l *lane, k int) {
	t.f.sx[c] += l.sx[k]
	t.f.hi[c] = max(t.f.hi[c], l.hi[k])
	t.f.lo[c] = min(t.f.lo[c], l.lo[k])
}

// downmix returns the offsets of the voice detector's downmixes.
func (t *offsetTracker) downmix() offsets { return t.dc }

// clone returns a copy of f that shares nothing with it.
func (f *frameSums) clone() frameSums {
	g := *f
	g.sx, g.hi, g.lo = slices.Clone(f.sx), slices.Clone(f.hi), slices.Clone(f.lo)
	return g
}

// closeFrame takes the frame just closed, whose sum of squares (all
// channels) is sq over n sample frames, and returns the frames now
// measured, oldest first: this one, or none while frames are held, or the
// held ones and this one once the first estimate is made (released is
// then true). A complete frame counts toward the offsets.
func (t *offsetTracker) closeFrame(sq float64, n int64, complete bool) (out []frameLevel, released bool) {
	t.out = t.out[:0]
	t.f.sq, t.f.n = sq, n
	if !t.ready {
		t.held = append(t.held, t.f.clone())
	} else {
		t.out = append(t.out, t.level(&t.f))
	}
	if complete {
		t.addFrame(n)
	}
	t.f.reset()
	if !t.ready && t.blocks >= offsetStartBlocks {
		return t.release(), true
	}
	return t.out, false
}

// flush returns the frames still held (an input shorter than the first
// estimate needs), measured with the offsets of the blocks it has, and
// whether there were any.
func (t *offsetTracker) flush() ([]frameLevel, bool) {
	if t.ready {
		return nil, false
	}
	t.out = t.out[:0]
	if t.blocks >= offsetMinBlocks {
		t.estimate()
	}
	return t.release(), true
}

// release measures the held frames and ends the hold.
func (t *offsetTracker) release() []frameLevel {
	for i := range t.held {
		t.out = append(t.out, t.level(&t.held[i]))
	}
	t.held, t.ready = nil, true
	return t.out
}

// level returns frame f's mean square and envelope peak, the offsets
// taken out.
func (t *offsetTracker) level(f *frameSums) frameLevel {
	sq, fp := f.sq, 0.0
	for c, m := range t.mean {
		if m == 0 {
			fp = max(fp, f.hi[c], -f.lo[c])
			continue
		}
		sq -= 2*m*f.sx[c] - float64(f.n)*m*m
		fp = max(fp, f.hi[c]-m, m-f.lo[c])
	}
	return frameLevel{ms: max(sq, 0) / float64(f.n*int64(t.ch)), peak: fp}
}

// addFrame counts the complete frame just closed (n sample frames).
func (t *offsetTracker) addFrame(n int64) {
	for c := range t.ch {
		t.cur[c] += t.f.sx[c]
	}
	t.curN += n
	if t.curFr++; t.curFr < 10 {
		return
	}
	i := t.blocks % offsetBlocks
	copy(t.ring[i], t.cur)
	t.ringN[i] = t.curN
	t.blocks++
	clear(t.cur)
	t.curN, t.curFr = 0, 0
	if t.blocks >= offsetStartBlocks {
		t.estimate()
	}
}

// estimate sets the offsets from the last offsetBlocks blocks (two or
// more): each channel's mean, as far as it stands out of the scatter of
// the blocks' means. The blocks are summed oldest first, so that the same
// blocks give the same bits however the input was split.
func (t *offsetTracker) estimate() {
	first := max(t.blocks-offsetBlocks, 0)
	k := float64(t.blocks - first)
	for c := range t.ch {
		m, v := t.stats(c, first, t.blocks)
		w := 1.0
		if v > 0 {
			tt := math.Abs(m) * math.Sqrt(k/v)
			w = min(max((tt-offsetTLow)/(offsetTHigh-offsetTLow), 0), 1)
		}
		t.mean[c] = w * m
	}
	s := 0.0
	for _, m := range t.mean {
		s += m
	}
	t.dc.mean = float32(s / float64(t.ch))
	if t.ch == 2 {
		t.dc.side = float32((t.mean[0] - t.mean[1]) / 2)
	}
}

// stats returns channel c's mean over blocks [from, to) and the variance
// of their means about it (0 for one block).
func (t *offsetTracker) stats(c int, from, to int64) (mean, variance float64) {
	var s float64
	var n int64
	for j := from; j < to; j++ {
		s += t.ring[j%offsetBlocks][c]
		n += t.ringN[j%offsetBlocks]
	}
	mean = s / float64(n)
	if to-from < 2 {
		return mean, 0
	}
	for j := from; j < to; j++ {
		d := t.ring[j%offsetBlocks][c]/float64(t.ringN[j%offsetBlocks]) - mean
		variance += d * d
	}
	return mean, variance / float64(to-from-1)
}
