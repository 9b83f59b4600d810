package jobs

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/plan"
)

// TestFlowExplicitCuts: a PATCH with a cut list makes a plan of exactly
// those cuts (detected ones keep their reason, others are manual), stats
// from them, and renders; an export-only PATCH keeps the list, a params
// PATCH plans from the detection again; bad lists are refused and change
// nothing.
func TestFlowExplicitCuts(t *testing.T) {
	m := testManager(t, t.TempDir(), &gateEngine{}, nil)
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "talk.wav"}, fakeMedia(10))
	if err != nil {
		t.Fatal(err)
	}
	done := isStatus(apiv1.StatusDone)
	j = waitJob(t, m, "o", j.ID, 10*time.Second, done)
	detected := j.Plan.Cuts
	if len(detected) != 5 {
		t.Fatalf("detected %+v", detected)
	}
	cuts := []apiv1.Range{{Start: 1, End: 2}, {Start: 2.5, End: 2.75}, {Start: 5, End: 6}, {Start: 9.5, End: 10}}
	j, err = m.Update(ctx, "o", j.ID, apiv1.Patch{Cuts: &cuts, Action: "export"})
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, done)
	want := []apiv1.Cut{{Start: 1, End: 2, Reason: plan.ReasonSilence}, {Start: 2.5, End: 2.75, Reason: ReasonManual},
		{Start: 5, End: 6, Reason: plan.ReasonSilence}, {Start: 9.5, End: 10, Reason: ReasonManual}}
	if diff := cmp.Diff(want, j.Plan.Cuts); diff != "" {
		t.Errorf("plan cuts (-want +got):\n%s", diff)
	}
	wantKeep := []apiv1.Range{{Start: 0, End: 1}, {Start: 2, End: 2.5}, {Start: 2.75, End: 5}, {Start: 6, End: 9.5}}
	if diff := cmp.Diff(wantKeep, j.Plan.Keep); diff != "" {
		t.Errorf("plan keeps (-want +got):\n%s", diff)
	}
	s := j.Plan.Stats
	if s.OriginalSec != 10 || s.FinalSec != 7.25 || s.SavedSec != 2.75 || s.SavedPct != 27.5 || s.CutsCount != 4 {
		t.Errorf("stats %+v", s)
	}
	if j.Output == nil || j.Output.Duration != 7.25 {
		t.Errorf("output %+v, want 7.25 s (10 s less the 2.75 s of cuts)", j.Output)
	}

	// export only: the list stays.
	wav := "wav"
	j, err = m.Update(ctx, "o", j.ID, apiv1.Patch{Export: &apiv1.ExportInput{Format: &wav}, Action: "export"})
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, done)
	if diff := cmp.Diff(want, j.Plan.Cuts); diff != "" || j.Output.Format != "wav" {
		t.Errorf("after an export-only PATCH (-want +got):\n%s", diff)
	}

	// refused lists change nothing.
	for _, c := range []struct {
		name string
		cuts []apiv1.Range
		err  error
	}{
		{"unsorted", []apiv1.Range{{Start: 5, End: 6}, {Start: 1, End: 2}}, plan.ErrInvalidParams},
		{"overlapping", []apiv1.Range{{Start: 1, End: 3}, {Start: 2, End: 4}}, plan.ErrInvalidParams},
		{"past the end", []apiv1.Range{{Start: 9, End: 10.5}}, plan.ErrInvalidParams},
		{"before the start", []apiv1.Range{{Start: -1, End: 1}}, plan.ErrInvalidParams},
		{"empty cut", []apiv1.Range{{Start: 2, End: 2}}, plan.ErrInvalidParams},
		{"everything", []apiv1.Range{{Start: 0, End: 4}, {Start: 4, End: 10}}, plan.ErrNothingToKeep},
	} {
		if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Cuts: &c.cuts, Action: "export"}); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Cuts: &cuts, Action: "transcribe"}); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("cuts with transcribe: %v", err)
	}
	if j2, _ := m.Get(ctx, "o", j.ID); j2.Status != apiv1.StatusDone || cmp.Diff(want, j2.Plan.Cuts) != "" {
		t.Errorf("a refused PATCH changed the job: %+v", j2.Plan.Cuts)
	}

	// an empty list keeps everything.
	none := []apiv1.Range{}
	j, err = m.Update(ctx, "o", j.ID, apiv1.Patch{Cuts: &none, Action: "export"})
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, done)
	if len(j.Plan.Cuts) != 0 || j.Plan.Stats.FinalSec != 10 || math.Abs(j.Output.Duration-10) > 1e-9 {
		t.Errorf("empty list: cuts %+v, stats %+v", j.Plan.Cuts, j.Plan.Stats)
	}

	// params: planned from the detection again.
	j, err = m.Update(ctx, "o", j.ID, apiv1.Patch{Params: &apiv1.ParamsInput{MinSilenceSec: ptr(0.6)}, Action: "export"})
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, done)
	if diff := cmp.Diff(detected, j.Plan.Cuts); diff != "" {
		t.Errorf("after a params PATCH the plan is not the detection's (-want +got):\n%s", diff)
	}
}

// TestExplicitPlanReasons: a cut keeps a detected reason only when both of
// its edges are within half a millisecond of the detected cut's.
func TestExplicitPlanReasons(t *testing.T) {
	detected := &plan.Plan{Cuts: []plan.Cut{{Start: 1, End: 2, Reason: plan.ReasonSilence}, {Start: 4, End: 4.5, Reason: plan.ReasonFiller}}, ThresholdDb: -40}
	p, err := explicitPlan(detected, []plan.Range{{Start: 1.0004, End: 1.9996}, {Start: 4, End: 4.6}, {Start: 7, End: 8}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, c := range p.Cuts {
		reasons = append(reasons, c.Reason)
	}
	if diff := cmp.Diff([]string{plan.ReasonSilence, ReasonManual, ReasonManual}, reasons); diff != "" || p.ThresholdDb != -40 {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	if _, err := checkCuts([]plan.Range{{Start: 9, End: 10.0008}}, 10); err != nil {
		t.Errorf("an end within a millisecond past the end: %v", err)
	}
}
