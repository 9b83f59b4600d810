package transcribe

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/plan"
)

// piece is one part of the test speech: a sentence or a filler said alone.
type piece struct {
	text   string
	filler bool
}

// buildSpeech says each piece with flite's rms voice (the one pocketsphinx
// hears best), joins them with sox with short pauses, and returns the file and
// the true filler intervals.
func buildSpeech(t *testing.T, pieces []piece) (string, [][2]float64) {
	t.Helper()
	dir := t.TempDir()
	var files []string
	var truth [][2]float64
	pos := 0.0
	for i, p := range pieces {
		f := filepath.Join(dir, strconv.Itoa(i)+".wav")
		if b, err := exec.Command("flite", "-voice", "rms", "-t", p.text, "-o", f).CombinedOutput(); err != nil {
			t.Fatalf("flite: %v: %s", err, b)
		}
		// resample and add 0.25 s of silence after each piece
		g := filepath.Join(dir, strconv.Itoa(i)+"p.wav")
		if b, err := exec.Command("sox", f, "-r", "16000", "-c", "1", "-b", "16", g, "pad", "0", "0.25").CombinedOutput(); err != nil {
			t.Fatalf("sox: %v: %s", err, b)
		}
		out, err := exec.Command("soxi", "-D", g).Output()
		if err != nil {
			t.Fatal(err)
		}
		d, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if p.filler {
			truth = append(truth, [2]float64{pos, pos + d - 0.25})
		}
		pos += d
		files = append(files, g)
	}
	all := filepath.Join(dir, "speech.wav")
	if b, err := exec.Command("sox", append(files, all)...).CombinedOutput(); err != nil {
		t.Fatalf("sox join: %v: %s", err, b)
	}
	return all, truth
}

// score matches found fillers to true ones within tol seconds of the centre.
func score(found []Filler, truth [][2]float64, tol float64) (precision, recall float64) {
	used := make([]bool, len(truth))
	hits := 0
	for _, f := range found {
		c := (f.Start + f.End) / 2
		for i, tr := range truth {
			if !used[i] && c >= tr[0]-tol && c <= tr[1]+tol {
				used[i] = true
				hits++
				break
			}
		}
	}
	if len(found) > 0 {
		precision = float64(hits) / float64(len(found))
	}
	if len(truth) > 0 {
		recall = float64(hits) / float64(len(truth))
	}
	return
}

func TestPocketsphinxFindsFillers(t *testing.T) {
	sentences := []string{
		"So I think we should go to the market today.",
		"The quarterly numbers came in higher than anyone expected.",
		"Let me tell you about the time I lost my keys in Berlin.",
		"Podcasting is mostly about showing up every single week.",
		"Here is the thing nobody tells you about editing audio.",
		"We recorded this episode in a small room with a big window.",
		"Honestly, the second half of the interview was the best part.",
		"If you remember one thing from today, remember this.",
	}
	fillers := []string{"um", "uh", "um", "uh", "um", "uh", "um", "uh"}
	var pieces []piece
	for i, s := range sentences {
		pieces = append(pieces, piece{s, false}, piece{fillers[i], true})
	}
	path, truth := buildSpeech(t, pieces)
	e := &Pocketsphinx{}
	tr, err := e.Transcribe(context.Background(), path, "en", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, r := score(tr.Fillers, truth, 0.3)
	t.Logf("true fillers: %v", truth)
	t.Logf("pocketsphinx (kws threshold 1e+5): %d words, %d fillers found of %d: precision %.2f, recall %.2f",
		len(tr.Words), len(tr.Fillers), len(truth), p, r)
	for _, f := range tr.Fillers {
		t.Logf("  %-4s %.2f-%.2f (%.2f)", f.Word, f.Start, f.End, f.Confidence)
	}
	if r < 0.5 || p < 0.7 {
		t.Errorf("precision %.2f (want >= 0.7), recall %.2f (want >= 0.5)", p, r)
	}
	if len(tr.Words) < 40 {
		t.Errorf("only %d words recognised", len(tr.Words))
	}

	// A clip without fillers must give none.
	var clean []piece
	for _, s := range sentences[:5] {
		clean = append(clean, piece{s, false})
	}
	path, _ = buildSpeech(t, clean)
	tr, err = e.Transcribe(context.Background(), path, "en", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clip without fillers: %d fillers found", len(tr.Fillers))
	if len(tr.Fillers) != 0 {
		t.Errorf("fillers found in a clip that has none: %+v", tr.Fillers)
	}
}

// TestWhisperAdapterWithStandInExecutable runs the whisper engine's whole code
// path (conversion, command line, output file, JSON parsing, filler
// detection) against a stand-in script that writes a saved whisper-cli
// full-JSON output. It proves the adapter, not whisper's recognition.
func TestWhisperAdapterWithStandInExecutable(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "ggml-base.bin")
	os.WriteFile(model, []byte("not a real model"), 0o600)
	fixture, _ := filepath.Abs("testdata/whisper-full.json")
	args := filepath.Join(dir, "args.txt")
	script := filepath.Join(dir, "whisper-cli")
	os.WriteFile(script, []byte(`#!/bin/sh
echo "$@" > `+args+`
while [ $# -gt 0 ]; do
  case "$1" in -of) out="$2"; shift;; esac
  shift
done
cp `+fixture+` "$out.json"
`), 0o755)
	in := filepath.Join(dir, "in.wav")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=d=1", in).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	tr, err := New(context.Background(), Config{WhisperModel: model, WhisperCLI: script})
	if err != nil || tr.Name() != "whisper" {
		t.Fatalf("New: %v %v", tr, err)
	}
	got, err := tr.Transcribe(context.Background(), in, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(args)
	for _, want := range []string{"-m " + model, "-ml 1", "-ojf", "--prompt Um, uh", "-l auto"} {
		if !strings.Contains(string(a), want) {
			t.Errorf("command line %q lacks %q", a, want)
		}
	}
	words := make([]string, len(got.Words))
	for i, w := range got.Words {
		words[i] = w.Word
	}
	if diff := cmp.Diff([]string{"So", "um,", "I", "think", "like", "we", "like", "music.", "Uh"}, words); diff != "" {
		t.Errorf("words (-want +got):\n%s", diff)
	}
	var fl []string
	for _, f := range got.Fillers {
		fl = append(fl, f.Word)
	}
	// "like" at 2.4 s is flanked by pauses (a filler); "we like music" is not.
	if diff := cmp.Diff([]string{"um", "like", "uh"}, fl); diff != "" {
		t.Errorf("fillers (-want +got):\n%s", diff)
	}
	if got.Language != "en" || got.Fillers[0].Start != 0.32 || got.Fillers[0].End != 0.9 {
		t.Errorf("transcript %+v", got)
	}
	if got.Fillers[1].Confidence >= got.Fillers[0].Confidence {
		t.Errorf("an ambiguous filler should carry a lower confidence: %+v", got.Fillers)
	}
}

func TestDetectFillersFrench(t *testing.T) {
	words := []Word{{"Bonjour", 0, 0.5, 0.9}, {"euh", 0.6, 0.9, 0.8}, {"je", 1.0, 1.1, 0.9}, {"pense", 1.1, 1.4, 0.9},
		{"genre", 1.8, 2.1, 0.9}, {"que", 2.5, 2.6, 0.9}, {"c'est", 2.6, 2.8, 0.9}, {"genre", 2.8, 3.0, 0.9}, {"bien", 3.0, 3.2, 0.9}}
	got := DetectFillers(words, "fr")
	var w []string
	for _, f := range got {
		w = append(w, f.Word)
	}
	if diff := cmp.Diff([]string{"euh", "genre"}, w); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFillerCuts(t *testing.T) {
	tr := &Transcript{Fillers: []Filler{{Word: "um", Start: 1, End: 1.3, Cut: true}, {Word: "uh", Start: 1.35, End: 1.5, Cut: true}, {Word: "um", Start: 0.02, End: 0.2, Cut: true}}}
	tr.Fillers = mergeFillers(tr.Fillers)
	got := FillerCuts(tr, 0.05)
	want := []plan.Cut{{Start: 0, End: 0.25, Reason: plan.ReasonFiller}, {Start: 0.95, End: 1.55, Reason: plan.ReasonFiller}}
	if diff := cmp.Diff(want, got, cmpFloat()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A pad that is no length is none: plan.Make refused the reversed or
	// NaN cuts it made.
	one := &Transcript{Fillers: []Filler{{Word: "um", Start: 1, End: 1.1, Cut: true}}}
	for _, pad := range []float64{-1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		want := []plan.Cut{{Start: 1, End: 1.1, Reason: plan.ReasonFiller}}
		if diff := cmp.Diff(want, FillerCuts(one, pad), cmpFloat()); diff != "" {
			t.Errorf("pad %v (-want +got):\n%s", pad, diff)
		}
	}
}

func cmpFloat() cmp.Option {
	return cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
}

func TestDetectFillersEnglishFlanking(t *testing.T) {
	tests := []struct {
		name  string
		words []Word
		want  []string
	}{
		{"sure fillers anywhere", []Word{{"I", 0, 0.2, 0.9}, {"Um,", 0.2, 0.5, 0.8}, {"think", 0.5, 0.8, 0.9}, {"hmm", 0.8, 1.0, 0.9}}, []string{"um", "hmm"}},
		{"like inside a phrase is a word", []Word{{"I", 0, 0.2, 0.9}, {"like", 0.2, 0.5, 0.9}, {"it", 0.5, 0.7, 0.9}}, nil},
		{"like between pauses", []Word{{"I", 0, 0.2, 0.9}, {"like", 0.6, 0.9, 0.9}, {"it", 1.3, 1.5, 0.9}}, []string{"like"}},
		{"you know between pauses", []Word{{"it", 0, 0.2, 0.9}, {"you", 0.6, 0.7, 0.9}, {"know", 0.7, 0.9, 0.9}, {"is", 1.3, 1.5, 0.9}}, []string{"you know"}},
		{"you know in a phrase", []Word{{"do", 0, 0.2, 0.9}, {"you", 0.2, 0.3, 0.9}, {"know", 0.3, 0.5, 0.9}, {"him", 0.5, 0.7, 0.9}}, nil},
		{"pause on one side only", []Word{{"I", 0, 0.2, 0.9}, {"like", 0.6, 0.9, 0.9}, {"it", 0.95, 1.1, 0.9}}, nil},
		{"pocketsphinx variant suffix", []Word{{"uh(2)", 0, 0.3, 0.9}}, []string{"uh"}},
		{"French word not in English lexicon", []Word{{"euh", 0, 0.3, 0.9}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range DetectFillers(tc.words, "en") {
				got = append(got, f.Word)
				if f.Kind != "filler" {
					t.Errorf("kind %q", f.Kind)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewUnavailable(t *testing.T) {
	_, err := New(context.Background(), Config{Order: []string{"whisper"}})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "whisper-model") {
		t.Errorf("no engine: %v", err)
	}
	_, err = New(context.Background(), Config{Order: []string{"pocketsphinx"}})
	if err != nil {
		t.Errorf("pocketsphinx installed by the test set-up: %v", err)
	}
}

// TestTranscriptJSONArrays checks that a transcript with no words or no
// fillers writes them as [] (autocut transcribe printed "fillers": null
// for a file with none).
func TestTranscriptJSONArrays(t *testing.T) {
	for _, tr := range []Transcript{
		{Status: "done", Language: "en", Engine: "pocketsphinx", Words: []Word{{Word: "and", Start: 0.1, End: 0.2}}},
		{Status: "pending"},
	} {
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"words", "fillers"} {
			if v := string(doc[k]); len(v) == 0 || v[0] != '[' {
				t.Errorf("%s: %s is %q, want an array", b, k, v)
			}
		}
		if tr.Words != nil && !strings.Contains(string(doc["words"]), `"and"`) {
			t.Errorf("%s: the words are lost", b)
		}
	}
}

// A language pocketsphinx has no model for is refused before any work,
// as ErrLanguage (a mistake of the caller's) and ErrUnavailable.
func TestPocketsphinxLanguage(t *testing.T) {
	for _, lang := range []string{"fr", "xx"} {
		_, err := (&Pocketsphinx{}).Transcribe(context.Background(), "no-such-file.wav", lang, nil)
		if !errors.Is(err, ErrLanguage) || !errors.Is(err, ErrUnavailable) {
			t.Errorf("lang %s: %v, want ErrLanguage and ErrUnavailable", lang, err)
		}
	}
}

// TestFillerCutsSpareWords: a filler is never cut into a recognised word.
// One inside a word (an "um" heard in the middle of "modem") is left out;
// one beside words is padded only up to them; the filler's own word (the
// same sound, times a frame apart) does not count.
func TestFillerCutsSpareWords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		words  []Word
		filler Filler
		want   []plan.Cut
	}{
		{"inside a word", []Word{{"the", 0.5, 0.7, 0.9}, {"modem", 0.7, 1.2, 0.9}}, Filler{Word: "um", Start: 0.9, End: 1.1},
			nil},
		{"over a word's end", []Word{{"modem", 0.7, 1.0, 0.9}}, Filler{Word: "um", Start: 0.95, End: 1.3},
			nil},
		{"its own word", []Word{{"so", 0.2, 0.5, 0.9}, {"um", 0.98, 1.32, 0.8}, {"yes", 1.8, 2.0, 0.9}}, Filler{Word: "um", Start: 1, End: 1.3},
			[]plan.Cut{{Start: 0.95, End: 1.35, Reason: plan.ReasonFiller}}},
		{"padding stops at the words beside", []Word{{"so", 0.2, 0.98, 0.9}, {"yes", 1.32, 2.0, 0.9}}, Filler{Word: "um", Start: 1, End: 1.3},
			[]plan.Cut{{Start: 0.98, End: 1.32, Reason: plan.ReasonFiller}}},
		{"no words (an acoustic detector)", nil, Filler{Word: "um", Start: 1, End: 1.3},
			[]plan.Cut{{Start: 0.95, End: 1.35, Reason: plan.ReasonFiller}}},
	} {
		tc.filler.Cut = true
		got := FillerCuts(&Transcript{Words: tc.words, Fillers: []Filler{tc.filler}}, 0.05)
		if diff := cmp.Diff(tc.want, got, cmpFloat()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
