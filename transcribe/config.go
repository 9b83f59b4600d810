package transcribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
)

// Config chooses and configures the engines.
type Config struct {
	WhisperModel string   // whisper.cpp model file (ggml); "" uses the first model pulled into the user cache (autocut models pull)
	WhisperCLI   string   // whisper-cli binary; "" means whisper-cli on PATH
	Order        []string // engines to try, first available wins (default: DefaultOrder)
	// PocketsphinxKWSThreshold is the keyword-spotting threshold for
	// fillers: higher finds fewer (default 1e+5).
	PocketsphinxKWSThreshold float64
	Logger                   *slog.Logger
}

// DefaultOrder is the engines tried when Config.Order is empty. The acoustic
// detector is left out: its precision on isolated short words falls under
// 0.8 (see its test); choose it with Order ["acoustic"] (--engine acoustic).
func DefaultOrder() []string { return []string{"whisper", "pocketsphinx"} }

// ConfigFromEnv reads AUTOCUT_WHISPER_MODEL and AUTOCUT_WHISPER_CLI.
func ConfigFromEnv() Config {
	return Config{WhisperModel: os.Getenv("AUTOCUT_WHISPER_MODEL"), WhisperCLI: os.Getenv("AUTOCUT_WHISPER_CLI")}
}

// New returns the available engines of cfg.Order as a Chain (which picks
// one per language), or an error wrapping ErrUnavailable that says what to
// install or configure when none is. ctx bounds the engines' availability
// checks (they may run a binary).
func New(ctx context.Context, cfg Config) (Transcriber, error) {
	order := cfg.Order
	if len(order) == 0 {
		order = DefaultOrder()
	}
	var (
		why   []string
		chain Chain
	)
	for _, name := range order {
		var t Transcriber
		switch name {
		case "whisper":
			model := cfg.WhisperModel
			if model == "" {
				model, _ = (&ModelStore{}).FirstInstalled()
			}
			t = &Whisper{Model: model, CLI: cfg.WhisperCLI}
		case "pocketsphinx":
			t = &Pocketsphinx{KWSThreshold: cfg.PocketsphinxKWSThreshold}
		case "acoustic":
			t = &Acoustic{}
		default:
			return nil, fmt.Errorf("transcribe: unknown engine %q (whisper, pocketsphinx, acoustic)", name)
		}
		err := t.Available(ctx)
		if err == nil {
			chain.engines = append(chain.engines, t)
			continue
		}
		why = append(why, err.Error())
	}
	if len(chain.engines) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, strings.Join(why, "; "))
	}
	return &chain, nil
}

// WarnLanguageAssumed is the transcript's warning when the language was
// not given and the engine could not detect it.
const WarnLanguageAssumed = "the language was not given and pocketsphinx cannot tell it: the speech was heard as English; no filler is cut unless you accept it (give the language to cut the confident ones)"

// Chain is a list of engines in order of preference: a transcription uses
// the first that serves its language (LanguageServer). When none does,
// the transcript says so (Warning) and holds no word and no filler: an
// engine is never run on a language it does not hear.
type Chain struct {
	engines []Transcriber
}

// NewChain returns a chain of the given engines, in order.
func NewChain(engines ...Transcriber) *Chain { return &Chain{engines: engines} }

// Engines returns the chain's engines, in order.
func (c *Chain) Engines() []Transcriber { return append([]Transcriber(nil), c.engines...) }

// Name names the first engine (the one used when the language is not
// given), or "none".
func (c *Chain) Name() string {
	if len(c.engines) == 0 {
		return "none"
	}
	return c.engines[0].Name()
}

// Available reports whether one of the engines can run.
func (c *Chain) Available(ctx context.Context) error {
	var why []string
	for _, e := range c.engines {
		err := e.Available(ctx)
		if err == nil {
			return nil
		}
		why = append(why, err.Error())
	}
	if len(why) == 0 {
		why = append(why, "no engine configured")
	}
	return fmt.Errorf("%w: %s", ErrUnavailable, strings.Join(why, "; "))
}

// Serves reports whether one of the engines serves lang; why joins what
// each of the others hears when none does.
func (c *Chain) Serves(lang string) (bool, string) {
	var why []string
	for _, e := range c.engines {
		ls, ok := e.(LanguageServer)
		if !ok {
			return true, ""
		}
		ok, w := ls.Serves(lang)
		if ok {
			return true, ""
		}
		why = append(why, w)
	}
	return false, fmt.Sprintf("no engine here hears %q: %s", lang, strings.Join(why, "; "))
}

// Transcribe transcribes path with the first engine that serves lang.
func (c *Chain) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*Transcript, error) {
	var why []string
	for _, e := range c.engines {
		if ls, ok := e.(LanguageServer); ok {
			if ok, w := ls.Serves(lang); !ok {
				why = append(why, w)
				continue
			}
		}
		t, err := e.Transcribe(ctx, path, lang, progress)
		if errors.Is(err, ErrLanguage) {
			why = append(why, err.Error())
			continue
		}
		return t, err
	}
	return NoEngineFor(lang, why), nil
}

// NoEngineFor is the transcript of a file in lang that no engine here
// hears: done, without words or fillers, and a warning that says why.
func NoEngineFor(lang string, why []string) *Transcript {
	w := fmt.Sprintf("no transcription engine on this server hears %q: no filler was looked for, none is cut", lang)
	if len(why) > 0 {
		w += " (" + strings.Join(why, "; ") + ")"
	}
	return &Transcript{Status: "done", Language: lang, Words: []Word{}, Fillers: []Filler{}, Warning: w}
}

// NormalizeLanguage checks a language option and returns its primary
// subtag in lower case ("fr-CA" is "fr"): "" (not given) or two or three
// letters (ISO 639). Anything else is an error.
func NormalizeLanguage(lang string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(l, "-_"); i >= 0 {
		l = l[:i]
	}
	if l == "" && lang == "" {
		return "", nil
	}
	if len(l) < 2 || len(l) > 3 {
		return "", fmt.Errorf("language %q is not a language code (two or three letters, such as en or fr)", lang)
	}
	for _, r := range l {
		if r < 'a' || r > 'z' {
			return "", fmt.Errorf("language %q is not a language code (two or three letters, such as en or fr)", lang)
		}
	}
	return l, nil
}

// errNotAvailable builds an engine's availability error.
func errNotAvailable(format string, args ...any) error {
	return errors.New(fmt.Sprintf(format, args...))
}
