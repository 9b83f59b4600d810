package dsp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// talkLevels returns sec seconds of 10 ms levels: 300 ms of speech at
// speechDb then 200 ms of a bed at bedDb, each frame scattered ±2 dB; the
// speech at speechDb+shift(t) and the bed at bedDb+bedShift(t), t in s.
func talkLevels(sec, speechDb, bedDb float64, shift, bedShift func(t float64) float64) []float32 {
	r := rand.New(rand.NewPCG(7, 11))
	n := int(sec * 100)
	out := make([]float32, n)
	for i := range out {
		t := float64(i) / 100
		v := bedDb + bedShift(t)
		if i%50 < 30 {
			v = speechDb + shift(t)
		}
		out[i] = float32(v + 4*r.Float64() - 2)
	}
	return out
}

// TestGainDrop: an input whose ends are turned down, background and speech
// alike, is found turned down there by about as much, and nowhere else;
// a quieter stretch in the middle (another speaker's turn, or a gain
// change mid-file), a short quiet end, a speaker falling away over a
// steady background, a background quietening under steady speech and a
// steady input are not.
func TestGainDrop(t *testing.T) {
	none := func(float64) float64 { return 0 }
	// fade: 14 dB down at the ends, rising over 8 s (a raised cosine).
	fade := func(t float64) float64 {
		d := min(t, 60-t)
		if d >= 8 {
			return 0
		}
		return -14 * (1 + math.Cos(math.Pi*d/8)) / 2
	}
	for _, tc := range []struct {
		name        string
		speech, bed func(float64) float64
		atEnds, mid float64 // want about this drop at 0.2 s and 59.8 s, and 0 in the middle
		want        bool    // a drop at all
	}{
		{"steady", none, none, 0, 0, false},
		{"ends turned down", fade, fade, 13, 0, true},
		{"a quieter stretch in the middle", func(t float64) float64 {
			if t > 20 && t < 40 {
				return -15
			}
			return 0
		}, func(t float64) float64 {
			if t > 20 && t < 40 {
				return -15
			}
			return 0
		}, 0, 0, false},
		{"a short quiet end", func(t float64) float64 {
			if t > 56.5 {
				return -10
			}
			return 0
		}, func(t float64) float64 {
			if t > 56.5 {
				return -10
			}
			return 0
		}, 0, 0, false},
		{"the background quietens at the end", none, func(t float64) float64 {
			if t > 45 {
				return -12
			}
			return 0
		}, 0, 0, false},
		{"the speaker falls away", func(t float64) float64 { return -t / 6 }, none, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := GainDrop(SmoothedLevels(talkLevels(60, -20, -55, tc.speech, tc.bed)))
			if (d != nil) != tc.want {
				t.Fatalf("drop found: %v, want %v", d != nil, tc.want)
			}
			if d == nil {
				return
			}
			for _, f := range []int{20, len(d) - 20} {
				if math.Abs(float64(d[f])-tc.atEnds) > 2 {
					t.Errorf("frame %d: drop %.1f dB, want about %.0f", f, d[f], tc.atEnds)
				}
			}
			for f := 1000; f < 5000; f++ {
				if d[f] != 0 {
					t.Fatalf("frame %d: drop %.1f dB in the middle", f, d[f])
				}
			}
		})
	}
	if GainDrop(nil) != nil || GainDrop(make([]float32, 1000)) != nil {
		t.Error("a drop in an empty or silent input")
	}
}
