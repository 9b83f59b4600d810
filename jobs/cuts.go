package jobs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// ReasonManual is the reason of a cut of an explicit cut list (PATCH cuts)
// that is not one the detection made as it is.
const ReasonManual = "manual"

// MaxCuts is the longest explicit cut list a PATCH may set, whatever the
// input's duration (apiv1.MaxCutsFor bounds it by the duration too).
const MaxCuts = apiv1.MaxCuts

// sameCutTolerance is how close (seconds) an explicit cut's edges must be
// to a detected cut's for the cut to keep the detected reason: the page
// sends times rounded to the millisecond.
const sameCutTolerance = 0.0005

// makePlan is the plan of a job: the detection's from its params (and
// fillers), or, when the job holds an explicit cut list, exactly those
// cuts (checked against the input's duration, rec.Cuts then holding the
// checked list). rec.Warnings gets the analysis's warnings as they hold
// for the plan.
func (m *Manager) makePlan(ctx context.Context, a *dsp.Analysis, rec *record) (*plan.Plan, error) {
	detected, err := m.planFor(ctx, rec, a, rec.Params, fillerCuts(rec))
	if rec.Cuts == nil {
		rec.Warnings = plan.Warnings(a.Warnings, detected)
		return detected, err
	}
	// The cuts are the caller's: what the analysis found of pauses does
	// not apply.
	rec.Warnings = slices.DeleteFunc(slices.Clone(a.Warnings), func(w string) bool {
		return strings.HasPrefix(w, dsp.WarnNoPauses) || strings.HasPrefix(w, dsp.WarnNoSpeech)
	})
	if err != nil && !errors.Is(err, plan.ErrNothingToKeep) {
		return nil, err
	}
	dur := a.Input.Duration
	if detected != nil && detected.Stats.OriginalSec > 0 {
		dur = detected.Stats.OriginalSec
	}
	cuts, err := checkCuts(rec.Cuts, dur)
	if err != nil {
		return nil, err
	}
	rec.Cuts = cuts
	return explicitPlan(detected, cuts, dur)
}

// checkCuts validates an explicit cut list against the input's duration:
// finite times, each cut inside [0, dur] and longer than zero, sorted and
// not overlapping (touching is allowed). A cut that ends within a
// millisecond past the end is taken to the end.
func checkCuts(cuts []plan.Range, dur float64) ([]plan.Range, error) {
	if n := apiv1.MaxCutsFor(dur); len(cuts) > n {
		return nil, tooManyCuts(len(cuts), dur)
	}
	out := make([]plan.Range, 0, len(cuts))
	prev := 0.0
	for i, c := range cuts {
		switch {
		case math.IsNaN(c.Start) || math.IsNaN(c.End) || math.IsInf(c.Start, 0) || math.IsInf(c.End, 0):
			return nil, invalid("cuts[%d]: start and end must be numbers", i)
		case c.Start < 0:
			return nil, invalid("cuts[%d]: start %g is before the beginning", i, c.Start)
		case c.End > dur+0.001:
			return nil, invalid("cuts[%d]: end %g is past the end of the input (%g s)", i, c.End, dur)
		case c.End <= c.Start:
			return nil, invalid("cuts[%d]: end %g is not after start %g", i, c.End, c.Start)
		case i > 0 && c.Start < prev:
			return nil, invalid("cuts[%d]: starts at %g, before the end of cuts[%d] (%g): cuts must be sorted and must not overlap", i, c.Start, i-1, prev)
		}
		c.End = min(c.End, dur)
		if c.End <= c.Start {
			return nil, invalid("cuts[%d]: starts at the end of the input", i)
		}
		prev = c.End
		out = append(out, c)
	}
	return out, nil
}

// tooManyCuts is the error of a cut list of n cuts over its bound for an
// input of dur seconds (dur < 0: not known yet).
func tooManyCuts(n int, dur float64) error {
	if dur < 0 || apiv1.MaxCutsFor(dur) == MaxCuts {
		return fmt.Errorf("%w: %d cuts, at most %d", apiv1.ErrTooManyCuts, n, MaxCuts)
	}
	return fmt.Errorf("%w: %d cuts, at most %d for this input (one per %g s of its %g s, and at most %d)",
		apiv1.ErrTooManyCuts, n, apiv1.MaxCutsFor(dur), apiv1.MinCutSpacing, dur, MaxCuts)
}

// explicitPlan is the plan holding exactly cuts (already checked): each
// keeps the reason of a detected cut with the same edges, else it is
// "manual"; keeps are the rest of [0, dur]; stats as the planner counts
// them. Times are rounded to the microsecond, like the planner's.
func explicitPlan(detected *plan.Plan, cuts []plan.Range, dur float64) (*plan.Plan, error) {
	r6 := func(x float64) float64 { return math.Round(x*1e6) / 1e6 }
	dur = r6(dur)
	p := &plan.Plan{Cuts: make([]plan.Cut, 0, len(cuts)), Keep: []plan.Range{}}
	var found []plan.Cut
	if detected != nil {
		p.ThresholdDb, p.NoiseFloorDb, p.Params = detected.ThresholdDb, detected.NoiseFloorDb, detected.Params
		found = detected.Cuts
	}
	pos, final := 0.0, 0.0
	for _, c := range cuts {
		cut := plan.Cut{Start: r6(c.Start), End: r6(c.End), Reason: ReasonManual}
		i, _ := slices.BinarySearchFunc(found, cut.Start-sameCutTolerance, func(d plan.Cut, t float64) int {
			switch {
			case d.Start < t:
				return -1
			case d.Start > t:
				return 1
			}
			return 0
		})
		if i < len(found) && math.Abs(found[i].Start-cut.Start) <= sameCutTolerance && math.Abs(found[i].End-cut.End) <= sameCutTolerance {
			cut.Reason = found[i].Reason
		}
		if cut.Start > pos {
			p.Keep = append(p.Keep, plan.Range{Start: pos, End: cut.Start})
			final += cut.Start - pos
		}
		pos = max(pos, cut.End)
		p.Cuts = append(p.Cuts, cut)
	}
	if pos < dur {
		p.Keep = append(p.Keep, plan.Range{Start: pos, End: dur})
		final += dur - pos
	}
	final = r6(final)
	p.Stats = plan.Stats{OriginalSec: dur, FinalSec: final, SavedSec: r6(dur - final), CutsCount: len(p.Cuts)}
	if dur > 0 {
		p.Stats.SavedPct = math.Round((dur-final)/dur*100*1000) / 1000
	}
	if len(p.Keep) == 0 || final <= 0 {
		return p, fmt.Errorf("%w: the cut list removes the whole input", plan.ErrNothingToKeep)
	}
	return p, nil
}
