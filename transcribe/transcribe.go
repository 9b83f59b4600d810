// Package transcribe turns speech into timed words and finds filler words
// (um, uh, euh, ...) among them, so that the planner can cut them.
package transcribe

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/autocut-dev/autocut/dsp"
)

// ErrUnavailable reports that no transcription engine is installed or configured.
var ErrUnavailable = errors.New("transcription unavailable")

// ErrLanguage reports a language the engine cannot transcribe; it is
// returned before any work, wrapped with ErrUnavailable.
var ErrLanguage = errors.New("language not supported")

// Word is one recognised word with its time in the original, in seconds.
type Word struct {
	Word       string  `json:"word"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Confidence float64 `json:"confidence"`
}

// Filler is a filler word found in a transcript.
type Filler struct {
	Word       string  `json:"word"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Kind       string  `json:"kind"` // "filler"
	Confidence float64 `json:"confidence"`
}

// Transcript is the result of transcription and filler detection.
type Transcript struct {
	Status   string   `json:"status"` // "pending", "running", "done", "failed"
	Language string   `json:"language"`
	Engine   string   `json:"engine,omitempty"`
	Words    []Word   `json:"words"`
	Fillers  []Filler `json:"fillers"`
}

// MarshalJSON writes the transcript with words and fillers as arrays, []
// when there are none, never null.
func (t Transcript) MarshalJSON() ([]byte, error) {
	type plain Transcript // without the method
	if t.Words == nil {
		t.Words = []Word{}
	}
	if t.Fillers == nil {
		t.Fillers = []Filler{}
	}
	return json.Marshal(plain(t))
}

// Transcriber is a speech-to-text engine.
type Transcriber interface {
	// Name names the engine ("whisper", "pocketsphinx", "acoustic").
	Name() string
	// Available reports whether the engine can run here; nil means yes.
	Available(ctx context.Context) error
	// Transcribe transcribes the media file at path. lang is a language code
	// hint ("en", "fr") or "" for automatic.
	Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*Transcript, error)
}
