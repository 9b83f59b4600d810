package corpus

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestTracksBuild checks the multi-track cases' construction: the tracks
// have the same length; each voice's truth is sorted and inside the case;
// the voices sometimes speak at once; and where voice 1 speaks alone,
// track 2 holds it IsolationDb under track 1 (within 1.5 dB, the bed 60 dB
// under, so that it does not count), for each isolation asked.
func TestTracksBuild(t *testing.T) {
	m := recordings(t)
	for _, iso := range []float64{10, 20} {
		c := TracksCase{Name: "build", Voices: TracksVoices()[:2], Beds: []string{"noise_alsa_pink_1s.wav"},
			IsolationDb: iso, BedDb: 60, VoiceSec: 30, Seed: 3}
		x, err := m.Tracks(context.Background(), c)
		if errors.Is(err, ErrNoFFmpeg) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Tracks) != 2 || len(x.Tracks[0]) != len(x.Tracks[1]) || x.Rate != MixRate {
			t.Fatalf("%d tracks, rate %d", len(x.Tracks), x.Rate)
		}
		tr := x.Truth
		if want := float64(len(x.Tracks[0])) / MixRate; tr.Duration != want {
			t.Errorf("duration %v, want %v", tr.Duration, want)
		}
		n := int(math.Ceil(tr.Duration / truthFrameSec))
		on := make([][]bool, 2)
		for k, v := range tr.Voices {
			on[k] = make([]bool, n)
			pos := 0.0
			for _, s := range v {
				if s.Start < pos || s.End <= s.Start || s.End > tr.Duration+1e-9 {
					t.Fatalf("voice %d: run %+v after %v", k+1, s, pos)
				}
				pos = s.End
				for f := int(math.Round(s.Start / truthFrameSec)); f < n && float64(f)*truthFrameSec < s.End-1e-9; f++ {
					on[k][f] = true
				}
			}
			if len(v) == 0 {
				t.Fatalf("voice %d has no speech", k+1)
			}
		}
		both := 0
		var own, bleed float64
		fl := MixRate / 100
		for f := range n {
			if on[0][f] && on[1][f] {
				both++
			}
			if on[0][f] && !on[1][f] && (f+1)*fl <= len(x.Tracks[0]) {
				for _, v := range x.Tracks[0][f*fl : (f+1)*fl] {
					own += float64(v) * float64(v)
				}
				for _, v := range x.Tracks[1][f*fl : (f+1)*fl] {
					bleed += float64(v) * float64(v)
				}
			}
		}
		if both == 0 {
			t.Errorf("isolation %g: the voices never speak at once", iso)
		}
		got := 10 * math.Log10(own/bleed)
		t.Logf("isolation %g: voice 1 on track 2 %.2f dB under track 1; %d frames of both voices", iso, got, both)
		if math.Abs(got-iso) > 1.5 {
			t.Errorf("voice 1 on track 2 lies %.1f dB under track 1, want %g", got, iso)
		}
	}
}
