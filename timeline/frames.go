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

// FrameList puts keep ranges (seconds) on the frame grid of rate, in the
// order given. A range's record edges are the plan's running total (the
// kept time before each edge) rounded to the nearest frame, so record
// positions stay within half a frame of the cut's own (its render) however
// many clips there are; its record duration (out - in) is its length in
// frames, and its source range is that many frames centred on the range's
// own (each source edge within a frame, most within half). Ranges are
// first clamped to the media's last whole frame (mediaSec); ranges that
// touch or overlap on the source after snapping are merged (one clip, its
// record length the kept time of both) and empty ones dropped. Record
// positions run on from clip to clip: each clip's record in is the last
// one's record out.
func FrameList(keep []dsp.Range, rate dsp.Rational, mediaSec float64) []Segment {
	if rate.Num <= 0 || rate.Den <= 0 {
		return nil
	}
	last := lastFrame(mediaSec, rate)
	fps := float64(rate.Num) / float64(rate.Den)
	end := float64(last) / fps
	var out []Segment
	var spanIn []float64 // each segment's source start in frames (of the first range merged into it)
	var kept float64     // the plan's running total, seconds
	prevEnd := 0.0       // source time before it is kept already: an overlapping range keeps the rest
	for _, r := range keep {
		s, t := max(r.Start, prevEnd), min(r.End, end)
		if !(t > s) {
			continue
		}
		prevEnd = t
		recIn := recFrame(kept, fps)
		kept += t - s
		recOut := recFrame(kept, fps)
		if recOut <= recIn {
			continue // under a frame: dropped; the next clip's record in is this one's
		}
		in, o := s*fps, t*fps
		seg := Segment{RecIn: recIn, RecOut: recOut}
		place := func(in, o float64) {
			n := seg.RecOut - seg.RecIn
			seg.SrcIn = min(max(int64(math.Floor((in+o-float64(n))/2+0.5)), 0), last-n)
			seg.SrcOut = seg.SrcIn + n
		}
		place(in, o)
		// Merge into the segments before it while their sources touch
		// or overlap.
		for n := len(out); n > 0 && seg.SrcIn <= out[n-1].SrcOut; n = len(out) {
			in = spanIn[n-1]
			seg.RecIn = out[n-1].RecIn
			out, spanIn = out[:n-1], spanIn[:n-1]
			place(in, o)
		}
		out, spanIn = append(out, seg), append(spanIn, in)
	}
	return out
}

// recFrame is the record frame nearest the running total kept seconds; a
// total half-way between two frames takes the earlier one (so that a
// clip's record length is its source length rounded down at a tie, as the
// source edges, rounded up at a tie, give it).
func recFrame(kept, fps float64) int64 {
	return int64(math.Ceil(kept*fps - 0.5))
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
