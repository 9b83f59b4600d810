package transcribe

import (
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
// the filler (or as a 20 ms "uh" at its end). RefineWords moves the edges
// onto the recording itself, read with the repository's own measurements:
// the analysis's 10 ms levels and pause threshold (dsp.AnalyzeFile: a
// frame is sound over its ThresholdDb) and the acoustic detector's
// per-frame pitch (Acoustic's features: voiced where it finds one).
//
//   - The sound is cut into pieces (pieces): runs of sound frames (gaps up
//     to refineBridge frames bridged) cut at the dips of the level that
//     lie refineDipDb or more under the peaks on both sides, so that a cut
//     falls at the energy minimum between a filler and the next word;
//     adjacent held pieces (steadiness, below, refineHeld or more) whose
//     median pitches lie within refineMergeSemi are one (the vowel and
//     the nasal of an "um").
//   - A filler is snapped to a piece between the start of the word before
//     it and the end of the word after it, within refineReach of its own
//     times: the one nearest its times (overlapping them best, the weight
//     falling by e every refineDistanceSec away), weighted by how held it
//     is (steadiness: the share of its frames voiced within
//     refineSteadySemi of its median pitch; refineSnapSteady at least) and
//     by its length up to refineHeldMin. Its edges take the sound around
//     it up to refineTail when a pause follows. The words beside the
//     filler give up the time it takes; a snap that would swallow a whole
//     whisper word of refineShortWord or more is not made, and a shorter
//     one (a token's time, not a word heard there) is moved to the side of
//     the filler it lay on.
//   - Every other word is trimmed to the sound it covers (its edges never
//     move out).
//
// A filler whisper leaves out is not looked for under the word that
// covers it: splitting a held piece off a long word's edge as a filler
// was tried, and on the labelled clips 30 of the 32 pieces it split off
// lay on no filler (held vowels of words, whisper's edges over a
// neighbour).
//
// TestRefineLabelled measures it (docs/transcription.md).
const (
	refineBridge      = 3    // frames without sound bridged inside a run of sound
	refineReach       = 1.0  // s: how far from its times a filler may be snapped
	refineDipDb       = 6.0  // a level dip this deep (dB) between two pieces separates them
	refineSteadySemi  = 1.5  // semitones from a piece's median pitch that count as held
	refineMergeSemi   = 2.0  // adjacent held pieces whose median pitches lie this close are one
	refinePieceMin    = 0.06 // s: the shortest piece
	refineTail        = 0.05 // s: sound taken on either side of a snapped filler
	refineSnapSteady  = 0.3  // the least steadiness of a piece a filler is snapped to
	refineShortWord   = 0.1  // s: a whisper word shorter than this inside a filler's piece is moved out
	refineHeldMin     = 0.15 // s: a piece this long or longer weighs in full
	refineHeld        = 0.5  // the steadiness from which a piece is held
	refineFrameSec    = dsp.EnvelopeFrameSec
	refineDistanceSec = 0.8 // s: the distance at which a piece's weight falls by e
)

// wordSignal is what the refinement reads of a recording, per 10 ms frame
// (frame i covers [i, i+1) x refineFrameSec).
type wordSignal struct {
	db     []float32 // the analysis's 10 ms levels, dBFS
	sound  []bool    // over the analysis's pause threshold
	voiced []bool    // sound, with a pitch
	pitch  []float32 // Hz, 0 when unvoiced
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
// thrDb) and the acoustic features (hop s apart, the first centred at
// off): frame i takes the pitch of the feature frame centred nearest its
// middle.
func newWordSignal(rms []float32, thrDb float64, feats []frameFeat, hop, off float64) *wordSignal {
	n := len(rms)
	s := &wordSignal{db: rms, sound: make([]bool, n), voiced: make([]bool, n), pitch: make([]float32, n)}
	for i, v := range rms {
		s.sound[i] = float64(v) >= thrDb
		if len(feats) == 0 || !(hop > 0) {
			continue
		}
		k := min(max(int(math.Round(((float64(i)+0.5)*refineFrameSec-off)/hop)), 0), len(feats)-1)
		s.pitch[i] = feats[k].pitch
		s.voiced[i] = s.sound[i] && feats[k].pitch > 0
	}
	return s
}

// frame returns the frame holding t, clamped to [0, n].
func (s *wordSignal) frame(t float64) int {
	return min(max(int(math.Round(t/refineFrameSec)), 0), len(s.sound))
}

// frames returns the number of frames in sec seconds, rounded.
func frames(sec float64) int { return int(math.Round(sec / refineFrameSec)) }

func frameTime(i int) float64 { return math.Round(float64(i)*refineFrameSec*1000) / 1000 }

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
	// a held vowel and its nasal ("u-m") at one pitch are one piece
	k := 0
	for _, p := range out {
		if k > 0 && p.i-out[k-1].j <= refineBridge && s.held(out[k-1]) && s.held(p) &&
			math.Abs(s.medianSemi(out[k-1])-s.medianSemi(p)) <= refineMergeSemi {
			out[k-1].j = p.j
			continue
		}
		out[k] = p
		k++
	}
	return out[:k]
}

// held reports whether piece p is held: steadiness refineHeld or more.
func (s *wordSignal) held(p span) bool { return s.steadiness(p.i, p.j) >= refineHeld }

// medianSemi is the median pitch of p's voiced frames, semitones (0: none).
func (s *wordSignal) medianSemi(p span) float64 {
	var ps []float64
	for i := p.i; i < p.j; i++ {
		if s.voiced[i] {
			ps = append(ps, semi(s.pitch[i]))
		}
	}
	return percentile(ps, 0.5)
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
	for k := range t.Words {
		if !own[k] {
			trimToSound(&t.Words[k], sig)
		}
	}
	t.Fillers = mergeFillers(t.Fillers)
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
		if sc := w * (0.2 + st*min((pe-ps)/refineHeldMin, 1)); sc > bestScore {
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
