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

// Filler is a filler word found in a transcript. Every filler found is
// listed; Cut says whether it is cut: the engine's confident ones (see
// MarkFillers) and those a user accepted. One that is not cut is a
// suggestion.
type Filler struct {
	ID         int     `json:"id"` // its index in the transcript's fillers
	Word       string  `json:"word"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Kind       string  `json:"kind"` // "filler"
	Confidence float64 `json:"confidence"`
	Cut        bool    `json:"cut"`
	// Review is the user's decision: "accept" (cut it), "reject" (keep
	// it) or "" (none: the engine's operating point decides).
	Review string `json:"review,omitempty"`
}

// Filler reviews.
const (
	ReviewAccept = "accept"
	ReviewReject = "reject"
)

// Transcript is the result of transcription and filler detection.
type Transcript struct {
	Status   string   `json:"status"` // "pending", "running", "done", "failed"
	Language string   `json:"language"`
	Engine   string   `json:"engine,omitempty"`
	Words    []Word   `json:"words"`
	Fillers  []Filler `json:"fillers"`
	// AutoCutConfidence is the confidence from which a filler is cut
	// without review (the engine's operating point); absent when the
	// engine cuts none by itself and only suggests.
	AutoCutConfidence *float64 `json:"autoCutConfidence,omitempty"`
	// Warning says what limits the transcript: no engine here hears its
	// language (then no filler is looked for), or the language was
	// assumed rather than given or detected.
	Warning string `json:"warning,omitempty"`
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

// LanguageServer is implemented by engines that know which languages they
// hear; Chain uses it to choose an engine per language. An engine without
// it is taken to serve every language.
type LanguageServer interface {
	// Serves reports whether the engine can transcribe lang ("" is a
	// language not given); why says what it hears when it cannot.
	Serves(lang string) (ok bool, why string)
}
