package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// corpusCases is how many cases per seed the accuracy test generates
// (about 1 s of generation per case).
const corpusCases = 5

type truthFile struct {
	Name     string  `json:"name"`
	Duration float64 `json:"duration"`
	Noise    *struct {
		Kind      string
		LevelDbfs float64
	} `json:"noise"`
	Speech [][2]float64      `json:"speech"`
	Gaps   [][2]float64      `json:"gaps"`
	Files  map[string]string `json:"files"`
}

type score struct {
	GapsExpected  int      `json:"gapsExpected"`
	GapsFound     int      `json:"gapsFound"`
	ClippedMs     float64  `json:"clippedMs"`
	BoundaryMedMs *float64 `json:"boundaryMedMs"`
	BoundaryP95Ms *float64 `json:"boundaryP95Ms"`
	Cuts          int      `json:"cuts"`
}

func (s score) String() string {
	p95 := "-"
	if s.BoundaryP95Ms != nil {
		p95 = strconv.FormatFloat(*s.BoundaryP95Ms, 'f', 1, 64)
	}
	return fmt.Sprintf("%2d/%-2d %7.1f %6s", s.GapsFound, s.GapsExpected, s.ClippedMs, p95)
}

// scorePlan runs the shared score-plan.py on cuts against truth.
func scorePlan(t *testing.T, shared, truth string, cuts []Cut) score {
	t.Helper()
	f := filepath.Join(t.TempDir(), "plan.json")
	if cuts == nil {
		cuts = []Cut{}
	}
	b, _ := json.Marshal(map[string]any{"cuts": cuts})
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", filepath.Join(shared, "corpus", "score-plan.py"), truth, f, "--min-silence", "0.5").CombinedOutput()
	if err != nil {
		t.Fatalf("score-plan %s: %v\n%s", truth, err, out)
	}
	var s score
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("score-plan output %q: %v", out, err)
	}
	return s
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
// silences (seeds 1-3, wav and mp3): every gap of 0.5 s or more found,
// at most 30 ms of speech clipped, boundary error P95 at most 40 ms, on
// every case. ffmpeg silencedetect at -40 and -50 dB is scored beside it.
func TestCorpusAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus generation takes ~15 s")
	}
	shared := sharedDir(t)
	p := Params{MinSilenceSec: 0.5, KeepSilenceMs: 0, MinSpeechMs: 0}
	var lines []string
	var worstClip, worstP95 float64
	for seed := 1; seed <= 3; seed++ {
		dir := corpusDir(t, shared, seed, corpusCases)
		truths, _ := filepath.Glob(filepath.Join(dir, "*.truth.json"))
		sort.Strings(truths)
		if len(truths) != corpusCases {
			t.Fatalf("seed %d: %d cases in %s", seed, len(truths), dir)
		}
		for _, tf := range truths {
			var tr truthFile
			b, err := os.ReadFile(tf)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &tr); err != nil {
				t.Fatal(err)
			}
			noise := "none"
			if tr.Noise != nil {
				noise = fmt.Sprintf("%s%g", tr.Noise.Kind[:4], tr.Noise.LevelDbfs)
			}
			for _, format := range []string{"wav", "mp3"} {
				path := filepath.Join(dir, tr.Files[format])
				a := analyzeFile(t, path)
				pl, err := Make(a, p, nil)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				ours := scorePlan(t, shared, tf, pl.Cuts)
				s40 := scorePlan(t, shared, tf, silencedetect(t, path, -40, a.Input.Duration))
				s50 := scorePlan(t, shared, tf, silencedetect(t, path, -50, a.Input.Duration))
				lines = append(lines, fmt.Sprintf("%-10s %-3s %-9s %6.1f | %s | %s | %s", tr.Name, format, noise, pl.ThresholdDb, ours, s40, s50))
				name := tr.Name + "." + format
				if ours.GapsFound != ours.GapsExpected {
					t.Errorf("%s: found %d of %d gaps >= 0.5 s", name, ours.GapsFound, ours.GapsExpected)
				}
				if ours.ClippedMs > 30 {
					t.Errorf("%s: %.1f ms of speech clipped (max 30)", name, ours.ClippedMs)
				}
				if ours.BoundaryP95Ms == nil || *ours.BoundaryP95Ms > 40 {
					t.Errorf("%s: boundary error P95 %v ms (max 40)", name, ours.BoundaryP95Ms)
				}
				worstClip = max(worstClip, ours.ClippedMs)
				if ours.BoundaryP95Ms != nil {
					worstP95 = max(worstP95, *ours.BoundaryP95Ms)
				}
			}
		}
	}
	t.Logf("gaps found / expected, clipped speech ms, boundary error P95 ms\n%-10s %-3s %-9s %6s | %-20s | %-20s | %-20s\n%s",
		"case", "fmt", "noise", "thr", "autocut (auto thr)", "silencedetect -40dB", "silencedetect -50dB", strings.Join(lines, "\n"))
	t.Logf("autocut worst case: clipped %.1f ms, boundary P95 %.1f ms", worstClip, worstP95)
}
