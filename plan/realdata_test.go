package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/realdata"
)

// quietRuns returns the stretches of at least minSec where the envelope's
// RMS stays under level: the pauses a reader of the envelope would see.
func quietRuns(a *dsp.Analysis, level, minSec float64) []Range {
	var out []Range
	fs := a.Envelope.FrameSec
	start := -1
	rms := a.Envelope.RMSDb
	for i := 0; i <= len(rms); i++ {
		quiet := i < len(rms) && float64(rms[i]) < level
		if quiet && start < 0 {
			start = i
		}
		if !quiet && start >= 0 {
			if float64(i-start)*fs >= minSec {
				out = append(out, Range{Start: float64(start) * fs, End: min(float64(i)*fs, a.Input.Duration)})
			}
			start = -1
		}
	}
	return out
}

func overlap(a0, a1, b0, b1 float64) float64 { return max(0, min(a1, b1)-max(a0, b0)) }

// warned reports whether one of a's warnings begins with prefix.
func warned(a *dsp.Analysis, prefix string) bool {
	return slices.ContainsFunc(a.Warnings, func(w string) bool { return strings.HasPrefix(w, prefix) })
}

// TestRealRecordings plans the real recordings in testdata/recordings with
// the default preset: music is not chopped (no audible frame cut: in a
// rest or a quiet passage the voice network hears no speech either side,
// dsp.HeardNoSpeech; the analysis says so), noise has no cut (and the
// analysis warns), speech keeps every word: no silence cut
// holds a frame within 20 dB of the speech level (a noise cut: 10 dB), the
// cut total is no more than the pauses the
// envelope shows (RMS 25 dB under the speech level for the preset's
// minimum silence), and for the file with word times no cut overlaps a
// word by more than 30 ms.
func TestRealRecordings(t *testing.T) {
	files := realdata.RecordingFiles(t)
	pr := DefaultPreset()
	var lines []string
	seen := map[string]int{}
	for _, path := range files {
		base := filepath.Base(path)
		ext := filepath.Ext(base)
		kind := strings.SplitN(base, "_", 2)[0]
		seen[kind]++
		a := analyzeFile(t, path)
		pl, err := Make(a, pr.Params, nil)
		switch kind {
		case "noise":
			// A noise bed has no pause: nothing is cut, and the analysis
			// says why.
			res := "no cut, warned"
			if err != nil || len(pl.Cuts) != 0 || len(a.Warnings) == 0 {
				res = fmt.Sprintf("%d cuts, %.1f %% cut, warnings %q", len(pl.Cuts), pl.Stats.SavedPct, a.Warnings)
				t.Errorf("%s: error %v, %d cuts (%.1f %% cut), warnings %q: want no cut and a warning", base, err, len(pl.Cuts), pl.Stats.SavedPct, a.Warnings)
			}
			lines = append(lines, fmt.Sprintf("%-44s %6.1fs thr %6.1f  %s", base, a.Input.Duration, pl.ThresholdDb, res))
			continue
		case "music":
			if err != nil {
				t.Errorf("%s: %v", base, err)
				continue
			}
			// Cut time of audible music: frames over -60 dBFS. Digital
			// silence and the tail of a fade after the music are silence
			// and rightly go.
			audible, cutAudible := 0, 0
			ci := 0
			for i, v := range a.Envelope.RMSDb {
				if v <= -60 {
					continue
				}
				audible++
				t0 := float64(i) * a.Envelope.FrameSec
				for ci < len(pl.Cuts) && pl.Cuts[ci].End <= t0 {
					ci++
				}
				if ci < len(pl.Cuts) && pl.Cuts[ci].Start <= t0 {
					cutAudible++
				}
			}
			pct := 100 * float64(cutAudible) / float64(max(audible, 1))
			if cutAudible > 0 {
				t.Errorf("%s: %.2f %% of the audible music cut, want none", base, pct)
			}
			if !warned(a, dsp.WarnNoSpeech) && !warned(a, dsp.WarnNoPauses) {
				t.Errorf("%s: warnings %q: want one saying it holds no speech or no pause", base, a.Warnings)
			}
			lines = append(lines, fmt.Sprintf("%-44s %6.1fs thr %6.1f  cut %5.2f%% of all, %5.2f%% of audible (%d cuts)", base, a.Input.Duration, pl.ThresholdDb, pl.Stats.SavedPct, pct, len(pl.Cuts)))
			continue
		default: // speech
			if err != nil {
				t.Errorf("%s: %v", base, err)
				continue
			}
			if warned(a, dsp.WarnNoSpeech) {
				t.Errorf("%s: the analysis finds no speech: %q", base, a.Warnings)
			}
			cutTotal := 0.0
			for _, c := range pl.Cuts {
				cutTotal += c.End - c.Start
				// A silence cut is quiet: 20 dB under the speech level.
				// A noise cut (background the voice classification
				// found, such as the crowd after the inaugural address's
				// last word) may be louder, but never within 10 dB.
				loud := a.SpeechLevelDb - 20
				if c.Reason == ReasonNoise {
					loud = a.SpeechLevelDb - 10
				}
				i0, i1 := a.Envelope.At(c.Start), a.Envelope.At(c.End-1e-9)
				for i := i0; i <= i1; i++ {
					if float64(a.Envelope.RMSDb[i]) >= loud {
						t.Errorf("%s: cut [%.3f, %.3f] (%s) holds a frame at %.1f dB at %.2f s, within 20 dB of the speech level %.1f",
							base, c.Start, c.End, c.Reason, a.Envelope.RMSDb[i], float64(i)*a.Envelope.FrameSec, a.SpeechLevelDb)
						break
					}
				}
			}
			pauses := 0.0
			for _, r := range quietRuns(a, a.SpeechLevelDb-25, pr.Params.MinSilenceSec) {
				pauses += r.End - r.Start
			}
			for _, c := range pl.Cuts {
				if c.Reason == ReasonNoise { // not quiet: not in the envelope's pauses
					pauses += c.End - c.Start
				}
			}
			if cutTotal > pauses+0.05 {
				t.Errorf("%s: %.2f s cut but the envelope shows only %.2f s of pauses >= %.1f s", base, cutTotal, pauses, pr.Params.MinSilenceSec)
			}
			if words := strings.TrimSuffix(path, ext) + ".words.json"; fileExists(words) {
				checkWords(t, base, words, pl.Cuts)
			}
			lines = append(lines, fmt.Sprintf("%-44s %6.1fs thr %6.1f  cut %5.2f%% (%2d cuts, %.2fs; envelope pauses %.2fs)",
				base, a.Input.Duration, pl.ThresholdDb, pl.Stats.SavedPct, len(pl.Cuts), cutTotal, pauses))
		}
	}
	if seen["music"] == 0 || seen["noise"] == 0 || seen["en"]+seen["fr"] == 0 {
		t.Fatalf("recordings incomplete: %v", seen)
	}
	sort.Strings(lines)
	t.Logf("default preset %q:\n%s", pr.Name, strings.Join(lines, "\n"))
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// checkWords fails when a cut overlaps a word of words.json by more than 30 ms.
func checkWords(t *testing.T, name, path string, cuts []Cut) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Words []struct {
			Word  string  `json:"word"`
			Start float64 `json:"start_sec"`
			End   float64 `json:"end_sec"`
		} `json:"words"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Words) == 0 {
		t.Fatalf("%s: %v (%d words)", path, err, len(doc.Words))
	}
	for _, w := range doc.Words {
		for _, c := range cuts {
			if o := overlap(c.Start, c.End, w.Start, w.End); o > 0.030 {
				t.Errorf("%s: cut [%.3f, %.3f] overlaps %q [%.2f, %.2f] by %.0f ms", name, c.Start, c.End, w.Word, w.Start, w.End, o*1000)
			}
		}
	}
}
