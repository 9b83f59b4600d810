package timeline

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// shortClips is n kept ranges of 0.3-2.3 s with gaps of 0.2-1.2 s, from a
// fixed seed: a plan of many short clips whose edges fall off the grid.
func shortClips(n int, seed int64) ([]dsp.Range, float64) {
	rng := rand.New(rand.NewSource(seed))
	var out []dsp.Range
	t := 0.5
	for range n {
		d := 0.3 + 2*rng.Float64()
		out = append(out, dsp.Range{Start: t, End: t + d})
		t += d + 0.2 + rng.Float64()
	}
	return out, t + 1
}

// maxDrift is the largest distance, in frames, between a clip's record
// out and the plan's running total of kept time up to that clip.
func maxDrift(keep []dsp.Range, segs []Segment, rate dsp.Rational) float64 {
	var total, worst float64
	// Ranges are disjoint and more than a frame apart: one segment each.
	for i, r := range keep {
		total += r.End - r.Start
		worst = max(worst, math.Abs(float64(segs[i].RecOut)-total*rate.Float()))
	}
	return worst
}

// TestRecordDriftUnderHalfAFrame checks that every format's record
// positions stay within half a frame of the plan's running total: the
// positions are the rounded cumulative total, not sums of rounded clips.
func TestRecordDriftUnderHalfAFrame(t *testing.T) {
	for _, c := range []struct {
		name string
		rate dsp.Rational
		seed int64
	}{
		{"29.97", ntsc30, 1},
		{"25", dsp.Rational{Num: 25, Den: 1}, 2},
		{"29.97 other plan", ntsc30, 3},
		{"23.976", ntsc24, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			keep, dur := shortClips(200, c.seed)
			m := Media{Name: "v", File: "v.mov", Path: "/m/v.mov", Duration: dur, SampleRate: 48000, Channels: 2, HasVideo: true, FrameRate: c.rate}
			e, err := newEdit(keep, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(e.segs) != len(keep) {
				t.Fatalf("%d segments for %d ranges", len(e.segs), len(keep))
			}
			d := maxDrift(keep, e.segs, e.rate)
			t.Logf("max drift %.3f frames over %d clips", d, len(keep))
			if d >= 0.5 {
				t.Errorf("record positions drift %.3f frames from the plan's running total, want < 0.5", d)
			}
			for i, s := range e.segs {
				if s.Len() <= 0 || (i > 0 && s.RecIn != e.segs[i-1].RecOut) || s.SrcIn < 0 || s.SrcOut > e.last {
					t.Fatalf("segment %d %+v: not contiguous or off the media", i, s)
				}
				if i > 0 && s.SrcIn < e.segs[i-1].SrcOut {
					t.Fatalf("segment %d %+v overlaps %+v in the source", i, s, e.segs[i-1])
				}
			}
			dir := t.TempDir()
			if _, err := WriteFiles(dir, "out", Kinds(), keep, m, Options{}); err != nil {
				t.Fatal(err)
			}
			for _, k := range []Kind{FCPXML, Premiere, OTIO, CSV} {
				b, err := os.ReadFile(filepath.Join(dir, "out-autocut"+k.Ext()))
				if err != nil {
					t.Fatal(err)
				}
				got := parseBack(t, k, b, e)
				if d := maxDrift(keep, got, e.rate); d >= 0.5 {
					t.Errorf("%s: drift %.3f frames, want < 0.5", k, d)
				}
			}
			if d := maxDrift(keep, checkEDL(t, filepath.Join(dir, "out-autocut.edl"), e), e.rate); d >= 0.5 {
				t.Errorf("edl: drift %.3f frames, want < 0.5", d)
			}
		})
	}
}
