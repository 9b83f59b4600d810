package apiv1

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestArraysNeverNull checks that the arrays of a job's JSON are [] when
// empty, never null, through a value and a pointer alike.
func TestArraysNeverNull(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want []string
	}{
		{"pending transcript", Transcript{Status: TranscriptPending}, []string{`"words":[]`, `"fillers":[]`}},
		{"transcript pointer", &Transcript{Status: TranscriptDone, Words: []Word{{Word: "hi"}}}, []string{`"words":[{"word":"hi"`, `"fillers":[]`}},
		{"plan without cuts", Plan{}, []string{`"cuts":[]`, `"keep":[]`}},
		{"job", Job{Plan: &Plan{}, Transcript: &Transcript{}}, []string{`"cuts":[]`, `"keep":[]`, `"words":[]`, `"fillers":[]`, `"warnings":[]`}},
		{"job pointer", &Job{Warnings: []string{"truncated input"}}, []string{`"warnings":["truncated input"]`}},
		{"preview", Preview{Plan: Plan{Keep: []Range{{0, 1}}}}, []string{`{"cuts":[]`, `"keep":[{"start":0,"end":1}]`, `"warnings":[]}`}},
		{"preview pointer", &Preview{Warnings: []string{"no pauses found"}}, []string{`"warnings":["no pauses found"]}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s lacks %s", b, w)
				}
			}
			for _, k := range []string{"words", "fillers", "cuts", "keep", "warnings"} {
				if strings.Contains(string(b), `"`+k+`":null`) {
					t.Errorf("%s has %s null", b, k)
				}
			}
		})
	}
	// The stored form reads back the same.
	var tr Transcript
	if err := json.Unmarshal([]byte(`{"status":"pending","language":"","words":[],"fillers":[]}`), &tr); err != nil || tr.Status != TranscriptPending {
		t.Errorf("unmarshal: %+v %v", tr, err)
	}
}

// TestPreviewIsAPlan: a preview's JSON is its plan's, with warnings added
// (the route answered the bare plan before), so a client reading a Plan
// from it reads the same plan; it reads back whole as a Preview.
func TestPreviewIsAPlan(t *testing.T) {
	pl := Plan{Cuts: []Cut{{Start: 1, End: 2, Reason: "silence"}}, Keep: []Range{{0, 1}, {2, 3}}, ThresholdDb: -41.5,
		Stats: Stats{OriginalSec: 3, FinalSec: 2, CutsCount: 1}, Params: Params{MinSilenceSec: 0.6}}
	b, err := json.Marshal(Preview{Plan: pl, Warnings: []string{"truncated input: x"}})
	if err != nil {
		t.Fatal(err)
	}
	planOnly, _ := json.Marshal(pl)
	if want := string(planOnly[:len(planOnly)-1]) + `,"warnings":["truncated input: x"]}`; string(b) != want {
		t.Errorf("preview JSON\n%s\nwant the plan's with warnings added\n%s", b, want)
	}
	var asPlan Plan
	if err := json.Unmarshal(b, &asPlan); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pl, asPlan); d != "" {
		t.Errorf("read as a Plan (-want +got):\n%s", d)
	}
	var back Preview
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Preview{Plan: pl, Warnings: []string{"truncated input: x"}}, back); d != "" {
		t.Errorf("read back (-want +got):\n%s", d)
	}
}
