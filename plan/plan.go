// Package plan turns an analysis into a cut/keep plan: which stretches of the
// original are silence (or filler, or a stray short noise) and are cut, and
// which are kept. The plan is the single source of truth that the renderer and
// every timeline export consume.
package plan

import (
	"errors"

	"github.com/autocut-dev/autocut/dsp"
)

// ErrInvalidParams reports a parameter outside its allowed range; the error
// text names the field and the range.
var ErrInvalidParams = errors.New("invalid parameters")

// ErrNothingToKeep reports a plan that would cut the whole input.
var ErrNothingToKeep = errors.New("nothing to keep")

// Cut reasons.
const (
	ReasonSilence     = "silence"
	ReasonShortSpeech = "short-speech"
	ReasonFiller      = "filler"
)

// Range is a half-open time interval in seconds of the original.
type Range = dsp.Range

// Cut is a removed stretch of the original and why it was removed.
type Cut struct {
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Reason string  `json:"reason"`
}

// Params are the analysis parameters. A nil ThresholdDb means the file's
// automatic threshold.
type Params struct {
	ThresholdDb   *float64 `json:"thresholdDb"`
	MinSilenceSec float64  `json:"minSilenceSec"`
	KeepSilenceMs float64  `json:"keepSilenceMs"`
	MinSpeechMs   float64  `json:"minSpeechMs"`
}

// Stats summarises a plan.
type Stats struct {
	OriginalSec float64 `json:"originalSec"`
	FinalSec    float64 `json:"finalSec"`
	SavedSec    float64 `json:"savedSec"`
	SavedPct    float64 `json:"savedPct"`
	CutsCount   int     `json:"cutsCount"`
}

// Plan is the result of planning: cuts and keeps are sorted, disjoint and
// together cover [0, duration] exactly.
type Plan struct {
	Cuts  []Cut   `json:"cuts"`
	Keep  []Range `json:"keep"`
	Stats Stats   `json:"stats"`

	ThresholdDb  float64 `json:"thresholdDb"`  // the threshold used (automatic or given)
	NoiseFloorDb float64 `json:"noiseFloorDb"` // from the analysis
	Params       Params  `json:"params"`       // effective params, ThresholdDb filled in
}
