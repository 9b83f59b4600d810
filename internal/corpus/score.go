package corpus

import (
	"math"
	"slices"
)

// ScoreOptions say which pauses a plan is expected to cut.
type ScoreOptions struct {
	// MinSilence: pauses (lead-in and gaps) at least this long, in
	// seconds, are expected to be cut; shorter ones are ignored.
	MinSilence float64
	// Tol is how far, in seconds, a cut may fall short of a pause's edge
	// and still count as finding it (0.1 is usual).
	Tol float64
	// KeepSilence is the silence the plan was asked to keep per pause, in
	// seconds, as the planner's keepSilenceMs means it: half of it on each
	// side of a pause between two utterances, all of it beside the speech
	// when the pause touches the start or end of the file. It only
	// affects the removable figures.
	KeepSilence float64
}

// Result is how well a list of cuts matches a case's truth.
type Result struct {
	// GapsExpected counts the pauses at least MinSilence long.
	GapsExpected int
	// GapsFound counts the expected pauses that the cut overlapping them
	// most covers up to Tol at each side (or overlaps for all but 2*Tol
	// of their length).
	GapsFound int
	// ClippedMs is the speech the cuts remove, in ms (should be ~0).
	ClippedMs float64
	// BoundaryMedMs and BoundaryP95Ms are the median and 95th percentile
	// of |cut edge - pause edge| over the found pauses, in ms; NaN when no
	// pause was found.
	BoundaryMedMs float64
	BoundaryP95Ms float64 `json:"boundaryP95Ms"`
	// Cuts is the number of cuts scored.
	Cuts int
	// PauseMs is the total length of the expected pauses.
	PauseMs float64
	// RemovableMs is the part of the expected pauses a plan may remove:
	// each pause minus the silence KeepSilence keeps in it.
	RemovableMs float64
	// RemovedMs is how much of RemovableMs the cuts remove, and
	// RemovedFraction that as a fraction of RemovableMs (NaN when nothing
	// is removable).
	RemovedMs       float64
	RemovedFraction float64
	// MarginCutMs is cut time inside expected pauses but outside their
	// removable part: silence KeepSilence asked to keep that was cut.
	MarginCutMs float64
}

// Score compares cuts (sorted or not; from a plan made for t's audio)
// with t. Use KeepSilence 0 and no minimum speech in the plan for the
// boundary figures to mean what they say: the cuts should then match the
// pauses' edges.
func Score(t Truth, cuts []Interval, o ScoreOptions) Result {
	r := Result{Cuts: len(cuts), BoundaryMedMs: math.NaN(), BoundaryP95Ms: math.NaN(), RemovedFraction: math.NaN()}
	var expected []Interval
	for _, g := range t.Silences() {
		if g.Len() >= o.MinSilence {
			expected = append(expected, g)
		}
	}
	r.GapsExpected = len(expected)
	var edges []float64
	for _, g := range expected {
		best, bestOv := -1, -1.0
		for i, c := range cuts {
			if ov := overlap(c, g); ov > bestOv {
				best, bestOv = i, ov
			}
		}
		if best < 0 {
			continue
		}
		c := cuts[best]
		covers := c.Start <= g.Start+o.Tol && c.End >= g.End-o.Tol
		if covers || bestOv >= g.Len()-2*o.Tol {
			r.GapsFound++
			edges = append(edges, math.Abs(c.Start-g.Start), math.Abs(c.End-g.End))
		}
	}
	for _, c := range cuts {
		for _, s := range t.Speech {
			r.ClippedMs += 1000 * overlap(c, s)
		}
	}
	if len(edges) > 0 {
		slices.Sort(edges)
		n := len(edges)
		med := edges[n/2]
		if n%2 == 0 {
			med = (edges[n/2-1] + edges[n/2]) / 2
		}
		r.BoundaryMedMs = 1000 * med
		r.BoundaryP95Ms = 1000 * P95(edges)
	}

	merged := union(cuts)
	const eps = 1e-9
	for _, g := range expected {
		r.PauseMs += 1000 * g.Len()
		rem := Interval{g.Start + o.KeepSilence/2, g.End - o.KeepSilence/2}
		atStart, atEnd := g.Start <= eps, g.End >= t.Duration-eps
		switch {
		case atStart && atEnd:
			rem = g
		case atStart:
			rem = Interval{g.Start, g.End - o.KeepSilence}
		case atEnd:
			rem = Interval{g.Start + o.KeepSilence, g.End}
		}
		var inPause, inRem float64
		for _, c := range merged {
			inPause += overlap(c, g)
			if rem.Len() > 0 {
				inRem += overlap(c, rem)
			}
		}
		if rem.Len() > 0 {
			r.RemovableMs += 1000 * rem.Len()
		}
		r.RemovedMs += 1000 * inRem
		r.MarginCutMs += 1000 * (inPause - inRem)
	}
	if r.RemovableMs > 0 {
		r.RemovedFraction = r.RemovedMs / r.RemovableMs
	}
	return r
}

// union returns the cuts sorted with overlapping ones merged, so that no
// time is counted twice.
func union(cuts []Interval) []Interval {
	s := slices.Clone(cuts)
	slices.SortFunc(s, byStart)
	var out []Interval
	for _, c := range s {
		if c.End <= c.Start {
			continue
		}
		if n := len(out); n > 0 && c.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, c.End)
			continue
		}
		out = append(out, c)
	}
	return out
}

// P95 returns the 95th percentile of v as the corpus scores take it: the
// value at index 0.95 (n-1), rounded down, of v sorted (v is not
// changed); NaN when v is empty.
func P95(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[int(0.95*float64(len(v)-1))]
}
