package transcode

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/plan"
)

// TestDenoiseRealBeds: real speech over real and generated beds (the
// real-speech set of internal/corpus, 20 dB under the speech). The gate
// lowers the bed in the truth's pauses by >= 10 dB (steady beds; less for
// crackles and fading static, which a steady profile cannot follow) while the speech's loudness moves < 1 LU.
func TestDenoiseRealBeds(t *testing.T) {
	m := corpus.NewMixer(realdata.Recordings(t)...)
	for _, c := range []struct {
		speech  string
		bed     corpus.Bed
		minDrop float64
	}{
		{"en_asterisk_allison_demo-instruct_73s.wav", corpus.BedPink, 10},
		{"fr_asterisk_june_demo-instruct_71s.wav", corpus.BedHum, 10},
		// Vinyl: the hiss goes, the crackles' clicks are too short for a
		// 40 ms frame's gate and pass (measured 7.3 dB in all).
		{"en_asterisk_allison_demo-instruct_73s.wav", corpus.BedVinyl, 6},
		// The static fades in and out: the profile is its mean, so the
		// gate lowers it less where it is loud (measured 6.0 dB).
		{"en_jfk_inaugural_11s.flac", corpus.BedStatic, 5},
	} {
		mc := corpus.MixCase{Name: string(c.bed), Speech: c.speech, Bed: c.bed, SNRDb: 20, Seed: 7}
		if !m.Has(mc) {
			t.Logf("%s over %s: not measured (%s not set)", c.speech, c.bed, realdata.Var)
			continue
		}
		mx, err := m.Mix(context.Background(), mc)
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(t.TempDir(), "in.wav")
		if err := mx.WriteWAV(in); err != nil {
			t.Fatal(err)
		}
		a := analyze(t, in)
		p, err := plan.Make(a, plan.DefaultPreset().Params, nil)
		if err != nil {
			t.Fatal(err)
		}
		var pauses []dsp.Range
		sp := mx.Truth.Speech
		for i := 0; i+1 < len(sp); i++ {
			if s, e := sp[i].End+0.1, sp[i+1].Start-0.1; e-s >= 0.2 { // inside the pause
				pauses = append(pauses, dsp.Range{Start: s, End: e})
			}
		}
		r := renderDenoised(t, in, a, p.Cuts, pauses)
		n, drop, dl := r.pauseSec, r.drop(), r.loudAfter-r.loudBefore
		t.Logf("%s over %s: pauses (%.1f s) %.1f -> %.1f dBFS (%.1f dB lower); loudness %.2f -> %.2f LUFS (%+.2f LU)",
			c.speech, c.bed, n, r.before, r.after, drop, r.loudBefore, r.loudAfter, dl)
		if n < 1 {
			t.Errorf("%s: only %.1f s of pause to measure", c.speech, n)
		}
		if drop < c.minDrop {
			t.Errorf("%s over %s: bed in pauses lowered by %.1f dB, want >= %.0f", c.speech, c.bed, drop, c.minDrop)
		}
		if math.Abs(dl) >= 1 {
			t.Errorf("%s over %s: speech loudness moved %+.2f LU", c.speech, c.bed, dl)
		}
	}
}
