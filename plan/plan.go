// Package plan turns an analysis into a cut/keep plan: which stretches of the
// original are silence (or filler, or a stray short noise) and are cut, and
// which are kept. The plan is the single source of truth that the renderer and
// every timeline export consume.
//
// # Detection
//
// Make works on the analysis's 10 ms envelope (dsp.Envelope). Detection runs
// on the frame powers averaged over 5 frames (50 ms, centred; levels kept at
// 0.01 dB), with hysteresis: a speech island is a run of frames at or over
// the close level that reaches the open level somewhere, so noise flickering
// around one level cannot chatter.
//
//   - Automatic threshold (Params.ThresholdDb nil): the open level is the
//     analysis's ThresholdDb, raised to 6 dB over the envelope's own floor
//     (10th percentile of the smoothed levels) by at most 4 dB, so that the
//     floor's scatter cannot open speech; when that floor lies more than
//     20 dB under the analysis's noise floor (pauses of digital silence,
//     which the analysis leaves out) it is lowered to max(floor + 20 dB,
//     speech level - 40 dB). When the smoothed levels show no plateau of
//     steady floor (their 25th percentile more than 3 dB over the 10th: the
//     quiet frames are quiet programme, as in music, not pauses) it is
//     capped at the speech level - 20 dB. It is finally kept within -70..-10
//     dB (the range a caller may give). The close level sits half-way down to the
//     floor (1 to 12 dB under the open level). Plan.ThresholdDb reports the
//     open level used.
//   - Given threshold: it is the close level (a frame under it is silence,
//     a frame exactly at it is not); the open level is 3 dB over it.
//
// With the automatic threshold, an input of at least 6 s whose loudness
// hardly moves (LRA under 1.5 LU) and is quiet (under -35 LUFS) is a steady
// noise bed with no programme: it is all silence (see isNoiseBed).
//
// Word tails and soft onsets are protected: from each island's end the
// smoothed level is followed while it keeps falling (a rise of at most
// 1.5 dB per frame) and stays 4 dB over the floor, for up to 250 ms;
// backwards from its start the same way for up to 80 ms. Frames of that
// protection whose own level is more than 20 dB under the open level are
// given back (they are the smoothing's smear into a clean pause, not sound).
//
// Three extents of an island matter: the detection run (the hysteresis
// run on the smoothed level, before any protection), on which minSpeech is
// judged; the raw island, from its first to its last frame whose own
// (unsmoothed) level reaches the open level, between which pauses are
// measured for minSilence (the widest sensible reading of a pause); and the
// protected island, where the cuts end.
//
// # Rules, in order
//
//  1. minSpeechMs: an island whose detection run is shorter than this
//     (judged before any protection or keepSilence), with a pause of at
//     least half of minSilence (or a file edge) on both sides, is merged
//     into the pause around it (a click in a pause cannot survive by being
//     padded first; syllables of quiet speech cannot chain into one pause). If the merged pause is
//     cut, the island's part of the cut has reason "short-speech". An island
//     covering the whole file is never merged.
//  2. minSilenceSec: a pause (between raw islands, counting the short
//     islands merged into it) is cut only if it lasts at
//     least this long, less one envelope frame (10 ms, the resolution).
//  3. keepSilenceMs: each cut pause (between protected islands) is shortened
//     to exactly this length: half kept after the speech before, half before
//     the speech after; at the start and end of the file the whole kept part
//     sits next to the speech. A pause not longer than keepSilence is not cut.
//  4. Edges: with keepSilence over 0, each edge inside a pause moves by up to
//     one envelope frame (10 ms) to the start of a frame whose peak level is
//     at least 1 dB quieter, staying inside the pause (resolution: 10 ms; the
//     renderer's crossfade handles the sample level). With keepSilence 0 the
//     edges are the protected speech edges.
//  5. Extra cuts (fillers from a transcription) are clamped to [0, duration]
//     and merged: overlapping extra cuts are united (first reason kept, empty
//     reason becomes "filler"); where one overlaps a silence cut, the extra
//     cut's reason wins over its span and the silence keeps the rest.
//  6. Times are rounded to the microsecond; cuts of the same reason that
//     touch are merged, and a kept stretch shorter than 10 ms between two cuts
//     (or at a file edge) is absorbed into the cut.
//
// Cuts and keeps are sorted and disjoint and together cover [0, duration]
// exactly (duration is the analysis's Input.Duration, or frames x 10 ms).
// Stats.SavedPct is in percent, rounded to 0.001. A plan with nothing to
// keep is returned together with ErrNothingToKeep.
//
// The golden files in testdata/ (one .in.json and .golden.json per rule
// and edge case) are the executable form of this specification.
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
