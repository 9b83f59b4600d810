package apiv1

import (
	"encoding/json"
	"strings"
	"testing"
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
		{"preview", Preview{Plan: &Plan{Keep: []Range{{0, 1}}}}, []string{`"cuts":[]`, `"keep":[{"start":0,"end":1}]`, `"warnings":[]`}},
		{"preview pointer", &Preview{Plan: &Plan{}, Warnings: []string{"no pauses found"}}, []string{`"warnings":["no pauses found"]`}},
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
