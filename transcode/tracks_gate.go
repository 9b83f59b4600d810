package transcode

import (
	"fmt"
	"math"
	"slices"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// The bleed gate (export.gateBleed, `autocut cut --gate-bleed`): on one
// microphone per person, each track also hears the others' voices, 10-25
// dB down and a few milliseconds late, which colours the mix like a room.
// A gated track is turned down by gateBleedDb wherever it does not speak
// its own voice (outside Track.Owned, plan.OwnedSpeech's ranges): its
// bleed and its bed between its turns. The gain moves along a raised
// cosine of gateFadeMs, outside the owned ranges after gateHoldMs of
// hold, so that the owned speech is never turned down and an edge makes
// no click.

const (
	// gateBleedDb is how far a gated track is turned down outside its
	// own speech.
	gateBleedDb = 20.0
	// gateHoldMs is how long the gate stays open past each end of an
	// owned range (a word's soft onset and tail, which the 10 ms
	// analysis frames may miss).
	gateHoldMs = 20.0
	// gateFadeMs is the length of the gain's ramp between open and
	// closed, beyond the hold.
	gateFadeMs = 15.0
)

// gateSpans returns the owned ranges at rate as sorted, disjoint frame
// spans, each widened by the hold; spans the ramps would join (less than
// two fades apart) are one. Ranges that are not time ranges are refused.
func gateSpans(owned []dsp.Range, rate int) ([][2]int64, error) {
	rs := slices.Clone(owned)
	for i, r := range rs {
		if math.IsNaN(r.Start) || math.IsNaN(r.End) || math.IsInf(r.Start, 0) || math.IsInf(r.End, 0) || r.End < r.Start {
			return nil, fmt.Errorf("%w: gate: owned range %d [%v, %v] is not a time range", plan.ErrInvalidParams, i, r.Start, r.End)
		}
	}
	slices.SortFunc(rs, func(a, b dsp.Range) int { return cmpFloat(a.Start, b.Start) })
	hold := int64(math.Round(gateHoldMs / 1000 * float64(rate)))
	fade := gateFrames(rate)
	var out [][2]int64
	for _, r := range rs {
		s := int64(math.Floor(r.Start*float64(rate))) - hold
		e := int64(math.Ceil(r.End*float64(rate))) + hold
		if e <= s {
			continue
		}
		if n := len(out); n > 0 && s-out[n-1][1] < 2*fade {
			out[n-1][1] = max(out[n-1][1], e)
			continue
		}
		out = append(out, [2]int64{s, e})
	}
	return out, nil
}

// gateFrames is gateFadeMs in frames at rate (one at least).
func gateFrames(rate int) int64 {
	return max(int64(math.Round(gateFadeMs/1000*float64(rate))), 1)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// gateSource turns src down by gateBleedDb outside spans (frames from
// the source's start; gateSpans), with raised-cosine ramps of fade
// frames outside the spans. Its position follows Read and Skip, so that
// the render's cuts (skips) keep it aligned with the recording's time.
type gateSource struct {
	src   dsp.Source
	spans [][2]int64
	fade  int64
	floor float32
	pos   int64
	next  int // the first span that does not end a fade or more before pos
}

func newGateSource(src dsp.Source, owned []dsp.Range) (*gateSource, error) {
	rate := src.Format().SampleRate
	spans, err := gateSpans(owned, rate)
	if err != nil {
		return nil, err
	}
	return &gateSource{src: src, spans: spans, fade: gateFrames(rate), floor: float32(math.Pow(10, -gateBleedDb/20))}, nil
}

func (g *gateSource) Format() dsp.Format { return g.src.Format() }

// gain is the gate's gain at frame f, which is at or past the frame of
// the previous call.
func (g *gateSource) gain(f int64) float32 {
	for g.next < len(g.spans) && g.spans[g.next][1]+g.fade <= f {
		g.next++
	}
	if g.next == len(g.spans) {
		return g.floor
	}
	s, e := g.spans[g.next][0], g.spans[g.next][1]
	var d int64 // frames from the span
	switch {
	case f < s:
		d = s - f
	case f >= e:
		d = f - e + 1
	default:
		return 1
	}
	if d >= g.fade {
		return g.floor
	}
	x := 0.5 * (1 + math.Cos(math.Pi*float64(d)/float64(g.fade)))
	return g.floor + (1-g.floor)*float32(x)
}

func (g *gateSource) Read(p []float32) (int, error) {
	n, err := g.src.Read(p)
	ch := g.src.Format().Channels
	for f := 0; f < n/ch; f++ {
		v := g.gain(g.pos + int64(f))
		if v == 1 {
			continue
		}
		for c := range ch {
			p[f*ch+c] *= v
		}
	}
	g.pos += int64(n / ch)
	return n, err
}

// Skip passes over n frames of the source.
func (g *gateSource) Skip(n int64) (int64, error) {
	got, err := dsp.Skip(g.src, n)
	g.pos += got
	return got, err
}
