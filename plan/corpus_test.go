package plan

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// corpusCases is how many cases per seed the accuracy test generates
// (about 1 s of generation per case, cached between runs).
const corpusCases = 5

// analyzeFile analyses path with the library's decoders (dsp.AnalyzeFile).
func analyzeFile(t testing.TB, path string) *dsp.Analysis {
	t.Helper()
	a, err := dsp.AnalyzeFile(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("analyse %s: %v", path, err)
	}
	return a
}

// intervals turns cuts into the corpus package's intervals.
func intervals(cuts []Cut) []corpus.Interval {
	out := make([]corpus.Interval, len(cuts))
	for i, c := range cuts {
		out[i] = corpus.Interval{Start: c.Start, End: c.End}
	}
	return out
}

// scoreLine is one result column of the accuracy table.
func scoreLine(s corpus.Result) string {
	p95 := "-"
	if !math.IsNaN(s.BoundaryP95Ms) {
		p95 = strconv.FormatFloat(s.BoundaryP95Ms, 'f', 1, 64)
	}
	return fmt.Sprintf("%2d/%-2d %7.1f %6s", s.GapsFound, s.GapsExpected, s.ClippedMs, p95)
}

var silRe = regexp.MustCompile(`silence_(start|end): (-?[0-9.]+)`)

// silencedetect runs ffmpeg's silencedetect (noise dB, d=0.5) and returns
// its silences as cuts.
func silencedetect(t *testing.T, path string, noiseDb float64, dur float64) []Cut {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-nostats", "-i", path, "-af",
		fmt.Sprintf("silencedetect=n=%gdB:d=0.5", noiseDb), "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("silencedetect %s: %v\n%s", path, err, out)
	}
	var cuts []Cut
	open := -1.0
	for _, m := range silRe.FindAllStringSubmatch(string(out), -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		if m[1] == "start" {
			open = max(v, 0)
		} else if open >= 0 {
			cuts = append(cuts, Cut{Start: open, End: v, Reason: ReasonSilence})
			open = -1
		}
	}
	if open >= 0 {
		cuts = append(cuts, Cut{Start: open, End: dur, Reason: ReasonSilence})
	}
	return cuts
}

// TestCorpusAccuracy checks detection on synthetic speech with known
// pauses (internal/corpus, seeds 1-3, wav and mp3): every pause of 0.5 s
// or more found, at most 30 ms of speech clipped, boundary error P95 at
// most 40 ms, on every case. ffmpeg silencedetect at -40 and -50 dB is
// scored beside it.
func TestCorpusAccuracy(t *testing.T) {
	testtier.Slow(t, "corpus generation takes ~15 s")
	p := Params{MinSilenceSec: 0.5, KeepSilenceMs: 0, MinSpeechMs: 0}
	so := corpus.ScoreOptions{MinSilence: 0.5, Tol: 0.1}
	var lines []string
	var worstClip, worstP95 float64
	for seed := uint64(1); seed <= 3; seed++ {
		truths, err := corpus.Generate(context.Background(), "", seed, corpusCases, corpus.WAV, corpus.MP3)
		if err != nil {
			t.Fatal(err)
		}
		if len(truths) != corpusCases {
			t.Fatalf("seed %d: %d cases", seed, len(truths))
		}
		for _, tr := range truths {
			noise := "none"
			if tr.Noise != nil {
				noise = fmt.Sprintf("%s%g", tr.Noise.Kind, tr.Noise.LevelDbfs)
			}
			for _, format := range []string{corpus.WAV, corpus.MP3} {
				path := tr.File(format)
				a := analyzeFile(t, path)
				pl, err := Make(a, p, nil)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				ours := corpus.Score(tr, intervals(pl.Cuts), so)
				s40 := corpus.Score(tr, intervals(silencedetect(t, path, -40, a.Input.Duration)), so)
				s50 := corpus.Score(tr, intervals(silencedetect(t, path, -50, a.Input.Duration)), so)
				lines = append(lines, fmt.Sprintf("%-10s %-3s %-9s %6.1f %6.1f | %s | %s | %s", tr.Name, format, noise, tr.SpeechLevelDbfs, pl.ThresholdDb,
					scoreLine(ours), scoreLine(s40), scoreLine(s50)))
				name := tr.Name + "." + format
				if ours.GapsFound != ours.GapsExpected {
					t.Errorf("%s: found %d of %d pauses >= 0.5 s", name, ours.GapsFound, ours.GapsExpected)
				}
				if ours.ClippedMs > 30 {
					t.Errorf("%s: %.1f ms of speech clipped (max 30)", name, ours.ClippedMs)
				}
				if !(ours.BoundaryP95Ms <= 40) {
					t.Errorf("%s: boundary error P95 %.1f ms (max 40)", name, ours.BoundaryP95Ms)
				}
				worstClip = max(worstClip, ours.ClippedMs)
				if !math.IsNaN(ours.BoundaryP95Ms) {
					worstP95 = max(worstP95, ours.BoundaryP95Ms)
				}
			}
		}
	}
	t.Logf("pauses found / expected, clipped speech ms, boundary error P95 ms\n%-10s %-3s %-9s %6s %6s | %-20s | %-20s | %-20s\n%s",
		"case", "fmt", "noise", "speech", "thr", "autocut (auto thr)", "silencedetect -40dB", "silencedetect -50dB", strings.Join(lines, "\n"))
	t.Logf("autocut worst case: clipped %.1f ms, boundary P95 %.1f ms", worstClip, worstP95)
}
