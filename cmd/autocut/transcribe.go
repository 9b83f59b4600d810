package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/autocut-dev/autocut/transcribe"
)

// runTranscribe implements `autocut transcribe [flags] FILE`: the transcript
// (words with times and confidences) and the filler words, as JSON.
func runTranscribe(ctx context.Context, e env) error {
	cfg := transcribe.ConfigFromEnv()
	var lang, engine, model string
	c := newFlags("transcribe", "autocut transcribe [flags] FILE",
		"Prints FILE's words (with times and confidences) and its filler words as JSON.")
	c.StringVar(&lang, "lang", "", "language `code` hint: en, fr (default: automatic where the engine can)")
	c.choice("engine", "`engine`: whisper, pocketsphinx or acoustic (default: the first available of whisper, pocketsphinx; whisper needs a pulled model and whisper-cli)", engineNames(), &engine)
	c.StringVar(&model, "model", "", "whisper model `name` pulled with 'autocut models pull NAME' (e.g. base.en); default: the first pulled of base.en, base, small.en, small, then the rest")
	c.StringVar(&cfg.WhisperModel, "whisper-model", cfg.WhisperModel, "whisper.cpp model `file` (env AUTOCUT_WHISPER_MODEL)")
	c.StringVar(&cfg.WhisperCLI, "whisper-cli", cfg.WhisperCLI, "whisper-cli `binary` (env AUTOCUT_WHISPER_CLI)")
	pos, err := c.parse(e.args, e.stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return flagError{"need exactly one FILE (autocut transcribe [flags] FILE)"}
	}
	if engine != "" {
		cfg.Order = []string{engine}
	}
	if model != "" {
		if cfg.WhisperModel, err = modelPath(model); err != nil {
			return err
		}
	}
	if err := checkMedia(ctx, pos[0]); err != nil {
		return err
	}
	t, err := transcribe.New(ctx, cfg)
	if err != nil {
		return err
	}
	if ls, ok := t.(transcribe.LanguageServer); ok {
		if ok, why := ls.Serves(lang); !ok {
			return usageError{fmt.Sprintf("--lang %s: %s", lang, why)}
		}
	}
	tr, err := t.Transcribe(ctx, pos[0], lang, nil)
	if errors.Is(err, transcribe.ErrLanguage) {
		return usageError{fmt.Sprintf("--lang %s: %s", lang, strings.TrimPrefix(err.Error(), transcribe.ErrUnavailable.Error()+": "))}
	}
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(append(b, '\n'))
	return err
}

// engineNames are the transcription engines transcribe.New knows.
func engineNames() []string { return []string{"whisper", "pocketsphinx", "acoustic"} }
