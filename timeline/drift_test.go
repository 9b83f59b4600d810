package timeline

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// shortClips is a plan of n short kept ranges (0.2 to 1.4 s, gaps of 0.15
// to 1.2 s: no two touch on any frame grid, none is under a frame).
func shortClips(seed int64, n int) []dsp.Range {
	rng := rand.New(rand.NewSource(seed))
	var keep []dsp.Range
	s := 0.3
	for range n {
		d := 0.2 + rng.Float64()*1.2
		keep = append(keep, dsp.Range{Start: s, End: s + d})
		s += d + 0.15 + rng.Float64()*1.05
	}
	return keep
}

// TestRecordDrift: every format's record positions (each clip's record in
// and out) are within half a frame of the plan's running total, the kept
// time before the clip's edge; many short clips at 29.97 and 25 fps, audio
// and video. Record positions that were sums of per-clip rounded durations
// drifted by up to 2.16 frames. The source edges stay within a frame of the
// plan's.
func TestRecordDrift(t *testing.T) {
	for _, c := range []struct {
		name  string
		rate  dsp.Rational
		video bool
	}{
		{"audio2997", ntsc30, false},
		{"audio25", dsp.Rational{Num: 25, Den: 1}, false},
		{"video2997", ntsc30, true},
		{"video25", dsp.Rational{Num: 25, Den: 1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			keep := shortClips(7, 450) // 900 EDL events with video: one list
			end := keep[len(keep)-1].End + 2
			m := Media{Name: "talk", File: "talk.wav", Path: "/m/talk.wav", Duration: end, SampleRate: 48000, Channels: 2}
			o := Options{Rate: c.rate}
			if c.video {
				m.File, m.Path, m.HasVideo, m.FrameRate = "talk.mov", "/m/talk.mov", true, c.rate
				o = Options{}
			}
			e, err := newEdit(keep, m, o)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := WriteFiles(dir, "out", Kinds(), keep, m, o); err != nil {
				t.Fatal(err)
			}
			fps := c.rate.Float()
			for _, k := range Kinds() {
				var got []Segment
				if k == EDL {
					got = checkEDL(t, filepath.Join(dir, "out-autocut.edl"), e)
				} else {
					b, err := os.ReadFile(filepath.Join(dir, "out-autocut"+k.Ext()))
					if err != nil {
						t.Fatal(err)
					}
					got = parseBack(t, k, b, e)
				}
				if len(got) != len(keep) {
					t.Fatalf("%s: %d clips for %d kept ranges", k, len(got), len(keep))
				}
				var cum, recDrift, srcErr float64
				for i, s := range got {
					r := keep[i]
					recDrift = max(recDrift, math.Abs(float64(s.RecIn)-cum*fps))
					cum += r.Len()
					recDrift = max(recDrift, math.Abs(float64(s.RecOut)-cum*fps))
					srcErr = max(srcErr, math.Abs(float64(s.SrcIn)-r.Start*fps), math.Abs(float64(s.SrcOut)-r.End*fps))
				}
				t.Logf("%s %s: %d clips, record drift at most %.3f frames, source edges within %.3f frames", c.name, k, len(got), recDrift, srcErr)
				if recDrift >= 0.5 {
					t.Errorf("%s: record positions drift %.3f frames from the plan's running total (want under 0.5)", k, recDrift)
				}
				if srcErr >= 1 {
					t.Errorf("%s: a source edge is %.3f frames from the plan's (want under 1)", k, srcErr)
				}
			}
		})
	}
}
