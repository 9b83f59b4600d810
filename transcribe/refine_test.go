package transcribe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// stretch is a run of frames of a hand-made signal: [from, to) s, its
// level (dBFS) and pitch (Hz, 0 unvoiced).
type stretch struct {
	from, to, db, pitch float64
}

// handSignal builds a signal of sec seconds, at -70 dBFS (under the -50
// dBFS threshold) but for the stretches.
func handSignal(sec float64, st ...stretch) *wordSignal {
	n := frames(sec)
	rms := make([]float32, n)
	for i := range rms {
		rms[i] = -70
	}
	feats := make([]frameFeat, n)
	for _, s := range st {
		for i := frames(s.from); i < frames(s.to) && i < n; i++ {
			rms[i] = float32(s.db)
			feats[i] = frameFeat{db: float32(s.db), pitch: float32(s.pitch), corr: 0.9}
		}
	}
	return newWordSignal(rms, -50, feats, refineFrameSec, refineFrameSec/2)
}

// TestRefineHand: refinement on hand-made signals, whisper's times given.
func TestRefineHand(t *testing.T) {
	// "so" (a fricative then a vowel), a pause, a held "um", a dip (its
	// lowest 30 ms mean at 1.11 s: the cut between the two), "we" whose
	// pitch moves.
	speech := []stretch{
		{0.10, 0.18, -30, 0}, {0.18, 0.35, -25, 180},
		{0.60, 1.10, -28, 120},
		{1.10, 1.14, -45, 0},
		{1.14, 1.25, -24, 160}, {1.25, 1.40, -26, 200},
	}
	tests := []struct {
		name      string
		sig       *wordSignal
		words     []Word
		want      []Word
		wantFills []Filler
	}{
		{
			name:  "filler snapped to its held vowel, neighbours give way",
			sig:   handSignal(2, speech...),
			words: []Word{{"So", 0, 0.5, 0.9}, {"um", 0.5, 0.85, 0.8}, {"we", 0.85, 1.6, 0.9}},
			want:  []Word{{"So", 0.1, 0.35, 0.9}, {"um", 0.6, 1.11, 0.8}, {"we", 1.11, 1.4, 0.9}},
			wantFills: []Filler{
				{ID: 0, Word: "um", Start: 0.6, End: 1.11, Kind: "filler", Confidence: 0.8},
			},
		},
		{
			name:  "glued: 20 ms of um at the end of a long word",
			sig:   handSignal(2, speech...),
			words: []Word{{"So", 0, 1.08, 0.9}, {"um", 1.08, 1.10, 0.8}, {"we", 1.10, 1.6, 0.9}},
			want:  []Word{{"So", 0.1, 0.35, 0.9}, {"um", 0.6, 1.11, 0.8}, {"we", 1.11, 1.4, 0.9}},
			wantFills: []Filler{
				{ID: 0, Word: "um", Start: 0.6, End: 1.11, Kind: "filler", Confidence: 0.8},
			},
		},
		{
			name:  "dropped: a long word is trimmed to its sound, no filler is made up",
			sig:   handSignal(2, speech[:3]...),
			words: []Word{{"Then", 0, 1.3, 0.9}},
			want:  []Word{{"Then", 0.1, 1.1, 0.9}},
		},
		{
			name:  "no sound: whisper's times are kept",
			sig:   handSignal(2),
			words: []Word{{"Thanks", 0, 1.5, 0.5}, {"uh", 1.5, 1.7, 0.5}},
			want:  []Word{{"Thanks", 0, 1.5, 0.5}, {"uh", 1.5, 1.7, 0.5}},
			wantFills: []Filler{
				{ID: 0, Word: "uh", Start: 1.5, End: 1.7, Kind: "filler", Confidence: 0.5},
			},
		},
		{
			name: "a snap that would swallow a word is not made",
			// one held stretch under "I" and "uh": the word keeps it
			sig:   handSignal(2, stretch{0.2, 1.2, -28, 120}),
			words: []Word{{"I", 0.2, 0.6, 0.9}, {"uh", 0.6, 1.0, 0.8}, {"go", 1.0, 1.4, 0.9}},
			want:  []Word{{"I", 0.2, 0.6, 0.9}, {"uh", 0.6, 1.0, 0.8}, {"go", 1.0, 1.2, 0.9}},
			wantFills: []Filler{
				{ID: 0, Word: "uh", Start: 0.6, End: 1.0, Kind: "filler", Confidence: 0.8},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Transcript{Language: "en", Words: append([]Word(nil), tc.words...)}
			tr.Fillers = mergeFillers(DetectFillers(tr.Words, "en"))
			refine(tr, tc.sig)
			MarkFillers(tr, WhisperAutoCut)
			if diff := cmp.Diff(tc.want, tr.Words, cmpFloat()); diff != "" {
				t.Errorf("words (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFills, tr.Fillers, cmpFloat(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("fillers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefineEmpty: nothing to refine is no error and changes nothing.
func TestRefineEmpty(t *testing.T) {
	if err := RefineWords(t.Context(), nil, "/no/such/file", WhisperAutoCut); err != nil {
		t.Errorf("nil transcript: %v", err)
	}
	tr := &Transcript{Words: []Word{}}
	if err := RefineWords(t.Context(), tr, "/no/such/file", WhisperAutoCut); err != nil {
		t.Errorf("no words: %v", err)
	}
	tr.Words = []Word{{"a", 0, 1, 1}}
	if err := RefineWords(t.Context(), tr, "/no/such/file", WhisperAutoCut); err == nil {
		t.Error("a missing recording refined")
	}
}
