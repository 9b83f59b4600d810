package transcode

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// limiterCorpus returns real recordings of the repository's testdata and
// synthetic worst cases for the limiter, each with a plan keeping most of it.
func limiterCorpus(t *testing.T) []string {
	t.Helper()
	return append(recordings(t, "en_asterisk_allison_demo-instruct_73s.wav", "fr_asterisk_june_demo-instruct_71s.wav",
		"en_jfk_inaugural_11s.flac", "en_librispeech_5703-47212-0000.ogg",
		"music_brahms_hungarian_dance5_pd.ogg", "music_kevin_macleod_vibe_ace_ccby.ogg"),
		// Loud transients: quiet speech (about -33 LUFS) with a 2 ms click
		// at -1 dBFS every 1.5 s, which the gain lifts 17 dB over the ceiling.
		gen(t, "clicks.wav", "-i", recording("en_asterisk_allison_demo-instruct_73s.wav"),
			"-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t\\,1.5)\\,0.002)\\,0.89*sin(2*PI*2500*t)\\,0)':s=44100:d=73",
			"-filter_complex", "[0:a]aresample=44100,volume=-14dB[s];[s][1:a]amix=inputs=2:normalize=0:duration=first",
			"-ac", "2", "-c:a", "pcm_s16le"),
		// Heavy limiting: 4 ms full-scale noise bursts every 0.4 s over a
		// noise bed 26 dB lower; the bursts carry most of the loudness and
		// stand 19 dB over it, so most of what makes the loudness is limited.
		gen(t, "bursts.wav", "-f", "lavfi", "-i", "anoisesrc=color=white:seed=9:amplitude=1:d=40",
			"-af", "asetnsamples=n=48,volume='if(lt(mod(t,0.4),0.004),1,0.05)':eval=frame", "-ar", "48000", "-ac", "2", "-c:a", "pcm_s24le"))
}

// TestPredictedLoudnessMatchesLimiter: on real recordings and synthetic worst
// cases (loud transients, heavy limiting), with rumble on, the gain that
// normalizationGain predicts from one measurement pass brings the actually
// limited output within 0.2 LU of the target by our R128 meter, at the
// podcast and youtube targets (up to 6 LU of limiting here), and
// the limiter holds the true peak under the ceiling.
func TestPredictedLoudnessMatchesLimiter(t *testing.T) {
	ctx := context.Background()
	for _, in := range limiterCorpus(t) {
		a := analyze(t, in)
		d := a.Input.Duration
		p := planOf(d, dsp.Range{Start: 0, End: d * 0.45}, dsp.Range{Start: d * 0.55, End: d})
		spans := spansOf(p.Keep, a.Input.SampleRate)
		o := Options{Format: "wav", Normalize: "podcast", Rumble: true}
		for _, target := range []float64{-16, -14} {
			c := chain{input: in, a: a, spans: spans, o: o, noise: new([]float64)}
			lufs, gainDb, err := c.normalizationGain(ctx, p.Keep, target, -1.3)
			if err != nil {
				t.Fatal(err)
			}
			src, closeSrc, err := c.build(ctx)
			if err != nil {
				t.Fatal(err)
			}
			lim := newLimiter(&gainSource{src: src, gain: float32(math.Pow(10, gainDb/20))}, -1.3, limiterLook)
			got, err := dsp.Analyze(ctx, lim, dsp.Info{}, nil)
			closeSrc()
			if err != nil {
				t.Fatal(err)
			}
			loss := lufs + gainDb - got.Loudness.Integrated
			t.Logf("%s -> %.0f LUFS: measured %.2f LUFS, gain %+.2f dB (limiter loss %.2f LU predicted): limited output %.2f LUFS, TP %.2f dBTP",
				filepath.Base(in), target, lufs, gainDb, loss, got.Loudness.Integrated, got.Loudness.TruePeak)
			if e := got.Loudness.Integrated - target; math.Abs(e) > 0.2 {
				t.Errorf("%s at %.0f LUFS: limited output %.2f LUFS, off by %+.2f LU", filepath.Base(in), target, got.Loudness.Integrated, e)
			}
			if got.Loudness.TruePeak > -1 {
				t.Errorf("%s at %.0f LUFS: true peak %.2f dBTP", filepath.Base(in), target, got.Loudness.TruePeak)
			}
		}
	}
}
