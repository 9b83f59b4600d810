package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
	"github.com/autocut-dev/autocut/transcribe"
)

// sameJSON fails when a and b marshal differently.
func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: %v %v", what, err1, err2)
	}
	if d := cmp.Diff(string(ja), string(jb)); d != "" {
		t.Errorf("%s: library and wire JSON differ (-library +wire):\n%s", what, d)
	}
}

// arraysNotNull is v's JSON with its null arrays (cuts, keep, words,
// fillers) written [].
func arraysNotNull(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cuts", "keep", "words", "fillers"} {
		b = bytes.ReplaceAll(b, []byte(`"`+k+`":null`), []byte(`"`+k+`":[]`))
	}
	return b
}

// TestWireJSON checks that apiv1's types show the library's values with
// the JSON the library types had on the wire (so that no field changed
// when the API moved onto apiv1).
func TestWireJSON(t *testing.T) {
	th := -42.5
	p := &plan.Plan{
		Cuts:        []plan.Cut{{Start: 1, End: 2, Reason: plan.ReasonSilence}, {Start: 3, End: 3.5, Reason: plan.ReasonFiller}},
		Keep:        []dsp.Range{{Start: 0, End: 1}, {Start: 2, End: 3}, {Start: 3.5, End: 9}},
		Stats:       plan.Stats{OriginalSec: 9, FinalSec: 7.5, SavedSec: 1.5, SavedPct: 16.667, CutsCount: 2},
		ThresholdDb: -42.5, NoiseFloorDb: -71,
		Params: plan.Params{ThresholdDb: &th, MinSilenceSec: 0.6, KeepSilenceMs: 250, MinSpeechMs: 120, Crosstalk: plan.CrosstalkCut},
	}
	sameJSON(t, "plan", p, wirePlan(p))
	// Empty arrays are one difference: the library writes null, the wire
	// [] (the contract types them as arrays). The other: an unset
	// crosstalk (omitted by the library) shows as its default, keep.
	keep := plan.Params{Crosstalk: plan.CrosstalkKeep}
	sameJSON(t, "empty plan", arraysNotNull(t, &plan.Plan{Params: keep}), wirePlan(&plan.Plan{}))
	sameJSON(t, "params without threshold", plan.Params{MinSilenceSec: 1, Crosstalk: plan.CrosstalkKeep}, wireParams(plan.Params{MinSilenceSec: 1}))
	if wirePlan(nil) != nil || wireTranscript(nil) != nil {
		t.Error("nil not kept")
	}
	tr := &transcribe.Transcript{Status: apiv1.TranscriptDone, Language: "en", Engine: "whisper",
		Words: []transcribe.Word{{Word: "um", Start: 1, End: 1.2, Confidence: 0.9}},
		Fillers: []transcribe.Filler{{ID: 0, Word: "um", Start: 1, End: 1.2, Kind: "filler", Confidence: 0.9, Cut: true, Review: transcribe.ReviewAccept},
			{ID: 1, Word: "uh", Start: 2, End: 2.2, Kind: "filler", Confidence: 0.3}},
		AutoCutConfidence: ptr(0.8), Warning: "the language was assumed"}
	sameJSON(t, "transcript", tr, wireTranscript(tr))
	sameJSON(t, "pending transcript", arraysNotNull(t, &transcribe.Transcript{Status: apiv1.TranscriptPending}), wireTranscript(&transcribe.Transcript{Status: apiv1.TranscriptPending}))
	// The copy is deep: changing the view leaves the plan alone.
	w := wirePlan(p)
	w.Cuts[0].Start, *w.Params.ThresholdDb = 99, 0
	if p.Cuts[0].Start != 1 || *p.Params.ThresholdDb != -42.5 {
		t.Error("wirePlan shares storage with the plan")
	}
}

// TestErrorCode checks the one mapping of errors to codes: the library
// packages' sentinels through the table, apiv1's through their own codes,
// the outermost apiv1 error first, everything else internal.
func TestErrorCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want apiv1.ErrorCode
	}{
		{nil, ""},
		{fmt.Errorf("x: %w", dsp.ErrUnsupportedFormat), apiv1.CodeUnsupportedFormat},
		{fmt.Errorf("x: %w", dsp.ErrTooLong), apiv1.CodeTooLong},
		{fmt.Errorf("x: %w", plan.ErrNothingToKeep), apiv1.CodeNothingToKeep},
		{fmt.Errorf("x: %w", plan.ErrInvalidParams), apiv1.CodeInvalidParameter},
		{fmt.Errorf("x: %w", timeline.ErrInvalidOptions), apiv1.CodeInvalidParameter},
		{fmt.Errorf("x: %w", timeline.ErrTooManyEvents), apiv1.CodeTooManyEvents},
		{fmt.Errorf("x: %w", timeline.ErrNoWholeFrame), apiv1.CodeNothingToKeep},
		{fmt.Errorf("x: %w", transcribe.ErrUnavailable), apiv1.CodeTranscriptionUnavailable},
		{fmt.Errorf("x: %w", apiv1.ErrOriginalExpired), apiv1.CodeOriginalExpired},
		{fmt.Errorf("%w: %w", apiv1.ErrRenderFailed, errors.New("ffmpeg: exit 1")), apiv1.CodeRenderFailed},
		{fmt.Errorf("%w: %w", apiv1.ErrTranscriptionFailed, dsp.ErrUnsupportedFormat), apiv1.CodeTranscriptionFailed},
		{errors.New("disk full"), apiv1.CodeInternal},
	} {
		if got := ErrorCode(tc.err); got != tc.want {
			t.Errorf("ErrorCode(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	// Every code the table can give is a documented answer code.
	for _, e := range libraryErrors {
		if !slices.Contains(apiv1.Codes(apiv1.InResponse), e.code) {
			t.Errorf("%v maps to %q, which is not an answer code", e.err, e.code)
		}
	}
}
