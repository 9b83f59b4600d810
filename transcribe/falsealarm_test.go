package transcribe

import (
	"bufio"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// noFillerSpeech is a recording of real speech without filled pauses.
type noFillerSpeech struct {
	path, lang string
	sec        float64
}

// speechWithoutFillers lists the repository's read prompts and audiobook
// extract (testdata/recordings) and, when AUTOCUT_REALDATA is set, the
// read speech of its corpus (corpus/INDEX.tsv rows of a "read" kind whose
// transcript counts no filled pause: audiobooks, read passages, prompts).
func speechWithoutFillers(t *testing.T) []noFillerSpeech {
	t.Helper()
	var out []noFillerSpeech
	for _, f := range []string{"en_asterisk_allison_demo-instruct_73s.wav", "en_librivox_sense_sensibility_0870.wav",
		"es_asterisk_allison_demo-instruct_86s.wav", "fr_asterisk_june_demo-instruct_71s.wav",
		"it_asterisk_carlo_demo-instruct_64s.wav", "ru_asterisk_ivrvoice_demo-instruct_74s.wav"} {
		out = append(out, noFillerSpeech{path: filepath.Join("../testdata/recordings", f), lang: f[:2]})
	}
	if dir := realdata.Optional(t); dir != "" {
		f, err := os.Open(filepath.Join(dir, "corpus", "INDEX.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		var col map[string]int
		for sc.Scan() {
			fs := strings.Split(sc.Text(), "\t")
			if col == nil {
				col = map[string]int{}
				for i, n := range fs {
					col[n] = i
				}
				for _, n := range []string{"local_path", "language", "kind", "filled_pauses", "duration_s"} {
					if _, ok := col[n]; !ok {
						t.Fatalf("INDEX.tsv has no column %s", n)
					}
				}
				continue
			}
			if len(fs) < len(col) || !strings.HasPrefix(fs[col["kind"]], "read") || fs[col["filled_pauses"]] != "timed=0" && fs[col["filled_pauses"]] != "timed=0; transcript=0" {
				continue
			}
			lang, _, _ := strings.Cut(fs[col["language"]], " ") // "zh (Mandarin)"
			sec, _ := strconv.ParseFloat(fs[col["duration_s"]], 64)
			out = append(out, noFillerSpeech{path: filepath.Join(dir, "corpus", fs[col["local_path"]]), lang: lang, sec: sec})
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range out {
		if out[i].sec == 0 {
			b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out[i].path).Output()
			if err != nil {
				t.Fatalf("ffprobe %s: %v", out[i].path, err)
			}
			out[i].sec, _ = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		}
	}
	return out
}

// TestAutoCutFalseAlarms: on real speech without filled pauses (read
// prompts and audiobooks in 14 languages), each engine, run as the server
// runs it (a Chain, with the recording's language), cuts at most one
// filler per 5 minutes without review. The suggestions it lists are
// counted too (they cost the user a look, not a word).
func TestAutoCutFalseAlarms(t *testing.T) {
	testtier.Slow(t, "every engine over the read speech")
	speech := speechWithoutFillers(t)
	engines := []Transcriber{&Acoustic{}}
	if _, err := exec.LookPath("pocketsphinx_continuous"); err == nil {
		engines = append(engines, &Pocketsphinx{})
	}
	for _, e := range engines {
		chain := NewChain(e)
		var heard, total float64
		cut, listed := 0, 0
		langs := map[string]bool{}
		for _, s := range speech {
			total += s.sec
			tr, err := chain.Transcribe(context.Background(), s.path, s.lang, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", e.Name(), s.path, err)
			}
			if tr.Engine == "" {
				continue // not heard: a language the engine does not serve
			}
			heard += s.sec
			langs[s.lang] = true
			n := len(FillerCuts(tr, 0.04))
			cut += n
			listed += len(tr.Fillers)
			if n > 0 {
				t.Logf("%s: %s: %d fillers cut unasked", e.Name(), s.path, n)
			}
		}
		per5 := func(n int) float64 { return float64(n) / math.Max(heard, 1) * 300 }
		t.Logf("%s: %d recordings (%.1f min) in %d languages heard of %d (%.1f min): %d fillers cut unasked (%.2f per 5 min), %d suggested (%.1f per 5 min)",
			e.Name(), len(speech), heard/60, len(langs), len(speech), total/60, cut, per5(cut), listed, per5(listed))
		// Under 5 minutes heard, none is allowed.
		if allowed := int(heard / 300); cut > allowed {
			t.Errorf("%s: %d fillers cut unasked in %.1f min of speech without any (at most %d: one per 5 minutes)", e.Name(), cut, heard/60, allowed)
		}
	}
}
