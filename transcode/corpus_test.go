package transcode

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// corpusTruth is the part of a make-corpus.py truth file these tests read.
type corpusTruth struct {
	Name  string `json:"name"`
	Noise *struct {
		Kind  string  `json:"kind"`
		Level float64 `json:"levelDbfs"`
	} `json:"noise"`
	Gaps  [][2]float64      `json:"gaps"`
	Files map[string]string `json:"files"`
}

// pinkCorpus generates the shared corpus for seed 2 (its first two cases
// carry pink noise at -55 dBFS) and returns those cases' WAV files and truth.
func pinkCorpus(t *testing.T) ([]string, []corpusTruth) {
	t.Helper()
	script := filepath.Join(filepath.Dir(sharedData(t, "ATTRIBUTION.txt")), "..", "corpus", "make-corpus.py")
	dir := t.TempDir()
	if b, err := exec.Command("python3", script, dir, "--seed", "2", "--cases", "2", "--formats", "wav").CombinedOutput(); err != nil {
		t.Fatalf("make-corpus: %v: %s", err, b)
	}
	var files []string
	var truths []corpusTruth
	for _, n := range []string{"case002-00", "case002-01"} {
		var tr corpusTruth
		b, err := os.ReadFile(filepath.Join(dir, n+".truth.json"))
		if err != nil || json.Unmarshal(b, &tr) != nil {
			t.Fatalf("truth %s: %v", n, err)
		}
		if tr.Noise == nil || tr.Noise.Kind != "pinknoise" || tr.Noise.Level != -55 {
			t.Fatalf("%s: noise %+v, want pink noise at -55 dBFS (the corpus generator changed?)", n, tr.Noise)
		}
		files = append(files, filepath.Join(dir, tr.Files["wav"]))
		truths = append(truths, tr)
	}
	return files, truths
}

// TestCorpusDenoiseAndNormalize: on the corpus cases with pink noise at -55
// dBFS, denoise lowers the noise in pauses by >= 10 dB while speech loudness
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
		full := &plan.Plan{Keep: []dsp.Range{{Start: 0, End: a.Input.Duration}}, Cuts: p.Cuts}
		out := filepath.Join(t.TempDir(), "clean.wav")
		if _, err := Render(context.Background(), in, a, full, Options{Format: "wav", Normalize: "none", Denoise: true}, out, nil); err != nil {
			t.Fatal(err)
		}
		x0, f := readAll(t, in)
		x1, _ := readAll(t, out)
		var before, after, n float64
		for _, g := range tr.Gaps {
			if g[1]-g[0] < 0.3 {
				continue
			}
			s, e := g[0]+0.05, g[1]-0.05 // inside the gap
			w := e - s
			before += math.Pow(10, rmsDb(x0, f, s, e)/10) * w
			after += math.Pow(10, rmsDb(x1, f, s, e)/10) * w
			n += w
		}
		drop := 10*math.Log10(before/n) - 10*math.Log10(after/n)
		b := analyze(t, out)
		dl := b.Loudness.Integrated - a.Loudness.Integrated
		t.Logf("%s: pauses %.1f -> %.1f dBFS (%.1f dB lower); speech loudness %.2f -> %.2f LUFS (%+.2f LU)",
			tr.Name, 10*math.Log10(before/n), 10*math.Log10(after/n), drop, a.Loudness.Integrated, b.Loudness.Integrated, dl)
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
