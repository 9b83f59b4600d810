package plan

import (
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/google/go-cmp/cmp"
)

// TestReferences: the speech level and the peak come from the levels after
// the rumble filter where the rumble sets the speech level
// (rumbleSetsLevelDb), the peak never higher than the full band's; from
// the full band elsewhere and where the analysis has no levels after the
// filter (or a set that does not fit).
func TestReferences(t *testing.T) {
	// 100 frames: 80 of pause at -60 dB, 20 of speech at -20 dB (the 95th
	// percentile lies in the speech); after the filter the loud frames
	// are at hp dB.
	env := func(hp float32, n int) dsp.Envelope {
		e := dsp.Envelope{FrameSec: 0.01}
		for i := range 100 {
			v, h := float32(-60), float32(-60)
			if i >= 80 {
				v, h = -20, hp
			}
			e.RMSDb = append(e.RMSDb, v)
			if i < n {
				e.HighPassDb = append(e.HighPassDb, h)
			}
		}
		return e
	}
	type refs struct{ Speech, Peak float64 }
	for _, tc := range []struct {
		name   string
		env    dsp.Envelope
		hpPeak float64
		want   refs
	}{
		{"no levels after the filter", env(-30, 0), 0, refs{-19.75, -3}},
		{"rumble under the speech", env(-30, 100), -9, refs{-29.75, -9}},
		{"the filter raises the peak", env(-30, 100), -1, refs{-29.75, -3}},
		{"a voice's own low end", env(-21, 100), -9, refs{-19.75, -3}},
		{"just the threshold", env(-23, 100), -9, refs{-22.75, -9}},
		{"levels that do not fit", env(-30, 99), -9, refs{-19.75, -3}},
	} {
		a := &dsp.Analysis{SpeechLevelDb: dsp.EstimateLevels(tc.env.RMSDb).SpeechLevelDb, Loudness: dsp.Loudness{SamplePeak: -3}, Envelope: tc.env}
		a.Envelope.HighPassPeakDb = tc.hpPeak
		s, p := references(a)
		if diff := cmp.Diff(tc.want, refs{s, p}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
