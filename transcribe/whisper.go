package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/proc"
	"github.com/autocut-dev/autocut/internal/tail"
)

// WhisperPrompt is passed as whisper's initial prompt: whisper tends to
// write clean text without fillers; a prompt full of them makes it keep them.
// It is the English one, also used when the language is not given.
const WhisperPrompt = "Um, uh, hmm, er, ah. So, um, I think, uh, we should go."

// whisperPrompts are the verbatim prompts of the other languages with a
// filler lexicon.
var whisperPrompts = map[string]string{
	"fr": "Euh, bah, ben, hein. Alors, euh, je pense que, euh, on devrait y aller.",
}

// whisperPrompt is the initial prompt for lang.
func whisperPrompt(lang string) string {
	if p, ok := whisperPrompts[lang]; ok {
		return p
	}
	return WhisperPrompt
}

// englishOnly reports whether a ggml model is an English-only one
// (ggml-base.en.bin, ggml-small.en-q5_1.bin).
func englishOnly(model string) bool {
	return strings.Contains(filepath.Base(model), ".en")
}

// Serves reports whether the model hears lang: an English-only model
// (NAME.en) English alone, a multilingual one every language (whisper
// detects it when not given).
func (w *Whisper) Serves(lang string) (bool, string) {
	if lang == "" || lang == "en" || !englishOnly(w.Model) {
		return true, ""
	}
	return false, fmt.Sprintf("whisper's model %s is English-only", filepath.Base(w.Model))
}

// Whisper runs whisper.cpp's whisper-cli as a subprocess with word-level
// segments (-ml 1 -sow) and full JSON output (-ojf).
type Whisper struct {
	Model string // ggml model file (required)
	CLI   string // whisper-cli binary; default whisper-cli on PATH
	// NoRefine keeps whisper's own word times; by default they are
	// refined on the signal (RefineWords).
	NoRefine bool
}

// Name returns "whisper".
func (w *Whisper) Name() string { return "whisper" }

func (w *Whisper) cli() string { return orDefault(w.CLI, "whisper-cli") }

// Available checks that a model file and the binary are configured and exist.
func (w *Whisper) Available(ctx context.Context) error {
	if w.Model == "" {
		return errNotAvailable("whisper: no model configured (autocut models pull base.en, --model NAME, --whisper-model FILE or AUTOCUT_WHISPER_MODEL)")
	}
	if _, err := os.Stat(w.Model); err != nil {
		return errNotAvailable("whisper: model %s: %v", w.Model, err)
	}
	if _, err := exec.LookPath(w.cli()); err != nil {
		return errNotAvailable("whisper: %s not found (--whisper-cli or AUTOCUT_WHISPER_CLI)", w.cli())
	}
	return nil
}

// Transcribe converts path to 16 kHz WAV and runs whisper-cli on it.
func (w *Whisper) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*Transcript, error) {
	if err := w.Available(ctx); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if ok, why := w.Serves(lang); !ok {
		return nil, fmt.Errorf("%w: %w: %s, not %q", ErrUnavailable, ErrLanguage, why, lang)
	}
	dir, cleanup, err := scratch()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	wav, err := to16kWAV(ctx, path, dir)
	if err != nil {
		return nil, err
	}
	prompt := whisperPrompt(lang)
	if lang == "" {
		lang = "auto"
		if englishOnly(w.Model) {
			lang = "en"
		}
	}
	outBase := filepath.Join(dir, "out")
	cmd := proc.Command(ctx, w.cli(), "-m", w.Model, "-f", wav, "-l", lang, "-ml", "1", "-sow",
		"-ojf", "-of", outBase, "-np", "--prompt", prompt)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("whisper-cli: %v: %s", err, tail.Lines(stderr.String(), 3))
	}
	b, err := os.ReadFile(outBase + ".json")
	if err != nil {
		return nil, fmt.Errorf("whisper-cli wrote no JSON: %w", err)
	}
	if lang == "auto" {
		lang = ""
	}
	t, err := parseWhisper(b, lang)
	if err != nil {
		return nil, err
	}
	if !w.NoRefine {
		if err := RefineWords(ctx, t, wav, WhisperAutoCut); err != nil {
			return nil, err
		}
	}
	report(progress, 1)
	return t, nil
}

// ParseWhisperJSON reads whisper-cli's full JSON output (-ojf) with one word
// per segment (-ml 1): segment offsets are milliseconds, token p is the
// probability; bracketed non-speech tokens ([_BEG_], [BLANK_AUDIO]) are skipped.
func ParseWhisperJSON(b []byte) (*Transcript, error) { return parseWhisper(b, "") }

// parseWhisper is ParseWhisperJSON for a run asked for language lang ("":
// detected): the transcript is in lang, and its fillers are those of
// lang's lexicon alone.
func parseWhisper(b []byte, lang string) (*Transcript, error) {
	var doc struct {
		Result struct {
			Language string `json:"language"`
		} `json:"result"`
		Transcription []struct {
			Offsets struct{ From, To int64 } `json:"offsets"`
			Text    string                   `json:"text"`
			Tokens  []struct {
				Text string  `json:"text"`
				P    float64 `json:"p"`
			} `json:"tokens"`
		} `json:"transcription"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("whisper JSON: %w", err)
	}
	t := &Transcript{Status: "done", Language: orDefault(lang, doc.Result.Language), Engine: "whisper", Words: []Word{}}
	for _, s := range doc.Transcription {
		text := strings.TrimSpace(s.Text)
		if text == "" || strings.HasPrefix(text, "[") {
			continue
		}
		var p float64
		n := 0
		for _, tok := range s.Tokens {
			if strings.HasPrefix(strings.TrimSpace(tok.Text), "[_") {
				continue
			}
			p += tok.P
			n++
		}
		if n > 0 {
			p /= float64(n)
		}
		t.Words = append(t.Words, Word{Word: text, Start: float64(s.Offsets.From) / 1000, End: float64(s.Offsets.To) / 1000, Confidence: p})
	}
	t.Fillers = mergeFillers(DetectFillers(t.Words, t.Language))
	if t.Fillers == nil {
		t.Fillers = []Filler{}
	}
	MarkFillers(t, WhisperAutoCut)
	return t, nil
}
