package timeline

import (
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// Segment is one kept range on the frame grid, in frames at the edit rate:
// source in/out (out exclusive) and record in/out on the cut timeline.
type Segment struct {
	SrcIn, SrcOut, RecIn, RecOut int64
}

// Len returns the segment's duration in frames.
func (s Segment) Len() int64 { return s.SrcOut - s.SrcIn }

// FrameList snaps keep ranges (seconds) to the frame grid of rate: both edges
// are snapped to the nearest frame and the duration derived (out - in), never
// rounded separately; edges are clamped to the media's last whole frame
// (mediaSec); segments that touch after snapping are merged and empty ones
// dropped; record positions are running sums of frame durations.
func FrameList(keep []dsp.Range, rate dsp.Rational, mediaSec float64) []Segment {
	if rate.Num <= 0 || rate.Den <= 0 {
		return nil
	}
	last := lastFrame(mediaSec, rate)
	var out []Segment
	var rec int64
	for _, r := range keep {
		in := SecToFrame(r.Start, rate)
		o := SecToFrame(r.End, rate)
		in, o = max(in, 0), min(o, last)
		if o <= in {
			continue
		}
		if n := len(out); n > 0 && in <= out[n-1].SrcOut {
			if o > out[n-1].SrcOut {
				rec += o - out[n-1].SrcOut
				out[n-1].SrcOut = o
				out[n-1].RecOut = rec
			}
			continue
		}
		out = append(out, Segment{SrcIn: in, SrcOut: o, RecIn: rec, RecOut: rec + o - in})
		rec += o - in
	}
	return out
}

// lastFrame is the media's length in whole frames at rate: floor(mediaSec
// * rate), with a small tolerance for durations that are a whole number of
// frames in floating point. FrameList clamps to it and the writers declare
// it as the media's extent: one computation, so no clip passes the extent.
func lastFrame(mediaSec float64, rate dsp.Rational) int64 {
	return int64(math.Floor(mediaSec*float64(rate.Num)/float64(rate.Den) + 1e-6))
}

// SecToFrame returns the nearest frame index at rate for t seconds.
func SecToFrame(t float64, rate dsp.Rational) int64 {
	return int64(math.Round(t * float64(rate.Num) / float64(rate.Den)))
}

// FrameToSec returns the time in seconds of frame f at rate.
func FrameToSec(f int64, rate dsp.Rational) float64 {
	return float64(f) * float64(rate.Den) / float64(rate.Num)
}
