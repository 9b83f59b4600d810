package transcode

import (
	"io"
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// A stage is a dsp.Source that wraps another: stages compose into the
// render chain (decode -> keep ranges -> rumble -> denoise -> gain -> limiter).

// stageBufFrames is how many frames a stage pulls from its input at a time.
const stageBufFrames = 4096

// keepSource passes through only the kept ranges of its input, sample-accurate,
// with a raised-cosine fade at every cut edge so no cut makes a step.
type keepSource struct {
	src    dsp.Source
	ch     int
	spans  [][2]int64 // kept [start, end) in sample frames, sorted, disjoint, non-touching
	total  int64      // input length in frames (for "is there a cut after the last span")
	fade   int64      // fade length in frames
	pos    int64      // input frames consumed
	idx    int        // current span
	in     []float32
	inN    int // samples in in
	inOff  int // samples of in already used
	eof    bool
	outPos int64 // frames written
	// skip output frames are dropped before the first one written, and at
	// most left are written (-1: all): a window of the output, for
	// encoding it in parts. The fades stay those of the whole output.
	skip, left int64
}

// spansOf turns keep ranges into sample spans at rate: each edge rounded to
// the nearest sample once, touching or overlapping spans merged, empty dropped.
func spansOf(keep []dsp.Range, rate int) [][2]int64 {
	var out [][2]int64
	for _, r := range keep {
		s := int64(math.Round(r.Start * float64(rate)))
		e := int64(math.Round(r.End * float64(rate)))
		if s < 0 {
			s = 0
		}
		if e <= s {
			continue
		}
		if n := len(out); n > 0 && s <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], e)
			continue
		}
		out = append(out, [2]int64{s, e})
	}
	return out
}

// framesOf returns the number of frames spans hold.
func framesOf(spans [][2]int64) int64 {
	var n int64
	for _, s := range spans {
		n += s[1] - s[0]
	}
	return n
}

func newKeepSource(src dsp.Source, spans [][2]int64, totalFrames int64, fadeSec float64) *keepSource {
	f := src.Format()
	return &keepSource{
		src: src, ch: f.Channels, spans: spans, total: totalFrames,
		fade: max(1, int64(math.Round(fadeSec*float64(f.SampleRate)))),
		in:   make([]float32, stageBufFrames*f.Channels),
		left: -1,
	}
}

// window limits k to the output frames [from, to) (to < 0: to the end).
func (k *keepSource) window(from, to int64) {
	k.skip, k.left = from, -1
	if to >= 0 {
		k.left = max(0, to-from)
	}
}

func (k *keepSource) Format() dsp.Format { return k.src.Format() }

// jump passes over the input up to the window's first frame without
// reading it where the input can (dsp.Skip: a WAV file's samples are not
// converted).
func (k *keepSource) jump() error {
	target, out := int64(0), int64(0)
	for _, sp := range k.spans {
		if n := sp[1] - sp[0]; out+n > k.skip {
			target = sp[0] + k.skip - out
			break
		}
		out += sp[1] - sp[0]
	}
	if target == 0 {
		return nil
	}
	got, err := dsp.Skip(k.src, target)
	if err != nil {
		return err
	}
	if got < target {
		k.eof = true
	}
	// The output frames before got are skipped.
	for _, sp := range k.spans {
		k.skip -= max(0, min(got, sp[1])-sp[0])
	}
	k.pos = got
	return nil
}

// gainAt is the fade gain of input frame p inside span sp.
func (k *keepSource) gainAt(p int64, sp [2]int64) float32 {
	fl := min(k.fade, (sp[1]-sp[0])/2)
	if fl <= 0 {
		return 1
	}
	g := float32(1)
	if sp[0] > 0 && p-sp[0] < fl { // a cut before: fade in
		g = raisedCosine(p-sp[0], fl)
	}
	if (k.total <= 0 || sp[1] < k.total) && sp[1]-1-p < fl { // a cut after: fade out
		g = min(g, raisedCosine(sp[1]-1-p, fl))
	}
	return g
}

// raisedCosine rises from near 0 to near 1 over n steps (i = 0..n-1).
func raisedCosine(i, n int64) float32 {
	return float32(0.5 - 0.5*math.Cos(math.Pi*(float64(i)+0.5)/float64(n)))
}

func (k *keepSource) Read(p []float32) (int, error) {
	ch := k.ch
	n := 0
	if k.skip > 0 && k.pos == 0 && k.inN == 0 && !k.eof {
		if err := k.jump(); err != nil {
			return 0, err
		}
	}
	for n+ch <= len(p) && k.left != 0 {
		if k.idx >= len(k.spans) {
			break
		}
		if k.inOff >= k.inN {
			if k.eof {
				break
			}
			m, err := k.src.Read(k.in)
			k.inN, k.inOff = m, 0
			if err == io.EOF {
				k.eof = true
			} else if err != nil {
				return n, err
			}
			if m == 0 {
				continue
			}
		}
		sp := k.spans[k.idx]
		if k.pos >= sp[1] {
			k.idx++
			continue
		}
		avail := int64((k.inN - k.inOff) / ch)
		if k.pos < sp[0] { // inside a cut: skip input
			d := min(avail, sp[0]-k.pos)
			k.inOff += int(d) * ch
			k.pos += d
			continue
		}
		if k.skip > 0 { // before the window: skip output
			d := min(avail, sp[1]-k.pos, k.skip)
			k.inOff += int(d) * ch
			k.pos += d
			k.skip -= d
			continue
		}
		d := min(avail, sp[1]-k.pos, int64((len(p)-n)/ch))
		if k.left > 0 {
			d = min(d, k.left)
			k.left -= d
		}
		src := k.in[k.inOff : k.inOff+int(d)*ch]
		dst := p[n : n+int(d)*ch]
		fl := min(k.fade, (sp[1]-sp[0])/2)
		if k.pos-sp[0] >= fl && sp[1]-(k.pos+d) >= fl {
			copy(dst, src) // no fade in this stretch
		} else {
			for f := int64(0); f < d; f++ {
				g := k.gainAt(k.pos+f, sp)
				for c := 0; c < ch; c++ {
					dst[int(f)*ch+c] = src[int(f)*ch+c] * g
				}
			}
		}
		k.inOff += int(d) * ch
		k.pos += d
		n += int(d) * ch
	}
	k.outPos += int64(n / ch)
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// highPassSections returns a 4th-order Butterworth high-pass at fc Hz as two biquads.
func highPassSections(fc float64, rate int) []dsp.Biquad {
	secs := dsp.HighPass4(fc, rate) // the planner's levels after the rumble filter are measured through the same
	return secs[:]
}

// filterSource runs each channel through a cascade of biquads.
type filterSource struct {
	src   dsp.Source
	ch    int
	secs  []dsp.Biquad
	state [][4]float64 // per channel per section: x1, x2, y1, y2
}

// newHighPass returns src through a 70 Hz (fc) 4th-order Butterworth high-pass.
func newHighPass(src dsp.Source, fc float64) *filterSource {
	f := src.Format()
	secs := highPassSections(fc, f.SampleRate)
	return &filterSource{src: src, ch: f.Channels, secs: secs, state: make([][4]float64, f.Channels*len(secs))}
}

func (h *filterSource) Format() dsp.Format { return h.src.Format() }

func (h *filterSource) Read(p []float32) (int, error) {
	n, err := h.src.Read(p)
	c := 0
	if len(h.secs) == 2 {
		for ; c+1 < h.ch; c += 2 {
			h.pair(p[:n], c)
		}
	}
	for ; c < h.ch; c++ {
		for s := range h.secs {
			h.one(p[:n], c, s)
		}
	}
	for i := range h.state {
		for j, v := range h.state[i] {
			if math.Abs(v) < 1e-30 { // no denormal arithmetic on silence
				h.state[i][j] = 0
			}
		}
	}
	return n, err
}

// one runs channel c of p through section s.
func (h *filterSource) one(p []float32, c, s int) {
	q := h.secs[s]
	st := &h.state[c*len(h.secs)+s]
	x1, x2, y1, y2 := st[0], st[1], st[2], st[3]
	for i := c; i < len(p); i += h.ch {
		x := float64(p[i])
		y := q.B0*x + q.B1*x1 + q.B2*x2 - q.A1*y1 - q.A2*y2
		x2, x1, y2, y1 = x1, x, y1, y
		p[i] = float32(y)
	}
	st[0], st[1], st[2], st[3] = x1, x2, y1, y2
}

// pair runs channels c and c+1 of p through both sections in one loop:
// the four recursions are independent and overlap in the CPU.
func (h *filterSource) pair(p []float32, c int) {
	q, r := h.secs[0], h.secs[1]
	sa, sb := &h.state[c*2], &h.state[c*2+1]     // channel c, sections 0 and 1
	ta, tb := &h.state[c*2+2], &h.state[c*2+3]   // channel c+1
	a1, a2, a3, a4 := sa[0], sa[1], sa[2], sa[3] // x1 x2 y1 y2
	b1, b2, b3, b4 := sb[0], sb[1], sb[2], sb[3]
	c1, c2, c3, c4 := ta[0], ta[1], ta[2], ta[3]
	d1, d2, d3, d4 := tb[0], tb[1], tb[2], tb[3]
	for i := c; i+1 < len(p); i += h.ch {
		x, w := float64(p[i]), float64(p[i+1])
		y := q.B0*x + q.B1*a1 + q.B2*a2 - q.A1*a3 - q.A2*a4
		v := q.B0*w + q.B1*c1 + q.B2*c2 - q.A1*c3 - q.A2*c4
		a2, a1, a4, a3 = a1, x, a3, y
		c2, c1, c4, c3 = c1, w, c3, v
		z := r.B0*y + r.B1*b1 + r.B2*b2 - r.A1*b3 - r.A2*b4
		u := r.B0*v + r.B1*d1 + r.B2*d2 - r.A1*d3 - r.A2*d4
		b2, b1, b4, b3 = b1, y, b3, z
		d2, d1, d4, d3 = d1, v, d3, u
		p[i], p[i+1] = float32(z), float32(u)
	}
	*sa, *sb, *ta, *tb = [4]float64{a1, a2, a3, a4}, [4]float64{b1, b2, b3, b4}, [4]float64{c1, c2, c3, c4}, [4]float64{d1, d2, d3, d4}
}

// gainSource multiplies every sample by a constant gain.
type gainSource struct {
	src  dsp.Source
	gain float32
}

func (g *gainSource) Format() dsp.Format { return g.src.Format() }

func (g *gainSource) Read(p []float32) (int, error) {
	n, err := g.src.Read(p)
	for i := range p[:n] {
		p[i] *= g.gain
	}
	return n, err
}

// countSource counts frames passing through and reports progress.
type countSource struct {
	src      dsp.Source
	frames   int64
	total    int64
	progress dsp.Progress
	last     float64
}

func (c *countSource) Format() dsp.Format { return c.src.Format() }

func (c *countSource) Read(p []float32) (int, error) {
	n, err := c.src.Read(p)
	c.frames += int64(n / c.src.Format().Channels)
	if c.progress != nil && c.total > 0 {
		f := min(float64(c.frames)/float64(c.total), 1)
		if f-c.last >= 0.005 || f == 1 {
			c.progress(f)
			c.last = f
		}
	}
	return n, err
}
