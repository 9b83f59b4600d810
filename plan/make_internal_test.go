package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpreadBeds checks that the pauses a foreground island splits keep the
// bed measured for the pause before the split, on both sides.
func TestSpreadBeds(t *testing.T) {
	// Islands 0 and 2 are speech, 1 a foreground sound in the pause between
	// them: the pauses before the merge are [lead, between, tail].
	is := []island{{s: 10}, {s: 50, fg: true}, {s: 90}}
	bed := []float64{-60, -50, -40}
	wide := []float64{-61, -51, -41}
	ok := []bool{true, false, true}
	rate := []float64{0.1, 0.2, 0.3}
	b, w, o, r := spreadBeds(is, bed, wide, ok, rate)
	if d := cmp.Diff([]float64{-60, -50, -50, -40}, b); d != "" {
		t.Errorf("beds (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]float64{-61, -51, -51, -41}, w); d != "" {
		t.Errorf("wide beds (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]bool{true, false, false, true}, o); d != "" {
		t.Errorf("flags (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]float64{0.1, 0.2, 0.2, 0.3}, r); d != "" {
		t.Errorf("rates (-want +got)\n%s", d)
	}
	// Two foreground sounds in the lead pause, one before the last island.
	is = []island{{s: 1, fg: true}, {s: 3, fg: true}, {s: 10}, {s: 40, fg: true}, {s: 50}}
	b, _, _, _ = spreadBeds(is, bed, wide, ok, rate)
	if d := cmp.Diff([]float64{-60, -60, -60, -50, -50, -40}, b); d != "" {
		t.Errorf("beds, three sounds (-want +got)\n%s", d)
	}
}
