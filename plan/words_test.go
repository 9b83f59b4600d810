package plan

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/internal/align"

	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// A timed word of a real recording (a forced alignment's).
type timedWord struct {
	text       string
	start, end float64
}

// notWords are the labels of alignments that mark no word: silences,
// pauses, noises.
var notWords = map[string]bool{"": true, "#": true, "+": true, "*": true, "sil": true, "sp": true, "spn": true, "<eps>": true, "@": true, "dummy": true}

// readTextGrid returns the intervals of tier "words" of a Praat TextGrid.
func readTextGrid(path string) ([]timedWord, error) { return timedWords(align.TextGridFile(path)) }

// errNoWords: the alignment has no word tier (an utterance-level one).
var errNoWords = align.ErrNoWords

// readXRA returns the annotations of tier TokensAlign of a SPPAS XRA file.
func readXRA(path string) ([]timedWord, error) { return timedWords(align.XRAFile(path)) }

// timedWords converts an alignment's words.
func timedWords(ws []align.Word, err error) ([]timedWord, error) {
	if err != nil {
		return nil, err
	}
	out := make([]timedWord, len(ws))
	for i, w := range ws {
		out[i] = timedWord{w.Text, w.Start, w.End}
	}
	return out, nil
}

// wordRecording is a recording of the split with its word alignment.
type wordRecording struct {
	part, audio, words string
}

// wordRecordings lists the recordings of testdata/split/speech.tsv whose
// timing reference is a forced alignment of words (MFA TextGrids, SPPAS
// token alignments), with the alignment's path under the material.
func wordRecordings(t *testing.T) []wordRecording {
	t.Helper()
	f, err := os.Open(realdata.Repo(t, "testdata/split/speech.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []wordRecording
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 7 || c[1] != "realdata" || !strings.HasPrefix(c[6], "word") {
			continue
		}
		ref := strings.Fields(strings.SplitN(c[6], ":", 2)[1])[0]
		if !strings.HasSuffix(ref, ".TextGrid") && !strings.HasSuffix(ref, ".xra") {
			continue // ASR word times (picovoice, whisper): not an alignment
		}
		out = append(out, wordRecording{part: c[0], audio: c[2], words: filepath.Join("corpus", ref)})
	}
	return out
}

// loudest100 returns the start of the loudest 100 ms of [s, e) by the
// 10 ms levels rms (frameSec each): the whole word when shorter.
func loudest100(rms []float32, frameSec, s, e float64) (float64, float64) {
	i0, i1 := int(s/frameSec), min(int(e/frameSec), len(rms))
	w := int(0.1/frameSec + 0.5)
	if i1-i0 <= w {
		return s, e
	}
	best, at := -1.0, i0
	for i := i0; i+w <= i1; i++ {
		p := 0.0
		for _, v := range rms[i : i+w] {
			p += math.Pow(10, float64(v)/10)
		}
		if p > best {
			best, at = p, i
		}
	}
	return float64(at) * frameSec, float64(at+w) * frameSec
}

// timedWordsMaxLost are TestTimedWords' regression ceilings, per part and
// preset: the words lost when measured. The report part's speaker with a
// cold (MFA's cold_corpus) lost 7-23 words per preset until the plan took
// its references after the rumble filter where the rumble sets them
// (references); what is left is acoustic_corpus's "um" and its youtube
// islands, and two French words with full removal. The bar is
// none.
var timedWordsMaxLost = map[string]map[string]int{
	"tune":   {"podcast": 0, "youtube": 0, "interview": 0, "cours": 0, "full removal": 0},
	"report": {"podcast": 1, "youtube": 5, "interview": 1, "cours": 1, "full removal": 3},
}

// TestTimedWords plans every real recording of the split that has a forced
// alignment of its words, with the conversational presets and full
// removal, and counts the words whose loudest 100 ms lies more than half
// inside a cut, per part and preset: none may (the bar, logged
// where it is not met), and no more than timedWordsMaxLost.
func TestTimedWords(t *testing.T) {
	testtier.Slow(t, "timed words: about 20 s")
	dir := realdata.Dir(t)
	presets := conversationPresets(t)
	names := []string{"podcast", "youtube", "interview", "cours", "full removal"}
	type key struct{ part, preset string }
	words, lost := map[key]int{}, map[key]int{}
	var lines []string
	for _, r := range wordRecordings(t) {
		var ws []timedWord
		var err error
		if strings.HasSuffix(r.words, ".xra") {
			ws, err = readXRA(filepath.Join(dir, r.words))
		} else {
			ws, err = readTextGrid(filepath.Join(dir, r.words))
		}
		if errors.Is(err, errNoWords) {
			t.Logf("%s: %s has no word tier", r.audio, r.words)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		a := analyzeFile(t, filepath.Join(dir, r.audio))
		for _, name := range names {
			pl, err := Make(a, presets[name], nil)
			if err != nil {
				t.Fatalf("%s: %v", r.audio, err)
			}
			k := key{r.part, name}
			for _, w := range ws {
				if notWords[strings.ToLower(w.text)] || w.end <= w.start {
					continue
				}
				words[k]++
				s, e := loudest100(a.Envelope.RMSDb, a.Envelope.FrameSec, w.start, w.end)
				in := 0.0
				for _, c := range pl.Cuts {
					in += max(0, min(c.End, e)-max(c.Start, s))
				}
				if in > (e-s)/2 {
					lost[k]++
					lines = append(lines, fmt.Sprintf("%s %s %s: %q at %.2f-%.2f s (%.0f of its loudest %.0f ms cut)", r.part, name, filepath.Base(r.audio), w.text, w.start, w.end, 1000*in, 1000*(e-s)))
				}
			}
		}
	}
	var table []string
	var keys []key
	for k := range words {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].part > keys[j].part || keys[i].part == keys[j].part && keys[i].preset < keys[j].preset
	})
	for _, k := range keys {
		table = append(table, fmt.Sprintf("%-7s %-13s %5d words %3d lost", k.part, k.preset, words[k], lost[k]))
		if ceil := timedWordsMaxLost[k.part][k.preset]; lost[k] > ceil {
			t.Errorf("%s part, %s: %d of %d timed words lose their loudest 100 ms (regression ceiling %d)", k.part, k.preset, lost[k], words[k], ceil)
		}
	}
	t.Logf("timed words (MFA and SPPAS alignments):\n%s\n%s", strings.Join(table, "\n"), strings.Join(lines, "\n"))
}
