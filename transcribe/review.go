package transcribe

import (
	"errors"
	"fmt"
)

// NoAutoCut is the operating point of an engine that cuts no filler by
// itself: above every confidence (they lie in [0, 1]), so its fillers are
// all suggestions.
const NoAutoCut = 2.0

// The engines' operating points: the confidence from which a filler is cut
// without review. Each is the lowest confidence at which the engine's
// fillers reach precision 0.9 (with at least minOperatingHits fillers
// found) on the tune part of the labelled real material (testdata/fillers,
// split.txt), counting only the fillers FillerCuts would cut (none inside a
// recognised word); TestFillerOperatingPoints measures them. An engine that
// does not reach 0.9 there cuts nothing by itself: NoAutoCut.
const (
	// PocketsphinxAutoCut: the keyword-spotting and recognised fillers of
	// pocketsphinx's English model never reach precision 0.9 on the tune
	// part at any confidence.
	PocketsphinxAutoCut = NoAutoCut
	// AcousticAutoCut: the acoustic detector's best precision on the tune
	// part is under 0.9 at every score.
	AcousticAutoCut = NoAutoCut
	// WhisperAutoCut: no whisper model can be run on the labelled
	// material here, so whisper's precision is unmeasured: its fillers are
	// suggestions until it is measured.
	WhisperAutoCut = NoAutoCut
)

// minOperatingHits is the fewest true fillers an operating point must cut
// on the tune part: a precision over fewer is chance.
const minOperatingHits = 5

// MarkFillers numbers t's fillers (ID is the index, after sorting by time)
// and decides which are cut, with autoCut the engine's operating point:
// see Decide. It records autoCut in t.AutoCutConfidence (none when it is
// NoAutoCut or above).
func MarkFillers(t *Transcript, autoCut float64) {
	if t == nil {
		return
	}
	t.AutoCutConfidence = nil
	if autoCut <= 1 {
		v := autoCut
		t.AutoCutConfidence = &v
	}
	for i := range t.Fillers {
		t.Fillers[i].ID = i
		t.Fillers[i].Kind = "filler"
	}
	Decide(t)
}

// Decide sets each filler's Cut: a filler the user accepted is cut, one
// rejected is kept, and one without a review is cut when its confidence
// reaches t.AutoCutConfidence; none is cut when it overlaps a recognised
// word that is not its own (FillerCuts never cuts into a word), accepted
// or not.
func Decide(t *Transcript) {
	if t == nil {
		return
	}
	for i := range t.Fillers {
		f := &t.Fillers[i]
		switch f.Review {
		case ReviewAccept:
			f.Cut = true
		case ReviewReject:
			f.Cut = false
		default:
			f.Cut = t.AutoCutConfidence != nil && f.Confidence >= *t.AutoCutConfidence
		}
		if _, _, inWord := wordsBeside(t.Words, *f); inWord {
			f.Cut = false
		}
	}
}

// ErrReview reports a filler review that does not fit the transcript.
var ErrReview = errors.New("bad filler review")

// Review records the user's decisions on t's fillers (by ID) and decides
// again which are cut: accepted ones are cut, rejected ones kept. An ID
// not in the transcript, or one both accepted and rejected, is an error
// wrapping ErrReview, and t is left unchanged. A filler not named keeps
// its earlier review.
func Review(t *Transcript, accept, reject []int) error {
	if t == nil {
		return fmt.Errorf("%w: there is no transcript", ErrReview)
	}
	dec := map[int]string{}
	for _, l := range []struct {
		ids []int
		v   string
	}{{accept, ReviewAccept}, {reject, ReviewReject}} {
		for _, id := range l.ids {
			if id < 0 || id >= len(t.Fillers) || t.Fillers[id].ID != id {
				return fmt.Errorf("%w: no filler %d (the transcript has %d, ids 0 to %d)", ErrReview, id, len(t.Fillers), len(t.Fillers)-1)
			}
			if d, ok := dec[id]; ok && d != l.v {
				return fmt.Errorf("%w: filler %d is both accepted and rejected", ErrReview, id)
			}
			dec[id] = l.v
		}
	}
	for id, v := range dec {
		t.Fillers[id].Review = v
	}
	Decide(t)
	return nil
}
