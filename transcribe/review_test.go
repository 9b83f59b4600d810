package transcribe

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// reviewTranscript: a confident "um", an unsure "uh", and an "um" heard
// inside "modem".
func reviewTranscript() *Transcript {
	return &Transcript{
		Words: []Word{{"so", 0, 0.4, 0.9}, {"um", 0.5, 0.8, 0.9}, {"the", 2, 2.2, 0.9}, {"modem", 2.2, 2.8, 0.9}},
		Fillers: []Filler{
			{Word: "um", Start: 0.5, End: 0.8, Confidence: 0.95},
			{Word: "uh", Start: 1.2, End: 1.5, Confidence: 0.4},
			{Word: "um", Start: 2.4, End: 2.7, Confidence: 0.99},
		},
	}
}

func cutIDs(t *Transcript) []int {
	var out []int
	for _, f := range t.Fillers {
		if f.Cut {
			out = append(out, f.ID)
		}
	}
	return out
}

// TestMarkAndReviewFillers: a filler is cut at the operating point or when
// accepted, kept when rejected, never inside a word; a suggestion is
// listed and not cut, and FillerCuts cuts exactly the fillers marked cut.
func TestMarkAndReviewFillers(t *testing.T) {
	for _, tc := range []struct {
		name           string
		autoCut        float64
		accept, reject []int
		want           []int
		wantCuts       []plan.Cut
	}{
		{"operating point 0.9", 0.9, nil, nil, []int{0}, []plan.Cut{{Start: 0.45, End: 0.85, Reason: plan.ReasonFiller}}},
		{"an engine that only suggests", NoAutoCut, nil, nil, nil, nil},
		{"a suggestion accepted", NoAutoCut, []int{1}, nil, []int{1}, []plan.Cut{{Start: 1.15, End: 1.55, Reason: plan.ReasonFiller}}},
		{"a confident one rejected", 0.9, nil, []int{0}, nil, nil},
		{"accepted inside a word is still not cut", NoAutoCut, []int{2}, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := reviewTranscript()
			MarkFillers(tr, tc.autoCut)
			if (tr.AutoCutConfidence == nil) != (tc.autoCut > 1) {
				t.Errorf("AutoCutConfidence %v for operating point %g", tr.AutoCutConfidence, tc.autoCut)
			}
			if err := Review(tr, tc.accept, tc.reject); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cutIDs(tr)); diff != "" {
				t.Errorf("cut ids (-want +got):\n%s", diff)
			}
			if len(tr.Fillers) != 3 {
				t.Errorf("%d fillers listed, want all 3", len(tr.Fillers))
			}
			for i, f := range tr.Fillers {
				if f.ID != i || f.Kind != "filler" {
					t.Errorf("filler %d: id %d kind %q", i, f.ID, f.Kind)
				}
			}
			if diff := cmp.Diff(tc.wantCuts, FillerCuts(tr, 0.05), cmpFloat()); diff != "" {
				t.Errorf("cuts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReviewErrors(t *testing.T) {
	for _, tc := range []struct {
		name           string
		accept, reject []int
	}{
		{"unknown id", []int{3}, nil},
		{"negative id", nil, []int{-1}},
		{"both", []int{1}, []int{1}},
	} {
		tr := reviewTranscript()
		MarkFillers(tr, 0.9)
		before := cutIDs(tr)
		err := Review(tr, tc.accept, tc.reject)
		if !errors.Is(err, ErrReview) {
			t.Errorf("%s: %v, want ErrReview", tc.name, err)
		}
		if diff := cmp.Diff(before, cutIDs(tr)); diff != "" || tr.Fillers[1].Review != "" {
			t.Errorf("%s: the transcript changed (-before +after):\n%s", tc.name, diff)
		}
	}
	if err := Review(nil, []int{0}, nil); !errors.Is(err, ErrReview) {
		t.Errorf("nil transcript: %v", err)
	}
}

// langEngine is a stand-in engine that hears only its languages and says
// which language it was asked.
type langEngine struct {
	name  string
	langs []string
	calls []string
}

func (e *langEngine) Name() string                        { return e.name }
func (e *langEngine) Available(ctx context.Context) error { return nil }
func (e *langEngine) Serves(lang string) (bool, string) {
	for _, l := range e.langs {
		if l == lang {
			return true, ""
		}
	}
	return false, e.name + " hears only " + strings.Join(e.langs, ", ")
}
func (e *langEngine) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*Transcript, error) {
	e.calls = append(e.calls, lang)
	t := &Transcript{Status: "done", Language: lang, Engine: e.name, Fillers: []Filler{{Word: "um", Start: 1, End: 1.2, Confidence: 1}}}
	MarkFillers(t, 0.5)
	return t, nil
}

// TestChainLanguage: the chain uses the first engine that hears the
// language, never one that does not; with none, the transcript says so,
// with no filler.
func TestChainLanguage(t *testing.T) {
	en := &langEngine{name: "english", langs: []string{"", "en"}}
	any := &langEngine{name: "multi", langs: []string{"", "en", "fr"}}
	for _, tc := range []struct {
		name       string
		engines    []Transcriber
		lang       string
		wantEngine string
	}{
		{"first serves", []Transcriber{en, any}, "en", "english"},
		{"second serves", []Transcriber{en, any}, "fr", "multi"},
		{"none serves", []Transcriber{en}, "fr", ""},
		{"not given", []Transcriber{en, any}, "", "english"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			en.calls, any.calls = nil, nil
			tr, err := NewChain(tc.engines...).Transcribe(context.Background(), "x.wav", tc.lang, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Engine != tc.wantEngine || tr.Language != tc.lang || tr.Status != "done" {
				t.Errorf("transcript %+v, want engine %q language %q", tr, tc.wantEngine, tc.lang)
			}
			if tc.wantEngine == "" {
				if len(tr.Fillers) != 0 || len(cutIDs(tr)) != 0 || !strings.Contains(tr.Warning, "no transcription engine") || !strings.Contains(tr.Warning, "english hears only") {
					t.Errorf("no engine for %q: %+v", tc.lang, tr)
				}
				if len(en.calls)+len(any.calls) != 0 {
					t.Errorf("an engine ran on a language it does not hear: %v %v", en.calls, any.calls)
				}
			}
			if tc.lang == "fr" && len(en.calls) != 0 {
				t.Errorf("the English engine heard French")
			}
		})
	}
}

// TestEnginesServe: pocketsphinx's English model never hears French;
// whisper's English-only models neither; a multilingual whisper model and
// the acoustic detector serve every language.
func TestEnginesServe(t *testing.T) {
	for _, tc := range []struct {
		e    LanguageServer
		lang string
		want bool
	}{
		{&Pocketsphinx{}, "en", true},
		{&Pocketsphinx{}, "", true},
		{&Pocketsphinx{}, "fr", false},
		{&Whisper{Model: "/m/ggml-base.en.bin"}, "fr", false},
		{&Whisper{Model: "/m/ggml-base.en.bin"}, "en", true},
		{&Whisper{Model: "/m/ggml-small.bin"}, "fr", true},
		{&Acoustic{}, "fr", true},
		{&Acoustic{}, "de", true},
	} {
		if got, why := tc.e.Serves(tc.lang); got != tc.want || (!got && why == "") {
			t.Errorf("%T %+v serves %q: %v (%q), want %v", tc.e, tc.e, tc.lang, got, why, tc.want)
		}
	}
}

func TestNormalizeLanguage(t *testing.T) {
	for in, want := range map[string]string{"": "", "fr": "fr", "FR": "fr", "fr-CA": "fr", "en_US": "en", " de ": "de", "fil": "fil"} {
		if got, err := NormalizeLanguage(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"f", "french", "1x", "-", "é"} {
		if got, err := NormalizeLanguage(in); err == nil {
			t.Errorf("%q: %q, want an error", in, got)
		}
	}
}

// TestDetectFillersFrenchLexicon: the French lexicon in the whisper word
// path: euh, bah, hein anywhere; ben only between pauses; no English
// filler in French and no French one in English.
func TestDetectFillersFrenchLexicon(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lang  string
		words []Word
		want  []string
	}{
		{"euh bah hein", "fr", []Word{{"Euh,", 0, 0.3, 0.9}, {"c'est", 0.3, 0.5, 0.9}, {"bah", 0.5, 0.7, 0.9}, {"bien", 0.7, 0.9, 0.9}, {"hein", 0.9, 1.1, 0.9}}, []string{"euh", "bah", "hein"}},
		{"ben between pauses", "fr", []Word{{"oui", 0, 0.3, 0.9}, {"ben", 0.7, 0.9, 0.9}, {"non", 1.3, 1.5, 0.9}}, []string{"ben"}},
		{"ben in a phrase", "fr", []Word{{"eh", 0, 0.2, 0.9}, {"ben", 0.2, 0.4, 0.9}, {"voilà", 0.4, 0.7, 0.9}, {"tout", 0.7, 0.9, 0.9}}, nil},
		{"English fillers are not French", "fr", []Word{{"um", 0, 0.3, 0.9}, {"uh", 0.8, 1.0, 0.9}, {"ah", 1.5, 1.7, 0.9}, {"hmm", 2.2, 2.5, 0.9}}, nil},
		{"French fillers are not English", "en", []Word{{"euh", 0, 0.3, 0.9}, {"bah", 0.8, 1.0, 0.9}, {"hein", 1.5, 1.7, 0.9}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range DetectFillers(tc.words, tc.lang) {
				got = append(got, f.Word)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseWhisperLanguage: a whisper run asked for French gives French
// fillers only, whatever whisper wrote in its language field.
func TestParseWhisperLanguage(t *testing.T) {
	doc := `{"result":{"language":"en"},"transcription":[
	 {"offsets":{"from":0,"to":300},"text":" euh","tokens":[{"text":" euh","p":0.9}]},
	 {"offsets":{"from":300,"to":700},"text":" um","tokens":[{"text":" um","p":0.9}]},
	 {"offsets":{"from":700,"to":900},"text":" bah","tokens":[{"text":" bah","p":0.8}]}]}`
	tr, err := parseWhisper([]byte(doc), "fr")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range tr.Fillers {
		got = append(got, f.Word)
		if f.Cut {
			t.Errorf("whisper is unmeasured: %q cut", f.Word)
		}
	}
	if diff := cmp.Diff([]string{"euh", "bah"}, got); diff != "" || tr.Language != "fr" {
		t.Errorf("language %q, fillers (-want +got):\n%s", tr.Language, diff)
	}
}
