package transcode

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/plan"
)

// pinkCorpus returns two synthetic speech cases (internal/corpus, drawn
// from seed 2) laid over pink noise at -58 dBFS RMS, as WAV, with their
// truth.
func pinkCorpus(t *testing.T) ([]string, []corpus.Truth) {
	t.Helper()
	cases := corpus.Cases(2, 2)
	for i := range cases {
		cases[i].Noise = &corpus.Noise{Kind: "pink", LevelDbfs: -58}
	}
	truths, err := corpus.GenerateCases(context.Background(), "", cases, corpus.WAV)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, tr := range truths {
		files = append(files, tr.File(corpus.WAV))
	}
	return files, truths
}

// TestCorpusDenoiseAndNormalize: on two corpus cases with pink noise at
// -58 dBFS RMS, denoise lowers the noise in pauses by >= 10 dB while speech loudness
// moves < 1 LU, and the normalized renders (wav, mp3, m4a) measure within
// 0.5 LU of the target with true peak <= -1 dBTP by ffmpeg's ebur128.
func TestCorpusDenoiseAndNormalize(t *testing.T) {
	files, truths := pinkCorpus(t)
	for i, in := range files {
		tr := truths[i]
		a := analyze(t, in)
		p, err := plan.Make(a, plan.Params{MinSilenceSec: 0.5}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var pauses []dsp.Range
		for _, g := range tr.Gaps {
			if g.Len() >= 0.3 {
				pauses = append(pauses, dsp.Range{Start: g.Start + 0.05, End: g.End - 0.05}) // inside the gap
			}
		}
		r := renderDenoised(t, in, a, p.Cuts, pauses)
		drop, dl := r.drop(), r.loudAfter-r.loudBefore
		t.Logf("%s: pauses %.1f -> %.1f dBFS (%.1f dB lower); speech loudness %.2f -> %.2f LUFS (%+.2f LU)",
			tr.Name, r.before, r.after, drop, r.loudBefore, r.loudAfter, dl)
		if drop < 10 {
			t.Errorf("%s: noise in pauses lowered by %.1f dB, want >= 10", tr.Name, drop)
		}
		if math.Abs(dl) >= 1 {
			t.Errorf("%s: speech loudness moved %+.2f LU", tr.Name, dl)
		}
		if i > 0 {
			continue // one case is enough for the encoders
		}
		for _, format := range []string{"wav", "mp3", "m4a"} {
			o := filepath.Join(t.TempDir(), OutputName(filepath.Base(in), format))
			res, err := Render(context.Background(), in, a, p, Options{Format: format, Normalize: "podcast", Rumble: true, Denoise: true}, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			li, tp := ebur128(t, o)
			t.Logf("%s %s podcast: I %.2f LUFS, TP %.2f dBTP, %.3f s (plan %.3f s)", tr.Name, format, li, tp, res.Duration, p.Stats.FinalSec)
			if math.Abs(li+16) > 0.5 || tp > -1 {
				t.Errorf("%s %s: I %.2f LUFS TP %.2f dBTP", tr.Name, format, li, tp)
			}
		}
	}
}
