package transcribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
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

// New returns the first available engine of cfg.Order, or an error wrapping
// ErrUnavailable that says what to install or configure. ctx bounds the
// engines' availability checks (they may run a binary).
func New(ctx context.Context, cfg Config) (Transcriber, error) {
	order := cfg.Order
	if len(order) == 0 {
		order = DefaultOrder()
	}
	var why []string
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
			return t, nil
		}
		why = append(why, err.Error())
	}
	return nil, fmt.Errorf("%w: %s", ErrUnavailable, strings.Join(why, "; "))
}

// errNotAvailable builds an engine's availability error.
func errNotAvailable(format string, args ...any) error {
	return errors.New(fmt.Sprintf(format, args...))
}
