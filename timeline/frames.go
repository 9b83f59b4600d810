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

// FrameList snaps keep ranges (seconds) to the frame grid of rate. A
// segment's source in is the nearest frame to its start, clamped to the
// media; record positions are the plan's running total of kept time,
// rounded to the nearest frame (never sums of separately rounded clips,
// which drift), and each segment's duration is the difference of
// consecutive record positions, so every record edge lies within half a
// frame of the plan's running total. Source outs follow from the duration,
// clamped to the media's last whole frame (mediaSec); segments that touch
// after snapping are merged and empty ones dropped.
func FrameList(keep []dsp.Range, rate dsp.Rational, mediaSec float64) []Segment {
	if rate.Num <= 0 || rate.Den <= 0 {
		return nil
	}
	return frameList(keep, rate, lastFrame(mediaSec, rate))
}

// frameList is FrameList with the media's extent in whole frames.
func frameList(keep []dsp.Range, rate dsp.Rational, last int64) []Segment {
	fps := float64(rate.Num) / float64(rate.Den)
	end := float64(last) / fps // the media's extent, seconds
	var out []Segment
	var rec int64     // record position written so far, frames
	var total float64 // the plan's running total of kept time, seconds
	for _, r := range keep {
		st, en := max(r.Start, 0), min(r.End, end)
		if !(en > st) {
			continue
		}
		total += en - st
		// The rounded cumulative record position; a tie rounds down, as the
		// source in (SecToFrame) rounds up, so a clip ending on a kept
		// range's last frame does not take the next one.
		target := int64(math.Ceil(total*fps - 0.5))
		in := SecToFrame(st, rate)
		if n := len(out); n > 0 && in <= out[n-1].SrcOut {
			// Touches (or, by a frame of rounding, overlaps) the previous
			// segment in the source: one segment, extended to the target.
			p := &out[n-1]
			if add := min(target-rec, last-p.SrcOut); add > 0 {
				p.SrcOut += add
				p.RecOut += add
				rec += add
			}
			continue
		}
		n := min(target-rec, last-in)
		if n <= 0 {
			continue
		}
		out = append(out, Segment{SrcIn: in, SrcOut: in + n, RecIn: rec, RecOut: rec + n})
		rec += n
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
