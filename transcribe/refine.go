package transcribe

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/autocut-dev/autocut/dsp"
)

// Word times refined on the signal.
//
// whisper.cpp's word times (-ml 1, no alignment model) are a token's
// timestamps: words abut, a pause goes to the word before or after it, and
// edges are often 100-300 ms off. A filler cut on those times takes the
// next word's onset or leaves half the "uhm"; and a filler whisper glues
// to a word comes out as a word like "a" of 1.5 s that covers a pause and
// the filler. RefineWords moves the edges onto the recording itself, read
// with the repository's own measurements: the analysis's 10 ms levels and
// pause threshold (dsp.AnalyzeFile: a frame is sound over its ThresholdDb)
// and the acoustic detector's per-frame pitch and spectral change
// (Acoustic's features: voiced where it finds a pitch).
//
//   - A filler is snapped to a voiced stretch: the voiced runs (gaps up to
//     refineBridge frames bridged) between the start of the word before it
//     and the end of the word after it, within refineReach of its own
//     times, each split where the spectrum jumps (refineFluxDb) or the
//     pitch does (refineJumpSemi): a filler is one held vowel and the next
//     word's onset changes both. The piece chosen is the one nearest the
//     filler's times (overlapping it best), weighted by how much it sounds
//     like a filled pause to the acoustic detector's classifier. Its edges
//     take the unvoiced sound around it (the breath of an "uhm"'s decay) up
//     to refineTail, when a pause follows. A snap that would swallow a
//     whole word of the transcript is not made; the words beside the filler
//     give up the time it takes.
//   - A word is trimmed to the sound it covers (its edges never move out).
//     A word of refineLongWord or more whose sound falls into stretches
//     separated by pauses of refineSplitGap, the first or the last of
//     which sounds like a filled pause (classifier score refineSplitScore
//     or more, refineSplitMin long or more), is split: the word keeps the
//     other stretches and the filler-like one becomes a filler
//     ("(filled pause)", the classifier's score as confidence), a
//     suggestion like every whisper filler (WhisperAutoCut).
//
// The settings were chosen on the tune part of the labelled clips
// (testdata/fillers/split.txt) with whisper-style times made from their
// alignments; TestRefineLabelled measures both parts (docs/transcription.md).
const (
	refineBridge      = 3    // unvoiced frames bridged inside a voiced stretch
	refineReach       = 1.0  // s: how far from its times a filler may be snapped
	refineDipDb       = 6.0  // a level dip this deep (dB) between two pieces separates them
	refineSteadySemi  = 1.5  // semitones from a piece's median pitch that count as held
	refinePieceMin    = 0.06 // s: the shortest piece a filler is snapped to
	refineTail        = 0.05 // s: unvoiced sound taken on either side of a snapped filler
	refineSnapSteady  = 0.3  // the steadiness (share of held voiced frames) of a piece a filler is snapped to
	refineShortWord   = 0.1  // s: a whisper word shorter than this inside a filler's stretch is moved out
	refineLongWord    = 0.5  // s: words this long may hold a glued filler
	refineSplitGap    = 0.15 // s: the pause that separates a glued filler from its word
	refineSplitMin    = 0.15 // s: the shortest glued filler split off
	refineSplitScore  = 0.5  // the classifier score a glued stretch needs to be split off
	refineFrameSec    = dsp.EnvelopeFrameSec
	refineDistanceSec = 0.3 // s: the distance at which a piece's weight falls by e
)

// wordSignal is what the refinement reads of a recording, per 10 ms frame
// (frame i covers [i, i+1) x refineFrameSec).
type wordSignal struct {
	db     []float32 // the analysis's 10 ms levels, dBFS
	sound  []bool    // over the analysis's pause threshold
	voiced []bool    // sound, with a pitch
	flux   []float32 // spectral change from the frame before, dB
	pitch  []float32 // Hz, 0 when unvoiced

	// the acoustic features, for the filler classifier
	feats    []frameFeat
	hop, off float64 // feature frame k is centred at k*hop + off s
	fctx     fileContext
}

// loadWordSignal measures the recording at path (a file dsp reads: the 16
// kHz WAV whisper heard).
func loadWordSignal(ctx context.Context, path string) (*wordSignal, error) {
	a, err := dsp.AnalyzeFile(ctx, path, nil)
	if err != nil {
		return nil, fmt.Errorf("refine word times: %w", err)
	}
	st, err := dsp.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("refine word times: %w", err)
	}
	defer st.Close()
	feats, hop, err := (&Acoustic{}).features(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("refine word times: %w", err)
	}
	_, rate, _, win := acousticFrames(st.Format().SampleRate)
	return newWordSignal(a.Envelope.RMSDb, a.ThresholdDb, feats, hop, float64(win)/2/float64(rate)), nil
}

// newWordSignal combines the 10 ms levels rms (with the pause threshold
// thrDb) and the acoustic features (hop s apart, the first centred at off).
func newWordSignal(rms []float32, thrDb float64, feats []frameFeat, hop, off float64) *wordSignal {
	n := len(rms)
	s := &wordSignal{db: rms, sound: make([]bool, n), voiced: make([]bool, n), flux: make([]float32, n), pitch: make([]float32, n),
		feats: feats, hop: hop, off: off, fctx: newFileContext(feats, defaultCand.pauseDb)}
	for i, v := range rms {
		s.sound[i] = float64(v) >= thrDb
		k := s.featAt((float64(i) + 0.5) * refineFrameSec)
		if k < 0 {
			continue
		}
		s.pitch[i] = feats[k].pitch
		s.flux[i] = feats[k].flux
		s.voiced[i] = s.sound[i] && feats[k].pitch > 0
	}
	return s
}

// featAt returns the feature frame centred nearest t, or -1 when there is none.
func (s *wordSignal) featAt(t float64) int {
	if len(s.feats) == 0 || !(s.hop > 0) {
		return -1
	}
	return min(max(int(math.Round((t-s.off)/s.hop)), 0), len(s.feats)-1)
}

// frame returns the frame holding t, clamped to [0, n].
func (s *wordSignal) frame(t float64) int {
	return min(max(int(math.Round(t/refineFrameSec)), 0), len(s.sound))
}

// frames returns the number of frames in sec seconds, rounded.
func frames(sec float64) int { return int(math.Round(sec / refineFrameSec)) }

func frameTime(i int) float64 { return math.Round(float64(i)*refineFrameSec*1000) / 1000 }

// fillerScore is the acoustic classifier's score of frames [a, b).
func (s *wordSignal) fillerScore(a, b int) float64 {
	if !s.fctx.hasVoiced {
		return 0
	}
	ka, kb := s.featAt(float64(a)*refineFrameSec), s.featAt(float64(b)*refineFrameSec)
	if ka < 0 || kb <= ka {
		return 0
	}
	return defaultModel.score(segmentFeatures(s.feats, s.hop, s.fctx, span{ka, kb}))
}

// runs returns the runs of frames in [a, b) where ok holds, gaps of up to
// bridge frames bridged.
func runs(a, b int, ok func(int) bool, bridge int) []span {
	var out []span
	for i := a; i < b; i++ {
		if !ok(i) {
			continue
		}
		j := i + 1
		for gap := 0; j+gap < b; {
			if ok(j + gap) {
				j += gap + 1
				gap = 0
				continue
			}
			if gap++; gap > bridge {
				break
			}
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

// pieces splits the sound of [a, b) into syllable-like pieces: runs of
// sound frames (gaps up to refineBridge bridged) cut at the dips of the
// level (30 ms mean) that lie refineDipDb or more under the highest level
// on either side before the next lower one: a filler is one held vowel,
// flat or falling, and the word beside it rises out of a dip. Pieces of
// under refinePieceMin are left out.
func (s *wordSignal) pieces(a, b int) []span {
	minFrames := frames(refinePieceMin)
	var out []span
	add := func(i, j int) {
		if j-i >= minFrames {
			out = append(out, span{i, j})
		}
	}
	lv := func(i int) float64 {
		lo, hi := max(i-1, 0), min(i+2, len(s.db))
		var sum float64
		for _, v := range s.db[lo:hi] {
			sum += float64(v)
		}
		return sum / float64(hi-lo)
	}
	for _, r := range runs(a, b, func(i int) bool { return s.sound[i] }, refineBridge) {
		start, peak := r.i, lv(r.i)
		for i := r.i + 1; i+1 < r.j; i++ {
			v := lv(i)
			peak = max(peak, v)
			if v > lv(i-1) || v > lv(i+1) || peak-v < refineDipDb {
				continue
			}
			right := v
			for k := i + 1; k < r.j && lv(k) >= v; k++ {
				right = max(right, lv(k))
			}
			if right-v >= refineDipDb {
				add(start, i)
				start, peak = i, v
			}
		}
		add(start, r.j)
	}
	return out
}

// steadiness is the share of frames [a, b) that are voiced with a pitch
// within refineSteadySemi of the frames' median pitch: near 1 for a held
// vowel, lower for a word (its consonants, its pitch moving).
func (s *wordSignal) steadiness(a, b int) float64 {
	var ps []float64
	for i := a; i < b; i++ {
		if s.voiced[i] {
			ps = append(ps, semi(s.pitch[i]))
		}
	}
	if len(ps) == 0 || b <= a {
		return 0
	}
	med := percentile(slices.Clone(ps), 0.5)
	n := 0
	for _, p := range ps {
		if math.Abs(p-med) <= refineSteadySemi {
			n++
		}
	}
	return float64(n) / float64(b-a)
}

// RefineWords moves t's word and filler times onto the recording at path
// (see the comment above refineBridge), then numbers and decides its
// fillers again with the engine's operating point autoCut (MarkFillers).
func RefineWords(ctx context.Context, t *Transcript, path string, autoCut float64) error {
	if t == nil || len(t.Words) == 0 {
		return nil
	}
	sig, err := loadWordSignal(ctx, path)
	if err != nil {
		return err
	}
	refine(t, sig)
	MarkFillers(t, autoCut)
	return nil
}

// refine moves t's times onto sig.
func refine(t *Transcript, sig *wordSignal) {
	if len(sig.sound) == 0 {
		return
	}
	own := map[int]bool{} // words that are a filler's own
	for fi := range t.Fillers {
		if k := ownWord(t.Words, t.Fillers[fi]); k >= 0 {
			own[k] = true
			snapFiller(t, fi, k, sig)
		}
	}
	var split []Filler
	for k := range t.Words {
		if own[k] {
			continue
		}
		if f, ok := splitGlued(&t.Words[k], sig); ok {
			split = append(split, f)
		}
		trimToSound(&t.Words[k], sig)
	}
	t.Fillers = mergeFillers(append(t.Fillers, split...))
}

// ownWord returns the index of the word whose times are filler f's (the
// one DetectFillers made it from), or -1 (a filler of two words: "you
// know", left as it is).
func ownWord(words []Word, f Filler) int {
	for k, w := range words {
		if w.Start == f.Start && w.End == f.End {
			return k
		}
	}
	return -1
}

// snapFiller snaps filler fi, whose own word is t.Words[k], to a voiced
// piece of the signal (see refineBridge).
func snapFiller(t *Transcript, fi, k int, sig *wordSignal) {
	f := &t.Fillers[fi]
	lo, hi := f.Start-refineReach, f.End+refineReach
	if k > 0 {
		lo = max(lo, t.Words[k-1].Start)
	}
	if k+1 < len(t.Words) {
		hi = min(hi, t.Words[k+1].End)
	}
	a, b := sig.frame(lo), sig.frame(hi)
	best, bestScore := span{-1, -1}, 0.0
	for _, p := range sig.pieces(a, b) {
		ps, pe := frameTime(p.i), frameTime(p.j)
		d := max(ps-f.End, f.Start-pe, 0)
		w := math.Exp(-d / refineDistanceSec)
		if ov := min(pe, f.End) - max(ps, f.Start); ov > 0 {
			w *= 1 + ov/max(f.End-f.Start, pe-ps)
		}
		st := sig.steadiness(p.i, p.j)
		if st < refineSnapSteady {
			continue
		}
		if sc := w * (0.2 + st*min((pe-ps)/refineSplitMin, 1)); sc > bestScore {
			best, bestScore = p, sc
		}
	}
	if best.i < 0 {
		trimToSound(&t.Words[k], sig)
		f.Start, f.End = t.Words[k].Start, t.Words[k].End
		return
	}
	i, j := best.i, best.j
	tail := frames(refineTail)
	if m := i - tail; m >= 0 && !sig.sound[m] {
		for i > m+1 && sig.sound[i-1] {
			i--
		}
	}
	if m := j + tail; m < len(sig.sound) && !sig.sound[m] {
		for j < m && sig.sound[j] {
			j++
		}
	}
	ns, ne := frameTime(i), frameTime(j)
	for q, w := range t.Words {
		if q != k && w.Start >= ns-ownWordSlack && w.End <= ne+ownWordSlack && w.End-w.Start >= refineShortWord {
			// the snap would swallow a word whisper heard: keep whisper's
			// times, trimmed to the sound
			trimToSound(&t.Words[k], sig)
			f.Start, f.End = t.Words[k].Start, t.Words[k].End
			return
		}
	}
	f.Start, f.End = ns, ne
	t.Words[k].Start, t.Words[k].End = ns, ne
	for q := range t.Words {
		w := &t.Words[q]
		switch {
		case q == k:
		case w.Start >= ns-ownWordSlack && w.End <= ne+ownWordSlack:
			// a word of whisper's shorter than refineShortWord within
			// the filler's stretch: whisper's token time, not a word
			// heard there; it goes to the filler's side it lay on
			d := w.End - w.Start
			if q < k {
				w.Start, w.End = max(ns-d, 0), ns
			} else {
				w.Start, w.End = ne, ne+d
			}
		case w.Start < ns && w.End > ns:
			w.End = ns
		case w.Start < ne && w.End > ne:
			w.Start = ne
		}
	}
}

// trimToSound moves w's edges in to the first and last sound frames it
// covers; a word over no sound keeps its times.
func trimToSound(w *Word, sig *wordSignal) {
	a, b := sig.frame(w.Start), sig.frame(w.End)
	i := a
	for i < b && !sig.sound[i] {
		i++
	}
	if i == b {
		return
	}
	j := b
	for j > i && !sig.sound[j-1] {
		j--
	}
	w.Start, w.End = max(w.Start, frameTime(i)), min(w.End, frameTime(j))
}

// splitGlued splits a filled pause off a long word (see refineBridge):
// it returns the filler and narrows w.
func splitGlued(w *Word, sig *wordSignal) (Filler, bool) {
	if w.End-w.Start < refineLongWord {
		return Filler{}, false
	}
	a, b := sig.frame(w.Start), sig.frame(w.End)
	gap := frames(refineSplitGap)
	st := runs(a, b, func(i int) bool { return sig.sound[i] }, gap-1)
	if len(st) < 2 {
		return Filler{}, false
	}
	minFrames := frames(refineSplitMin)
	type cand struct {
		at    int
		score float64
	}
	var cs []cand
	for _, at := range []int{0, len(st) - 1} {
		r := st[at]
		voiced := 0
		for i := r.i; i < r.j; i++ {
			if sig.voiced[i] {
				voiced++
			}
		}
		if r.j-r.i < minFrames || 2*voiced < r.j-r.i {
			continue
		}
		if sc := sig.steadiness(r.i, r.j); sc >= refineSplitScore {
			cs = append(cs, cand{at, sc})
		}
	}
	if len(cs) == 0 {
		return Filler{}, false
	}
	c := slices.MaxFunc(cs, func(x, y cand) int { return cmp.Compare(x.score, y.score) })
	r := st[c.at]
	f := Filler{Word: "(filled pause)", Start: frameTime(r.i), End: frameTime(r.j), Kind: "filler", Confidence: c.score}
	rest := slices.Delete(slices.Clone(st), c.at, c.at+1)
	w.Start, w.End = max(w.Start, frameTime(rest[0].i)), min(w.End, frameTime(rest[len(rest)-1].j))
	return f, true
}
