package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/autocut-dev/autocut/dsp"
)

// ErrBadAnalysis reports an analysis the planner cannot use (nil, no frame
// length or frames over 100 ms, peak and RMS envelopes of different
// lengths, an input duration the envelope does not cover to within a
// frame, a NaN level).
var ErrBadAnalysis = errors.New("unusable analysis")

// Edge constants (see the package doc).
const (
	// snapFrames is how far (in envelope frames, 10 ms each) a cut edge may
	// move to a quieter spot; snapMinGainDb is how much quieter it must be.
	snapFrames    = 1
	snapMinGainDb = 1.0
	// minKeepSec: a kept stretch shorter than this between two cuts is
	// absorbed into the cuts (it would only be a click).
	minKeepSec = 0.010
	// audibleDepthDb: word decays are followed down to the input's sample
	// peak (after the rumble filter: references) less this (the corpora's
	// rule of audible speech).
	audibleDepthDb = 40.0
	// edgeTolDb: the edge rule's levels are compared within this.
	edgeTolDb = 0.005
	// voicedScore: a classified frame scoring this or more is speech
	// (voicedShare), as for the voice classification's seeds.
	voicedScore = 0.5
	// voicedIslandFrames: an island with at least this many frames
	// classified as speech, and as many as not, is no short noise
	// (voicedIsland): minSpeech does not drop it.
	voicedIslandFrames = 3
	// maxFrameSec: an envelope with longer frames cannot place a cut (dsp
	// writes 10 ms frames).
	maxFrameSec = 0.1
)

// Make turns an analysis into a plan with params p (validated first) and
// extra cuts (fillers from a transcription; an empty Reason becomes
// "filler"). The rules, in order, are in the package doc. When nothing is
// left to keep Make returns the plan with ErrNothingToKeep so that callers
// can still show it.
func Make(a *dsp.Analysis, p Params, extra []Cut) (*Plan, error) {
	return makeTuned(a, p, extra, defaultTuning)
}

// makeTuned is Make with the detection constants tu (the sweeps').
func makeTuned(a *dsp.Analysis, p Params, extra []Cut, tu tuning) (*Plan, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("plan: nil analysis: %w", ErrBadAnalysis)
	}
	env := &a.Envelope
	n := len(env.RMSDb)
	if n > 0 && !(env.FrameSec > 0 && env.FrameSec <= maxFrameSec) {
		return nil, fmt.Errorf("plan: envelope frame length %v s (0 to %g s): %w", env.FrameSec, maxFrameSec, ErrBadAnalysis)
	}
	if len(env.PeakDb) != 0 && len(env.PeakDb) != n {
		return nil, fmt.Errorf("plan: %d peak frames for %d RMS frames: %w", len(env.PeakDb), n, ErrBadAnalysis)
	}
	if math.IsNaN(a.ThresholdDb) || math.IsNaN(a.NoiseFloorDb) || math.IsNaN(a.SpeechLevelDb) {
		// (A NaN threshold or speech level made detection loop forever.)
		return nil, fmt.Errorf("plan: analysis levels threshold %v, noise floor %v, speech %v dBFS: %w",
			a.ThresholdDb, a.NoiseFloorDb, a.SpeechLevelDb, ErrBadAnalysis)
	}
	dur := a.Input.Duration
	if !(dur > 0) || math.IsInf(dur, 0) {
		dur = float64(n) * env.FrameSec
	} else if span := float64(n) * env.FrameSec; n > 0 && math.Abs(dur-span) > env.FrameSec+1e-3 {
		// The envelope covers the input: its last frame may be partial.
		return nil, fmt.Errorf("plan: input of %.3f s but %d envelope frames of %g s (%.3f s): %w", dur, n, env.FrameSec, span, ErrBadAnalysis)
	}
	for i, c := range extra {
		if math.IsNaN(c.Start) || math.IsNaN(c.End) || math.IsInf(c.Start, 0) || math.IsInf(c.End, 0) || c.End < c.Start {
			return nil, fmt.Errorf("%w: extra cut %d [%v, %v] is not a time range", ErrInvalidParams, i, c.Start, c.End)
		}
	}
	thr := a.ThresholdDb
	if p.ThresholdDb != nil {
		thr = *p.ThresholdDb
	}
	eff := p
	eff.ThresholdDb = &thr
	pl := &Plan{ThresholdDb: thr, NoiseFloorDb: a.NoiseFloorDb, Params: eff}

	speech, peak := references(a)
	mk := maker{env: env, orig: env, n: n, fs: env.FrameSec, dur: dur, thr: thr, noise: a.NoiseFloorDb, speech: speech, tu: tu, auto: p.ThresholdDb == nil, faint: CrosstalkDepthDb, keepVoiced: keepVoiced(p, tu), peakDb: peak, tb: newDBTable()}
	if mk.auto {
		// Ends turned down (dsp.GainDrop) are planned at the gain of the
		// rest: the automatic threshold and the voice rules were measured
		// there.
		lv := mk.smoothed()
		if d := dsp.GainDrop(lv); d != nil {
			mk.env = levelled(env, d)
		} else {
			mk.lv = lv
		}
	}
	islands := mk.detect()
	if mk.auto {
		islands = mk.refine(islands)
	}
	cuts := mk.silenceCuts(islands, p)
	if mk.auto && dsp.HeardNoSpeech(env, mk.speech) {
		// Music or noise: its quiet stretches are no pauses between
		// words. Only silence is (under MinThresholdDb throughout).
		cuts = slices.DeleteFunc(cuts, func(c Cut) bool { return !mk.silent(c) })
	}
	if n > 0 {
		thr = mk.open
		pl.ThresholdDb = thr
		eff.ThresholdDb = &thr
		pl.Params = eff
	}
	detected := cuts
	cuts = mergeExtra(cuts, extra, dur)
	pl.finish(cuts, dur)
	if len(pl.Keep) == 0 {
		return pl, fmt.Errorf("plan: all %.3f s would be cut%s: %w", dur, mk.keepHint(a, islands, detected, p, thr), ErrNothingToKeep)
	}
	return pl, nil
}

// keepHint says what would keep part of an input the plan cuts whole,
// given the islands found, the cuts detected (before the extra cuts) and
// the threshold used: where the detection alone keeps something, the cuts
// given; where it found sounds, minSpeechMs, which they are all shorter
// than (naming the longest); else a threshold that would keep the loud
// part of the input (the speech level less dsp.SpeechMarginDb) where that
// lies under the one used and a caller may give it.
func (m *maker) keepHint(a *dsp.Analysis, islands []island, detected []Cut, p Params, thr float64) string {
	var q Plan
	if q.finish(detected, m.dur); len(q.Keep) > 0 {
		return " (the cuts given cover all the detection keeps)"
	}
	longest := 0
	for _, x := range islands {
		longest = max(longest, x.he-x.hs)
	}
	if longest > 0 {
		return fmt.Sprintf(" (every sound in it is shorter than minSpeechMs %g; the longest lasts %.0f ms)", p.MinSpeechMs, float64(longest)*m.fs*1000)
	}
	h := math.Round(a.SpeechLevelDb - dsp.SpeechMarginDb)
	switch {
	case h < MinThresholdDb || math.IsNaN(h):
		return " (the input holds no sound over -70 dBFS)"
	case h >= thr:
		return fmt.Sprintf(" (no sound in it stands over the threshold, %g dBFS)", thr)
	}
	return fmt.Sprintf(" (thresholdDb %g would keep the speech, whose level is %.1f dBFS)", min(h, MaxThresholdDb), a.SpeechLevelDb)
}

type maker struct {
	env        *dsp.Envelope // the envelope planned: orig, its ends brought up where dsp.GainDrop finds them turned down
	orig       *dsp.Envelope // the analysis's
	n          int
	fs, dur    float64
	thr, noise float64
	speech     float64 // the speech level, dBFS (references: after the rumble filter)
	peakDb     float64 // the input's sample peak, dBFS (references: after the rumble filter)
	tu         tuning
	auto       bool    // the threshold is the analysis's automatic one
	faint      float64 // faint-voice depth: CrosstalkDepthDb in either crosstalk mode (keepVoiced tells them apart)
	keepVoiced int     // the faint-voice rule spares voiced runs this long (keepVoiced)
	open       float64 // the threshold detection used (reported in the plan)
	bg         []bool  // frames the voice classification puts in the background (automatic threshold only)
	closeLv    float64 // the close level detection used
	audible    float64 // the audible bound: the input's sample peak - audibleDepthDb (automatic threshold)
	tb         dbTable
	lv0        []float32 // the 50 ms levels before the background was taken out (nil: no background)
	lv         []float32 // the 50 ms levels of env, when already smoothed (nil: detect smooths them)
	bandBed    []float64 // each band's bed level (bandBeds; nil: no spectrum)
}

// silent reports whether every frame cut c covers lies under
// MinThresholdDb: digital silence, or nearly.
func (m *maker) silent(c Cut) bool {
	for i := int(c.Start / m.fs); i < m.n && float64(i)*m.fs < c.End; i++ {
		if float64(m.orig.RMSDb[i]) >= MinThresholdDb {
			return false
		}
	}
	return true
}

// levelled returns a copy of env with the RMS and peak levels of each
// frame over dsp.FloorDb raised by drop (dB).
func levelled(env *dsp.Envelope, drop []float32) *dsp.Envelope {
	out := *env
	raise := func(db []float32) []float32 {
		if len(db) != len(drop) {
			return db
		}
		up := make([]float32, len(db))
		for i, v := range db {
			up[i] = v
			if v > dsp.FloorDb {
				up[i] = v + drop[i]
			}
		}
		return up
	}
	out.RMSDb, out.PeakDb = raise(env.RMSDb), raise(env.PeakDb)
	return &out
}

// level returns frame i's RMS level in dB (NaN reads as the floor).
func (m *maker) level(i int) float64 {
	if m.bg != nil && m.bg[i] {
		return dsp.FloorDb
	}
	v := float64(m.env.RMSDb[i])
	if math.IsNaN(v) {
		return dsp.FloorDb
	}
	return v
}

// peak returns frame i's peak level, or its RMS level when the envelope
// has no peaks.
func (m *maker) peak(i int) float64 {
	if len(m.env.PeakDb) == 0 {
		return m.level(i)
	}
	v := float64(m.env.PeakDb[i])
	if math.IsNaN(v) {
		return dsp.FloorDb
	}
	return v
}

// tuning holds the detection constants (see the package doc); tests sweep
// them, Make uses defaultTuning.
type tuning struct {
	smooth               int     // frames of the centred power average detection runs on (odd)
	maxHystDb, minHystDb float64 // gap between open and close level (automatic threshold)
	explicitHystDb       float64 // open level over a given threshold
	trimDepthDb          float64 // protected edge frames this far under the open level are given back
	riseDb               float64 // rise tolerated while following a decay/onset
	floorMarginDb        float64 // a decay is followed down to floor + this
	maxTail, maxOnset    int     // frames a decay / onset may be followed
	pad                  int     // frames added on both sides of every island

	// Edge placement by the bed of each pause (automatic threshold, refine).
	edgeBurstDb     float64 // a frame this far over the bed is audible speech
	edgeDecayDb     float64 // a decay is followed while 20 ms stay this far over the bed
	edgeOwnDb       float64 // and the frame itself this far
	edgeGuard       int     // frames next to the islands left out of a bed's level
	edgeMinBed      int     // frames a pause needs for its bed's level
	edgeTailSkip    int     // frames after each island left out of a quiet bed's level (0: off)
	edgeQuietBedDb  float64 // a bed so measured this far under the speech level or more
	edgeTailRiseDb  float64 // and this far under the bed measured whole (the tails raise it) is quiet
	edgeTailGap     int     // frames bridged after speech to a burst (a final stop's closure)
	edgeOnsetGap    int     // frames bridged before speech
	edgeMaxTail     int     // frames an edge may move out past its anchor, after speech
	edgeMaxOnset    int     // and before it
	edgeBedWin      int     // frames around a pause whose pauses' frames make its bed
	edgeStrictDb    float64 // a decay 20 ms of which stay this far over the bed is audible speech
	edgeSoftMax     int     // frames a decay may be followed under edgeStrictDb (down to edgeDecayDb)
	edgeStrictMinDb float64 // edgeStrictDb applies to a bed this far under the speech level or more
	clickCrestDb    float64 // a frame whose peak stands this far over its RMS level is a click (0: off)
	// edgeClickRate: a bed whose pauses hold isolated bursts (a frame
	// edgeBurstDb over the bed between two under it) in more than this
	// share of their frames (percent) crackles: there, a frame whose peak
	// stands clickCrestDb over its RMS level is a click, not speech.
	edgeClickRate float64
	edgeVoiceStop float64 // a frame the network scores under this (0: off)
	edgeVoiceNear int     // with no frame within this many scoring more or loud, is no edge's speech (unvoiced)
	edgeVoiceSkip int     // frames an anchor may move in past unvoiced frames
	// edgeVoiceIsland: a raw island of at most this many frames, every
	// frame of which is unvoiced, is no speech (refine), in an input where
	// at least edgeVoicedShare of the frames the network classified or
	// level found loud are speech (voicedShare).
	edgeVoiceIsland int
	edgeVoicedShare float64
	// edgeClosureDb: after speech, a burst is bridged to (and anchors an
	// edge) only across a closure, a frame under the bed + this (0: any
	// gap).
	edgeClosureDb float64
	// edgeWideWin, edgeWideMaxDb: where the bed of the pauses within
	// edgeWideWin frames (the wide bed) stands over a pause's bed, the
	// burst, strict and decay levels of its rule rise by the difference,
	// at most edgeWideMaxDb (0: off).
	edgeWideWin   int
	edgeWideMaxDb float64
	// edgeQuietIsland: a raw island of at most this many frames with no
	// frame at the burst level of the beds on both sides (next to a
	// crackling bed: but clicks) is no speech (refine; 0: off).
	edgeQuietIsland int
	// edgeQuietNear: frames on each side of such an island whose level
	// caps the beds it is judged by (aroundLevel).
	edgeQuietNear int
	// Foreground sounds over a steady bed (foreground; fgBedDb 0: off):
	// a run of at least fgMin frames the voice classification put in the
	// background, within fgNear frames of an island, whose 50 ms level
	// stands fgBedDb over the pause's steady bed (the mean power of its
	// window's frames under its bed + fgRejectDb) and within fgSpeechDb of
	// the speech level, fgRawMin of whose own 10 ms levels stand fgRawDb
	// over that bed (one fewer when the network scores a frame of it
	// fgHeardMin or more), is an island.
	fgBedDb, fgSpeechDb, fgRejectDb, fgRawDb, fgHeardMin float64
	fgMin, fgNear, fgRawMin                              int
	// The bed's spectrum (bandBeds; bandExcessDb 0: off): each band's
	// bandBedQ quantile over the pauses' measured frames (at least
	// bandMinFrames of them); a measured frame whose bands stand in all
	// (summed) under bandExcessDb over it is bed (bedLike). Only for a bed
	// whose bands spread bandSpreadDb or more (their bandBedQ quantile
	// over their median, averaged), at most bandVoicedMax of whose
	// measured frames the network scores as speech, and at an edge whose
	// pause's bed lies within bandSNRDb of the speech level.
	bandExcessDb, bandBedQ                 float64
	bandMinFrames                          int
	bandSpreadDb, bandVoicedMax, bandSNRDb float64
	// keepVoicedFrames: with crosstalk kept (the default), a faint
	// stretch holding this many consecutive frames of voice (heard as
	// speech by the network, or loud over its floor by level) is a voice
	// and stays (dsp.NonSpeech's keepVoiced); with crosstalk cut, none
	// stays. Fitted on the tune part by TestSweepKeepVoiced, by the rule
	// "the least of a quieter voice lost (over every conversational preset
	// and full removal); within 10 % of that, the most pause removed": 5
	// frames lose 28.1 s over the tune conversations (1 frame 26.0 s, 8
	// frames 34.1 s, the rule for everyone 2162 s) and cut 43.6 % of the
	// keystrokes' pause time (1: 43.0 %; everyone: 69.8 %).
	keepVoicedFrames int
}

var defaultTuning = tuning{smooth: 5, maxHystDb: 12, minHystDb: 1, explicitHystDb: 3, trimDepthDb: 20,
	riseDb: 1.5, floorMarginDb: 4, maxTail: 25, maxOnset: 8, pad: 0,
	edgeBurstDb: 7, edgeDecayDb: 5, edgeOwnDb: 1, edgeGuard: 3, edgeMinBed: 10, edgeTailSkip: 20, edgeQuietBedDb: 25, edgeTailRiseDb: 3,
	edgeTailGap: 9, edgeOnsetGap: 2, edgeMaxTail: 25, edgeMaxOnset: 15, edgeBedWin: 1000,
	clickCrestDb: 13, edgeClickRate: 0.5, edgeStrictDb: 7, edgeSoftMax: 1, edgeStrictMinDb: 15,
	edgeVoiceStop: 0.025, edgeVoiceNear: 5, edgeVoiceSkip: 25,
	edgeVoiceIsland: 30, edgeVoicedShare: 0.2, edgeClosureDb: 2, edgeQuietIsland: 30, edgeQuietNear: 20,
	edgeWideWin: 3000, edgeWideMaxDb: 2,
	fgBedDb: 9, fgSpeechDb: 16, fgRejectDb: 8, fgRawDb: 7, fgHeardMin: 0.12, fgMin: 4, fgNear: 60, fgRawMin: 3,
	bandExcessDb: 20, bandBedQ: 0.95, bandMinFrames: 100, bandSpreadDb: 10, bandVoicedMax: 0.2, bandSNRDb: 25,
	keepVoicedFrames: 5}

// island is a detected stretch of speech: [rs, re) as the level detection
// found it (raw), [s, e) after the decay/onset protection and padding; fg
// marks a foreground sound (foreground), which minSpeech does not drop.
type island struct {
	rs, re, s, e, hs, he int
	fg                   bool
}

// dbTable converts dB to power and back quickly: powers of the levels in
// 0.01 dB steps from dsp.FloorDb to +20 dB, and log10 of mantissas in
// [0.5, 1) in 1/4096 steps (error under 0.002 dB). Built per plan (about
// 0.2 ms) so the package holds no state.
type dbTable struct {
	pow   []float64
	log10 []float64
}

const (
	powStep  = 0.01
	logSteps = 4096
)

func newDBTable() dbTable {
	t := dbTable{pow: make([]float64, int((20-dsp.FloorDb)/powStep)+2), log10: make([]float64, logSteps+1)}
	for i := range t.pow {
		t.pow[i] = math.Pow(10, (dsp.FloorDb+float64(i)*powStep)/10)
	}
	for i := range t.log10 {
		t.log10[i] = math.Log10(0.5 + 0.5*float64(i)/logSteps)
	}
	return t
}

// power returns 10^(db/10) for db clamped to [dsp.FloorDb, 20].
func (t dbTable) power(db float64) float64 {
	i := int((min(max(db, dsp.FloorDb), 20)-dsp.FloorDb)/powStep + 0.5)
	return t.pow[i]
}

// log10of2 is log10(2).
const log10of2 = 0.30102999566398119521

// db returns 10*log10(p) for a normal p > 0: the exponent bits give the
// power of two, the top 12 mantissa bits index the table.
func (t dbTable) db(p float64) float64 {
	b := math.Float64bits(p)
	e := int(b>>52&0x7ff) - 1022 // p = m * 2^e, m in [0.5, 1)
	return 10 * (float64(e)*log10of2 + t.log10[(b>>39&(2*logSteps-1)+1)>>1])
}

// round2 rounds x to 0.01, half away from zero (faster than math.Round
// here; |x| is at most a few hundred).
func round2(x float64) float64 {
	if x < 0 {
		return -float64(int64(-x*100+0.5)) / 100
	}
	return float64(int64(x*100+0.5)) / 100
}

// smoothed returns the centred moving average of the frame powers over
// tu.smooth frames, in dB.
func (m *maker) smoothed() []float32 {
	tb := m.tb
	out := make([]float32, m.n)
	h := m.tu.smooth / 2
	pw := func(i int) float64 { return tb.power(m.level(i)) }
	sum, cnt := 0.0, 0
	for i := 0; i < min(h, m.n); i++ {
		sum += pw(i)
		cnt++
	}
	for i := 0; i < m.n; i++ {
		if j := i + h; j < m.n {
			sum += pw(j)
			cnt++
		}
		if j := i - h - 1; j >= 0 {
			sum -= pw(j)
			cnt--
		}
		if i%1024 == 0 { // recompute: running sums never drift
			sum = 0
			for j := max(i-h, 0); j <= min(i+h, m.n-1); j++ {
				sum += pw(j)
			}
		}
		// Rounded to 0.01 dB, the table's resolution, so that a flat
		// stretch smooths to exactly its own level.
		out[i] = float32(round2(tb.db(max(sum/float64(cnt), 1e-12))))
	}
	return out
}

// levelHist is a histogram of levels in 0.5 dB bins from dsp.FloorDb to
// +20 dB.
type levelHist struct {
	n    int
	bins [int((20-dsp.FloorDb)/0.5) + 1]int
}

func newLevelHist(levels []float32) *levelHist {
	h := &levelHist{n: len(levels)}
	for _, v := range levels {
		h.bins[int((min(max(float64(v), dsp.FloorDb), 20)-dsp.FloorDb)*2)]++
	}
	return h
}

// quantile returns the p-quantile (the lower edge of its bin).
func (h *levelHist) quantile(p float64) float64 {
	target, acc := max(int(math.Ceil(p*float64(h.n))), 1), 0
	for b, c := range h.bins {
		acc += c
		if acc >= target {
			return dsp.FloorDb + float64(b)*0.5
		}
	}
	return 20
}

// detect returns the speech islands, sorted and disjoint: runs of frames at
// or over the close level that reach the open level, then widened over
// word decays and soft onsets.
func (m *maker) detect() []island {
	if m.n == 0 {
		return nil
	}
	tu := m.tu
	lv := m.lv
	if lv == nil {
		lv = m.smoothed()
	}
	var lv0 []float32 // lv before the background is taken out
	hist := newLevelHist(lv)
	floor := hist.quantile(0.10)
	// Automatic threshold: the analysis's pause threshold is the open
	// level, the close level sits under it. Given threshold: it is the
	// close level (everything under it is silence), the open level sits
	// explicitHystDb over it.
	open, closeLv := m.thr+tu.explicitHystDb, m.thr
	m.open = m.thr
	if m.auto {
		// Within the range a caller may give, so that the plan's
		// effective params validate.
		open = min(max(m.thr, MinThresholdDb), MaxThresholdDb)
		closeLv = open - min(max((open-floor)/2, tu.minHystDb), tu.maxHystDb)
		m.open = open
		// Where level cannot decide, the voice classification puts
		// frames in the background: they count as silence.
		if bg := dsp.NonSpeech(m.env, lv, m.speech, m.faint, m.keepVoiced); bg != nil {
			m.bg = bg
			lv0 = slices.Clone(lv)
			m.lv0 = lv0
			for i, b := range bg {
				if b {
					lv[i] = float32(dsp.FloorDb)
				}
			}
		}
	}
	m.closeLv = closeLv
	// hs, he: the detection run, on which minSpeech is judged, is the
	// level's (the run before the voice classification's background is
	// taken out: it only narrows what level found).
	run := func(i0, i int) (int, int) {
		if lv0 == nil {
			return i0, i
		}
		for i0 > 0 && float64(lv0[i0-1]) >= closeLv {
			i0--
		}
		for i < m.n && float64(lv0[i]) >= closeLv {
			i++
		}
		return i0, i
	}
	stop := max(floor+tu.floorMarginDb, dsp.FloorDb+1)
	audible := dsp.FloorDb
	m.audible = audible
	if m.auto && m.peakDb > dsp.FloorDb {
		// Nothing more than audibleDepthDb under the input's peak is
		// audible next to it: decays are not followed under that, and
		// island edges under it are given back.
		audible = m.peakDb - audibleDepthDb
		m.audible = audible
		stop = max(stop, audible)
	}
	l := func(i int) float64 { return float64(lv[i]) }
	var out []island
	for i := 0; i < m.n; {
		if l(i) < closeLv {
			i++
			continue
		}
		i0, reached := i, false
		for ; i < m.n && l(i) >= closeLv; i++ {
			reached = reached || l(i) >= open
		}
		if !reached {
			continue
		}
		rs := i0
		re := i
		// The raw island runs from the first to the last frame whose own
		// (unsmoothed) level reaches the open level: the narrowest sensible
		// reading of the speech, so the widest of the silence.
		for rs < re-1 && m.level(rs) < open {
			rs++
		}
		for re > rs+1 && m.level(re-1) < open {
			re--
		}
		// Follow the decay while the level keeps falling (within riseDb)
		// and stays audible over the floor.
		e := i
		for k := 0; k < tu.maxTail && e < m.n; k++ {
			if l(e) > l(e-1)+tu.riseDb || l(e) < stop {
				break
			}
			e++
		}
		// Follow a soft onset backwards the same way.
		s := i0
		for k := 0; k < tu.maxOnset && s > 0; k++ {
			if l(s-1) > l(s)+tu.riseDb || l(s-1) < stop {
				break
			}
			s--
		}
		// Smoothing smears an island over the frames next to it: give back
		// the frames whose own level is far under the open level.
		for e > re && m.level(e-1) < open-tu.trimDepthDb {
			e--
		}
		for s < rs && m.level(s) < open-tu.trimDepthDb {
			s++
		}
		// Nor is what lies under the audible bound (the run under the
		// close level can reach below it).
		for e > re && l(e-1) < audible {
			e--
		}
		for s < rs && l(s) < audible {
			s++
		}
		s, e = max(s-tu.pad, 0), min(e+tu.pad, m.n)
		if k := len(out) - 1; k >= 0 && s <= out[k].e {
			_, he := run(i0, i)
			out[k].e, out[k].re, out[k].he = max(out[k].e, e), re, he
		} else {
			hs, he := run(i0, i)
			out = append(out, island{rs: rs, re: re, s: s, e: e, hs: hs, he: he})
		}
		i = max(i, e)
	}
	return out
}

// t converts a frame boundary to seconds, clamped to the duration.
func (m *maker) t(i int) float64 { return min(float64(i)*m.fs, m.dur) }

// silenceCuts applies minSpeech, minSilence and keepSilence to the
// silences between islands and snaps the cut edges.
func (m *maker) silenceCuts(islands []island, p Params) []Cut {
	minSpeech := int(math.Round(p.MinSpeechMs / 1000 / m.fs))
	// A region is a silence between two kept islands (or a file edge),
	// running through the short islands it absorbed: [s, e) between the
	// protected island edges, [rs, re) between the raw ones.
	type region struct {
		s, e, rs, re int
		shorts       []island
	}
	var regs []region
	cur := region{}
	// A short island is merged only when the pauses on both sides (raw)
	// last at least half of minSilence, or it touches a file edge there:
	// speech the detector splits into syllables must not chain into one
	// long "pause".
	halfPause := int(math.Round(p.MinSilenceSec / 2 / m.fs))
	for k, is := range islands {
		whole := is.s == 0 && is.e >= m.n
		leftOK := is.rs == 0 || (k > 0 && is.rs-islands[k-1].re >= halfPause) || (k == 0 && is.rs >= halfPause)
		rightOK := is.re >= m.n || (k+1 < len(islands) && islands[k+1].rs-is.re >= halfPause) || (k+1 == len(islands) && m.n-is.re >= halfPause)
		if !whole && !is.fg && is.he-is.hs < minSpeech && leftOK && rightOK && !m.voicedIsland(is.rs, is.re) {
			cur.shorts = append(cur.shorts, is) // judged on the raw island
			continue
		}
		cur.e, cur.re = is.s, is.rs
		regs = append(regs, cur)
		cur = region{s: is.e, rs: is.re}
	}
	cur.e, cur.re = m.n, m.n
	regs = append(regs, cur)

	keep := p.KeepSilenceMs / 1000
	var cuts []Cut
	for _, r := range regs {
		if r.e <= r.s {
			continue
		}
		a, b := m.t(r.s), m.t(r.e)
		if m.t(r.re)-m.t(r.rs) < p.MinSilenceSec-m.fs || b-a <= keep+1e-9 {
			continue
		}
		atStart, atEnd := r.s == 0, r.e >= m.n
		cs, ce := a+keep/2, b-keep/2
		switch {
		case atStart && atEnd:
			cs, ce = 0, m.dur
		case atStart:
			cs, ce = 0, b-keep
		case atEnd:
			cs, ce = a+keep, m.dur
		}
		// With keepSilence 0 the edges sit on the (protected) speech
		// edges already; otherwise they lie inside the pause and may move
		// to a quieter frame.
		if !atStart && keep > 0 {
			cs = m.snap(cs, a, ce)
		}
		if !atEnd && keep > 0 {
			ce = m.snap(ce, cs, b)
		}
		if ce <= cs {
			continue
		}
		// Split the cut by reason: the short islands it covers are
		// "short-speech", the rest "silence".
		pos := cs
		for _, is := range r.shorts {
			is0, is1 := max(m.t(is.s), cs), min(m.t(is.e), ce)
			if is1 <= is0 {
				continue
			}
			if is0 > pos {
				cuts = append(cuts, Cut{pos, is0, m.reason(pos, is0)})
			}
			cuts = append(cuts, Cut{is0, is1, ReasonShortSpeech})
			pos = is1
		}
		if pos < ce {
			cuts = append(cuts, Cut{pos, ce, m.reason(pos, ce)})
		}
	}
	return cuts
}

// reason returns "noise" for a pause [a, b) that level alone would have
// kept: more than half of its frames are at or over the close level and
// the voice classification put them in the background. Otherwise
// "silence".
func (m *maker) reason(a, b float64) string {
	if m.bg == nil {
		return ReasonSilence
	}
	i0, i1 := int(a/m.fs), min(int(math.Ceil(b/m.fs)), m.n)
	loud := 0
	for i := i0; i < i1; i++ {
		if m.bg[i] && float64(m.env.RMSDb[i]) >= m.closeLv {
			loud++
		}
	}
	if 2*loud > i1-i0 {
		return ReasonNoise
	}
	return ReasonSilence
}

// snap moves the cut edge t by up to snapFrames envelope frames to a frame
// whose peak is at least snapMinGainDb quieter, staying within (lo, hi).
func (m *maker) snap(t, lo, hi float64) float64 {
	if m.n == 0 {
		return t
	}
	frame := func(x float64) int { return min(max(int(math.Floor(x/m.fs+1e-9)), 0), m.n-1) }
	best, bestQ := t, m.peak(frame(t))
	for _, k := range []int{-1, 1} {
		for d := 1; d <= snapFrames; d++ {
			x := t + float64(k*d)*m.fs
			if x < lo || x > hi || x <= 0 || x >= m.dur {
				continue
			}
			if q := m.peak(frame(x)); q < bestQ-snapMinGainDb {
				best, bestQ = x, q
			}
		}
	}
	return best
}

// mergeExtra merges extra cuts into the silence cuts: where they overlap
// the extra cut's reason wins. The result is sorted and disjoint.
func mergeExtra(cuts []Cut, extra []Cut, dur float64) []Cut {
	if len(extra) == 0 {
		return cuts
	}
	ex := make([]Cut, 0, len(extra))
	for _, c := range extra {
		c.Start, c.End = max(c.Start, 0), min(c.End, dur)
		if c.End <= c.Start {
			continue
		}
		if c.Reason == "" {
			c.Reason = ReasonFiller
		}
		ex = append(ex, c)
	}
	slices.SortFunc(ex, func(x, y Cut) int {
		switch {
		case x.Start < y.Start:
			return -1
		case x.Start > y.Start:
			return 1
		}
		return 0
	})
	// Union overlapping extra cuts (the first one's reason stays).
	var u []Cut
	for _, c := range ex {
		if len(u) > 0 && c.Start <= u[len(u)-1].End {
			u[len(u)-1].End = max(u[len(u)-1].End, c.End)
			continue
		}
		u = append(u, c)
	}
	// Subtract the extra cuts from the silence cuts, then interleave.
	out := make([]Cut, 0, len(cuts)+len(u))
	j := 0
	for _, c := range cuts {
		for j < len(u) && u[j].End <= c.Start {
			j++
		}
		pos := c.Start
		for k := j; k < len(u) && u[k].Start < c.End; k++ {
			if u[k].Start > pos {
				out = append(out, Cut{pos, u[k].Start, c.Reason})
			}
			pos = max(pos, u[k].End)
		}
		if pos < c.End {
			out = append(out, Cut{pos, c.End, c.Reason})
		}
	}
	out = append(out, u...)
	slices.SortStableFunc(out, func(x, y Cut) int {
		switch {
		case x.Start < y.Start:
			return -1
		case x.Start > y.Start:
			return 1
		}
		return 0
	})
	return out
}

// round6 rounds seconds to the microsecond.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// finish rounds the cuts, merges touching cuts of the same reason, absorbs
// slivers of kept audio, and fills Keep and Stats.
func (pl *Plan) finish(cuts []Cut, dur float64) {
	dur = round6(dur)
	var out []Cut
	for _, c := range cuts {
		c.Start, c.End = round6(max(c.Start, 0)), round6(min(c.End, dur))
		if len(out) > 0 {
			last := &out[len(out)-1]
			c.Start = max(c.Start, last.End)
			if c.End <= c.Start {
				continue
			}
			if c.Start-last.End < minKeepSec {
				if c.Reason == last.Reason {
					last.End = c.End
					continue
				}
				last.End = c.Start
			}
		} else if c.Start < minKeepSec {
			c.Start = 0
		}
		if c.End <= c.Start {
			continue
		}
		out = append(out, c)
	}
	if len(out) > 0 && dur-out[len(out)-1].End < minKeepSec {
		out[len(out)-1].End = dur
	}
	keep := []Range{}
	pos := 0.0
	for _, c := range out {
		if c.Start > pos {
			keep = append(keep, Range{Start: pos, End: c.Start})
		}
		pos = c.End
	}
	if pos < dur {
		keep = append(keep, Range{Start: pos, End: dur})
	}
	if out == nil {
		out = []Cut{}
	}
	final := 0.0
	for _, k := range keep {
		final += k.End - k.Start
	}
	final = round6(final)
	pl.Cuts, pl.Keep = out, keep
	pl.Stats = Stats{OriginalSec: dur, FinalSec: final, SavedSec: round6(dur - final), CutsCount: len(out)}
	if dur > 0 {
		pl.Stats.SavedPct = math.Round((dur-final)/dur*100*1000) / 1000
	}
}

// raw returns frame i's own 10 ms level, not masked by the voice
// classification (NaN reads as the floor).
func (m *maker) raw(i int) float64 {
	v := float64(m.env.RMSDb[i])
	if math.IsNaN(v) {
		return dsp.FloorDb
	}
	return v
}

// pw returns frame i's own power (raw).
func (m *maker) pw(i int) float64 { return m.tb.power(m.raw(i)) }

// pair returns the level over the 20 ms of frames i and j (j = i ± 1,
// clamped to the envelope).
func (m *maker) pair(i, j int) float64 {
	j = min(max(j, 0), m.n-1)
	return 10 * math.Log10(max((m.pw(i)+m.pw(j))/2, 1e-12))
}

// click reports whether frame j is a click of the bed rather than speech
// (a crackle of vinyl or static: a 1-3 ms impulse): its sample peak stands
// tu.clickCrestDb or more over its RMS level and, on each side, its
// neighbour is under the burst level of r or is such a frame too with the
// frame beyond it under that level (a crackle that straddles two 10 ms
// frames); a stop's release next to its word is not.
func (m *maker) click(j int, r edgeRule) bool {
	if !m.crest(j) {
		return false
	}
	under := func(i int) bool { return i < 0 || i >= m.n || m.raw(i) < r.burst }
	return (under(j-1) || m.crest(j-1) && under(j-2)) && (under(j+1) || m.crest(j+1) && under(j+2))
}

// crest reports whether frame j's sample peak stands tu.clickCrestDb or
// more over its RMS level (false with no peaks or the rule off).
func (m *maker) crest(j int) bool {
	return m.tu.clickCrestDb > 0 && len(m.env.PeakDb) > 0 && j >= 0 && j < m.n && m.peak(j)-m.raw(j) >= m.tu.clickCrestDb
}

// unvoiced reports whether frame j is one the voice network classified as
// clearly not speech (a score under tu.edgeVoiceStop), and so is every
// classified frame within tu.edgeVoiceNear frames of it, none of which is
// loud: a pop or a note of the bed next to speech, not the speech's own
// onset or decay (whose frames share a 32 ms chunk with speech, or lie
// next to one).
func (m *maker) unvoiced(j int) bool {
	if m.tu.edgeVoiceStop <= 0 || len(m.env.Voice) != m.n {
		return false
	}
	if !classified(m.env.Voice[j]) {
		return false
	}
	for i := max(j-m.tu.edgeVoiceNear, 0); i <= min(j+m.tu.edgeVoiceNear, m.n-1); i++ {
		v := m.env.Voice[i]
		if v == dsp.VoiceLoud || v != dsp.VoiceFloor && dsp.VoiceScore(v) >= m.tu.edgeVoiceStop {
			return false
		}
	}
	return true
}

// allUnvoiced reports whether every frame of [a, b) is unvoiced.
func (m *maker) allUnvoiced(a, b int) bool {
	for j := a; j < b; j++ {
		if !m.unvoiced(j) {
			return false
		}
	}
	return a < b
}

// classified reports whether the voice code v is a score of the voice
// network's, not a frame level decided (floor, loud).
func classified(v uint8) bool { return v != dsp.VoiceFloor && v != dsp.VoiceLoud }

// voicedCode returns the lowest voice code whose score reaches
// voicedScore (a code is 1 + 253 x the score).
func voicedCode() uint8 { return uint8(math.Ceil(1 + 253*voicedScore)) }

// voicedIsland reports whether the voice network hears speech in the
// frames [a, b): at least voicedIslandFrames of them classified (a 32 ms
// chunk of the network), half or more of those scoring voicedScore or
// more. Frames level decided (floor, loud) do not count either way.
func (m *maker) voicedIsland(a, b int) bool {
	if len(m.env.Voice) != m.n {
		return false
	}
	first := voicedCode()
	cl, vo := 0, 0
	for _, v := range m.env.Voice[a:b] {
		if !classified(v) {
			continue
		}
		cl++
		if v >= first {
			vo++
		}
	}
	return vo >= voicedIslandFrames && 2*vo >= cl
}

// voicedShare returns the share of the frames the voice network
// classified, or level found loud, that are speech (VoiceLoud, or a score
// of 0.5 or more); 0 when there are none. A speech recording over any bed
// has 0.38 or more (the real-speech mixes; the synthetic corpus 0.67 or
// more), a music file 0.03 at most (testdata: Brahms 0.001, Vibe Ace
// 0.033, the garzul loop 0): the network scores music about 0 throughout.
func (m *maker) voicedShare() float64 {
	first := voicedCode()
	cl, vo := 0, 0
	for _, v := range m.env.Voice {
		if v != dsp.VoiceFloor {
			cl++
			if v >= first {
				vo++
			}
		}
	}
	if cl == 0 {
		return 0
	}
	return float64(vo) / float64(cl)
}

// edgeRule is the audible rule of one pause's bed (see refine).
type edgeRule struct {
	burst, decay, strict, own float64
	closure                   float64 // a frame under this is a stop's closure (+Inf: any frame is)
	unvoiced                  bool    // frames the network finds clearly not speech are no speech (unvoiced)
	bandy                     bool    // frames whose spectrum is the bed's are no speech (bedLike)
}

// edgeRule returns the rule of a pause whose bed is bed and wide bed
// wide (bedsClicks).
func (m *maker) edgeRule(bed, wide float64) edgeRule {
	// Levels are compared at the resolution they are kept (0.01 dB): a
	// frame exactly 7 dB over the bed is over it, whatever the rounding
	// of the bed's power sum.
	soft := m.speech-bed < m.tu.edgeStrictMinDb
	// Audible speech is judged over the wider bed where the pause's own
	// lies under it (a quiet passage of a music bed): the speech levels
	// rise by the difference, within edgeWideMaxDb.
	rise := min(max(wide-bed, 0), m.tu.edgeWideMaxDb)
	bed -= edgeTolDb
	strict := bed + rise + m.tu.edgeStrictDb
	if soft {
		strict = bed + rise + m.tu.edgeDecayDb
	}
	closure := math.Inf(1)
	if m.tu.edgeClosureDb > 0 {
		closure = bed + m.tu.edgeClosureDb
	}
	return edgeRule{
		closure:  closure,
		burst:    max(bed+rise+m.tu.edgeBurstDb, m.audible),
		decay:    max(bed+rise+m.tu.edgeDecayDb, m.audible),
		strict:   max(strict, m.audible),
		own:      bed + m.tu.edgeOwnDb,
		unvoiced: m.tu.edgeVoiceStop > 0 && len(m.env.Voice) == m.n,
		bandy:    m.bandBed != nil && m.speech-bed < m.tu.bandSNRDb,
	}
}

// follow walks from the anchor frame a in direction d (+1: after the
// speech, -1: before it) over the frames the rule r keeps, bridging up to
// gap frames to a burst, never reaching stop or more than limit frames,
// and returns the outermost frame kept.
func (m *maker) follow(a, d, stop, gap, limit int, r edgeRule, clicky bool) int {
	pos, g, soft := a, 0, 0
	// closed: the frames since pos hold a closure (before speech, no
	// closure is needed).
	closed := d < 0
	for k, j := 1, a+d; k <= limit && j != stop && j >= 0 && j < m.n; k, j = k+1, j+d {
		switch {
		case clicky && m.click(j, r), r.unvoiced && m.unvoiced(j), r.bandy && m.bedLike(j),
			g > 0 && !closed && m.raw(j) >= r.burst:
			if g++; g > gap {
				return pos
			}
		case m.raw(j) >= r.burst, g == 0 && m.raw(j) >= r.own && m.pair(j, j-d) >= r.strict:
			pos, g, soft, closed = j, 0, 0, d < 0
		case g == 0 && soft < m.tu.edgeSoftMax && m.raw(j) >= r.own && m.pair(j, j-d) >= r.decay:
			pos, soft = j, soft+1
		default:
			closed = closed || m.raw(j) < r.closure
			if g++; g > gap {
				return pos
			}
		}
	}
	return pos
}

// beds returns the bed level of each pause around the islands is (k:
// the pause before island k, len(is): after the last), and whether it is
// known: the mean power of the 10 ms frames of the pauses within
// tu.edgeBedWin frames of it (the pause itself and its neighbours, so
// that a short pause, or one holding a missed word, does not stand
// alone), each less tu.edgeGuard frames at both ends and counted only when
// at least tu.edgeMinBed frames are left (a gap between words is no bed).
// A quiet bed is measured without the first tu.edgeTailSkip frames after
// each island (the words' decays, a room's tail): a bed so measured
// tu.edgeQuietBedDb or more under the speech level and tu.edgeTailRiseDb
// or more under the bed measured whole.
func (m *maker) beds(is []island) ([]float64, []bool) {
	bed, _, ok, _ := m.bedsClicks(is)
	return bed, ok
}

// bedsClicks is beds, with each pause's wide bed (the same mean over the
// pauses within tu.edgeWideWin frames; its bed where that is not wider),
// and for each pause the share (percent) of its window's pause frames
// that are isolated bursts: a frame tu.edgeBurstDb over the bed with both
// neighbours under that.
func (m *maker) bedsClicks(is []island) (bed, wide []float64, ok []bool, rate []float64) {
	np := len(is) + 1
	a, b := m.guardedPauses(is)
	// Cumulated power and number of the frames of the pauses before k,
	// whole (cum, cnt) and without the first tu.edgeTailSkip frames of
	// each pause after an island (qcum, qcnt: a quiet bed's measure).
	cum, cnt := make([]float64, np+1), make([]int, np+1)
	qcum, qcnt := make([]float64, np+1), make([]int, np+1)
	for k := range np {
		a0 := a[k]
		if k > 0 {
			a0 += m.tu.edgeTailSkip
		}
		s, c, qs, qc := 0.0, 0, 0.0, 0
		if b[k]-a[k] >= m.tu.edgeMinBed {
			for i := a[k]; i < b[k]; i++ {
				p := m.pw(i)
				s += p
				if i >= a0 {
					qs += p
				}
			}
			c = b[k] - a[k]
			if b[k]-a0 >= m.tu.edgeMinBed {
				qc = b[k] - a0
			} else {
				qs = 0
			}
		}
		cum[k+1], cnt[k+1] = cum[k]+s, cnt[k]+c
		qcum[k+1], qcnt[k+1] = qcum[k]+qs, qcnt[k]+qc
	}
	// means returns the mean power (dB) of the pause frames within win
	// frames of each pause, and whether there are enough of them.
	means := func(win int, cum []float64, cnt []int) ([]float64, []bool) {
		mean, ok := make([]float64, np), make([]bool, np)
		pauseWindows(a, b, win, func(k, lo, hi int) {
			if c := cnt[hi] - cnt[lo]; c >= m.tu.edgeMinBed {
				mean[k], ok[k] = 10*math.Log10(max((cum[hi]-cum[lo])/float64(c), 1e-12)), true
			}
		})
		return mean, ok
	}
	bed, ok = means(m.tu.edgeBedWin, cum, cnt)
	if m.tu.edgeTailSkip > 0 {
		// A quiet bed is measured without the frames after the islands,
		// where the words' decays and a room's tail lie.
		quiet, qok := means(m.tu.edgeBedWin, qcum, qcnt)
		for k := range np {
			if ok[k] && qok[k] && m.speech-quiet[k] >= m.tu.edgeQuietBedDb && bed[k]-quiet[k] >= m.tu.edgeTailRiseDb {
				bed[k] = quiet[k]
			}
		}
	}
	wide = bed
	if m.tu.edgeWideWin > m.tu.edgeBedWin {
		wide, _ = means(m.tu.edgeWideWin, cum, cnt)
	}
	// Isolated bursts of each pause against its own bed, then summed over
	// the same windows.
	clk := make([]int, np+1)
	for k := range np {
		c := 0
		if ok[k] && b[k]-a[k] >= m.tu.edgeMinBed {
			thr := bed[k] + m.tu.edgeBurstDb
			for i := a[k]; i < b[k]; i++ {
				if m.raw(i) >= thr && (i == 0 || m.raw(i-1) < thr) && (i+1 >= m.n || m.raw(i+1) < thr) {
					c++
				}
			}
		}
		clk[k+1] = clk[k] + c
	}
	rate = make([]float64, np)
	pauseWindows(a, b, m.tu.edgeBedWin, func(k, lo, hi int) {
		if c := cnt[hi] - cnt[lo]; c >= m.tu.edgeMinBed {
			rate[k] = 100 * float64(clk[hi]-clk[lo]) / float64(c)
		}
	})
	return bed, wide, ok, rate
}

// anchor returns the frame an edge of the raw island x starts from,
// walking in direction d (+1 from its start, -1 from its end): its
// outermost frame at r's burst level that is no click (in a crackling
// bed) and, within tu.edgeVoiceSkip frames of the outermost such frame,
// neither like the bed in its spectrum (bedLike) nor unvoiced; the raw
// edge when there is none.
func (m *maker) anchor(x island, d int, r edgeRule, clicky bool) int {
	first, last := x.rs, x.re-1
	if d < 0 {
		first, last = last, first
	}
	ok := func(a int) bool { return m.raw(a) >= r.burst && !(clicky && m.click(a, r)) }
	a := first
	for a != last+d && !ok(a) {
		a += d
	}
	if a == last+d {
		return first
	}
	if r.bandy {
		// Past frames whose spectrum is the bed's, within as far as past
		// unvoiced ones.
		for b, k := a, 0; b != last+d && k <= m.tu.edgeVoiceSkip; b, k = b+d, k+1 {
			if ok(b) && !m.bedLike(b) {
				a = b
				break
			}
		}
	}
	if r.unvoiced {
		// The first frame past the unvoiced ones lies at or after a.
		for b, k := a, 0; b != last+d && k <= m.tu.edgeVoiceSkip; b, k = b+d, k+1 {
			if ok(b) && !m.unvoiced(b) {
				return b
			}
		}
	}
	return a
}

// closedAnchor moves the anchor a of an island's end inward (towards
// first) past each gap under r's burst level that holds no closure (no
// frame under r.closure), or that is longer than tu.edgeTailGap frames
// (the bridge's reach), to the burst before it: a burst after speech
// across no closure, or further from it than a release, is the bed
// standing out after the word (a crackle, a note), not a stop's release.
func (m *maker) closedAnchor(a, first int, r edgeRule) int {
	for {
		b, closed := a-1, false
		for ; b >= first && m.raw(b) < r.burst; b-- {
			closed = closed || m.raw(b) < r.closure
		}
		if b < first || b == a-1 || closed && a-b-1 <= m.tu.edgeTailGap {
			return a
		}
		a = b
	}
}

// apartAnchor moves the anchor a of an island's start inward (towards
// last) past each run of frames at r's burst level that stands apart from
// the rest: more than tu.edgeOnsetGap frames under the burst level follow
// it (more than the onset bridges, see follow), and it peaks more than the
// faint-voice depth (m.faint; 0: off) under the speech level.
// Such a run is a sound of its own just before the word (a note of a music
// bed, a faint other voice), not the word's onset: follow would not have
// reached it from the word, and a sound that faint counts as pause where
// the preset asks for it.
func (m *maker) apartAnchor(a, last int, r edgeRule) int {
	if m.faint <= 0 {
		return a
	}
	for {
		peak, b := math.Inf(-1), a
		for ; b <= last && m.raw(b) >= r.burst; b++ {
			peak = max(peak, m.raw(b))
		}
		g := b
		for g <= last && m.raw(g) < r.burst {
			g++
		}
		if g > last || g-b <= m.tu.edgeOnsetGap || peak > m.speech-m.faint || m.voicedRun(a, b) {
			return a
		}
		a = g
	}
}

// voicedRun reports whether frames [a, b) hold m.keepVoiced (over 0)
// consecutive frames of voice (dsp.NonSpeech's keepVoiced): a quieter
// voice, which the faint-voice rule spares with crosstalk kept.
func (m *maker) voicedRun(a, b int) bool {
	if m.keepVoiced <= 0 || len(m.env.Voice) < b {
		return false
	}
	run := 0
	for _, v := range m.env.Voice[a:b] {
		if v != dsp.VoiceFloor && (v == dsp.VoiceLoud || dsp.VoiceScore(v) >= 0.5) {
			if run++; run >= m.keepVoiced {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// refine places each island's edges by the audible rule, measured against
// the bed of the pause they face (bedsClicks): the corpora count speech as
// audible where it stands 6 dB over the bed, so the mix (speech and bed)
// 7 dB over it. From the anchor, the outermost frame of the raw island
// whose own level is tu.edgeBurstDb over the bed (or the raw edge when
// none is), the edge moves outward over the frames of the speech's decay
// (or soft onset): 20 ms (this frame and the one before it on the way
// out) at tu.edgeStrictDb over the bed and the frame itself over the bed,
// then at most tu.edgeSoftMax frames at tu.edgeDecayDb (the synthetic
// corpus's abrupt utterance ends; a bed within tu.edgeStrictMinDb of the
// speech level is followed at tu.edgeDecayDb throughout); and it
// bridges up to tu.edgeTailGap frames after the speech (tu.edgeOnsetGap
// before it) to a burst tu.edgeBurstDb over the bed (a final stop's
// release after its closure: after the speech, only across a frame under
// the bed + tu.edgeClosureDb; the end's anchor moves in likewise, see
// closedAnchor). In a crackling bed (isolated bursts in
// more than tu.edgeClickRate percent of its frames) clicks (click) neither
// anchor an edge nor are bridged to; nor are frames the voice network
// finds clearly not speech (unvoiced; an anchor passes them only within
// tu.edgeVoiceSkip frames, see anchor). It stays clear of the next raw island and
// of the audible bound. An edge may so move in (over bed the level found
// loud enough) or out (over a release the smoothed level hid); where it
// moves in, the raw island shrinks with it, so that minSilence measures
// the pause between the new edges.
func (m *maker) refine(is []island) []island {
	if len(is) == 0 {
		return is
	}
	bed, wide, okb, clk := m.bedsClicks(is)
	if fg := m.foreground(is, bed, okb); len(fg) > 0 {
		is = mergeIslands(is, fg)
		bed, wide, okb, clk = spreadBeds(is, bed, wide, okb, clk)
	}
	m.bandBed = m.bandBeds(is)
	voiced := len(m.env.Voice) == m.n && m.voicedShare() >= m.tu.edgeVoicedShare
	dropUnvoiced := m.tu.edgeVoiceIsland > 0 && m.tu.edgeVoiceStop > 0 && voiced
	out := make([]island, 0, len(is))
	for k, x := range is {
		if dropUnvoiced && x.re-x.rs <= m.tu.edgeVoiceIsland && m.allUnvoiced(x.rs, x.re) {
			continue
		}
		lo, hi := -1, m.n
		if k > 0 {
			lo = is[k-1].re - 1
		}
		if k+1 < len(is) {
			hi = is[k+1].rs
		}
		// A short raw island with no frame at the burst level (by the
		// rules of the pauses on both sides, each bed no higher than the
		// level right around the island: aroundLevel) is bed standing out
		// of the floor, no audible speech: next to a crackling bed (but
		// clicks), or in an input the network hears speech in (another
		// voice's syllable; in music, a quiet passage is the programme).
		if x.re-x.rs <= m.tu.edgeQuietIsland && okb[k] && okb[k+1] {
			clicky := clk[k] > m.tu.edgeClickRate || clk[k+1] > m.tu.edgeClickRate
			if clicky || voiced {
				l, near := m.aroundLevel(x, lo+1, hi)
				if m.inaudible(x, m.aroundRule(l, near, bed[k], wide[k]), clicky) &&
					m.inaudible(x, m.aroundRule(l, near, bed[k+1], wide[k+1]), clicky) {
					continue
				}
			}
		}
		if okb[k+1] {
			r := m.edgeRule(bed[k+1], wide[k+1])
			clicky := clk[k+1] > m.tu.edgeClickRate
			a := m.closedAnchor(m.anchor(x, -1, r, clicky), x.rs, r)
			x.e = m.follow(a, 1, hi, m.tu.edgeTailGap, m.tu.edgeMaxTail, r, clicky) + 1
		}
		if okb[k] {
			r := m.edgeRule(bed[k], wide[k])
			clicky := clk[k] > m.tu.edgeClickRate
			a := m.apartAnchor(m.anchor(x, 1, r, clicky), x.re-1, r)
			x.s = m.follow(a, -1, lo, m.tu.edgeOnsetGap, m.tu.edgeMaxOnset, r, clicky)
		}
		if x.e <= x.s {
			x.s, x.e = x.rs, x.re
		}
		// Where the edges moved in, the pause between them is wider than
		// the raw island said: pauses are measured between the narrower.
		x.rs, x.re = max(x.rs, x.s), min(x.re, x.e)
		if n := len(out); n > 0 && x.s <= out[n-1].e {
			out[n-1].e = max(out[n-1].e, x.e)
			out[n-1].re, out[n-1].he = x.re, x.he
			out[n-1].fg = out[n-1].fg && x.fg
			continue
		}
		out = append(out, x)
	}
	return out
}

// aroundRule is the edge rule of a pause of bed bed and wide bed wide for
// the test of a short island whose surroundings' level is around (when
// known: aroundLevel): the bed is lowered to that level where it lies
// under it, and the wide bed with it. A pause's bed is its mean level,
// and where the bed rises over a pause (a receiver's gain control bringing
// the static up) that mean stands over the stretch next to a word: a quiet
// word there must not be taken for the bed.
func (m *maker) aroundRule(around float64, known bool, bed, wide float64) edgeRule {
	if known && around < bed {
		wide, bed = wide-(bed-around), around
	}
	return m.edgeRule(bed, wide)
}

// aroundLevel returns the mean level of the frames within tu.edgeQuietNear
// frames of the raw island x on either side, less tu.edgeGuard next to it,
// between prev (the previous island's end) and next (the next one's
// start), and whether there are tu.edgeMinBed of them.
func (m *maker) aroundLevel(x island, prev, next int) (float64, bool) {
	s, c := 0.0, 0
	for i := max(prev, x.rs-m.tu.edgeGuard-m.tu.edgeQuietNear); i < x.rs-m.tu.edgeGuard; i++ {
		s += m.pw(i)
		c++
	}
	for i := x.re + m.tu.edgeGuard; i < min(next, x.re+m.tu.edgeGuard+m.tu.edgeQuietNear); i++ {
		s += m.pw(i)
		c++
	}
	if c < m.tu.edgeMinBed {
		return 0, false
	}
	return 10 * math.Log10(max(s/float64(c), 1e-12)), true
}

// inaudible reports whether no frame of the raw island x stands at r's
// burst level (but clicks, when clicky).
func (m *maker) inaudible(x island, r edgeRule, clicky bool) bool {
	for j := x.rs; j < x.re; j++ {
		if m.raw(j) >= r.burst && !(clicky && m.click(j, r)) {
			return false
		}
	}
	return true
}

// pauseBounds returns the frames [a, b) of pause k around the islands is
// (k: the pause before island k, len(is): after the last).
func (m *maker) pauseBounds(is []island, k int) (int, int) {
	a, b := 0, m.n
	if k > 0 {
		a = is[k-1].e
	}
	if k < len(is) {
		b = is[k].s
	}
	return a, b
}

// guardedPauses returns the frames [a[k], b[k]) of each pause k around is
// (pauseBounds) less tu.edgeGuard frames at both ends: what beds measure.
func (m *maker) guardedPauses(is []island) (a, b []int) {
	a, b = make([]int, len(is)+1), make([]int, len(is)+1)
	for k := range a {
		a[k], b[k] = m.pauseBounds(is, k)
		a[k], b[k] = a[k]+m.tu.edgeGuard, b[k]-m.tu.edgeGuard
	}
	return a, b
}

// pauseWindows calls f(k, lo, hi) for each pause k of the guarded bounds
// a, b (guardedPauses) with the pauses [lo, hi) that lie within win frames
// of it.
func pauseWindows(a, b []int, win int, f func(k, lo, hi int)) {
	lo, hi := 0, 0
	for k := range a {
		for lo < k && b[lo] < a[k]-win {
			lo++
		}
		for hi < len(a) && a[hi] <= b[k]+win {
			hi++
		}
		f(k, lo, hi)
	}
}

// foreground returns the foreground sounds of the pauses around is as
// islands (tu.fgBedDb; automatic threshold with a voice classification
// only): a sound the speaker makes next to speech (a breath, a mouth
// noise) that the classification put in the background, standing out of
// a steady bed. A run of at least tu.fgMin frames in the background whose
// 50 ms level stands tu.fgBedDb over the pause's steady bed (the mean
// power of its bed window's frames under its bed + tu.fgRejectDb: the bed
// without the sounds in it) and within tu.fgSpeechDb of the speech level
// is kept when it lies within tu.fgNear frames of an island and none of
// its window's pauses holds such a run further from the islands (a bed
// that makes such sounds by itself: a music bed's notes, vinyl's pops,
// another voice); no frame of it is a click (a crest of
// tu.clickCrestDb), not all its frames unvoiced (a pop or a note the
// network finds clearly not speech), and tu.fgRawMin of its own 10 ms
// levels stand tu.fgRawDb over the steady bed (not one impulse the 50 ms
// level smears: a pop), or one fewer where the network scores a frame of
// it tu.fgHeardMin or more (heard as a little like voice: pops score
// less).
func (m *maker) foreground(is []island, bed []float64, ok []bool) []island {
	tu := m.tu
	if tu.fgBedDb <= 0 || m.lv0 == nil || m.bg == nil {
		return nil
	}
	np := len(is) + 1
	// Per pause, the power and number of its frames under its bed +
	// fgRejectDb, summed over the windows.
	cum := make([]float64, np+1)
	cnt := make([]int, np+1)
	ga, gb := m.guardedPauses(is)
	for k := range np {
		a, b := ga[k], gb[k]
		s, c := 0.0, 0
		if ok[k] && b-a >= tu.edgeMinBed {
			for i := a; i < b; i++ {
				if m.raw(i) < bed[k]+tu.fgRejectDb {
					s += m.pw(i)
					c++
				}
			}
		}
		cum[k+1], cnt[k+1] = cum[k]+s, cnt[k]+c
	}
	steady := make([]float64, np)
	pauseWindows(ga, gb, tu.edgeBedWin, func(k, lo, hi int) {
		steady[k] = bed[k]
		if c := cnt[hi] - cnt[lo]; c >= tu.edgeMinBed {
			steady[k] = 10 * math.Log10(max((cum[hi]-cum[lo])/float64(c), 1e-12))
		}
	})
	type run struct{ k, i0, i1 int }
	var near []run
	far := make([]int, np+1) // runs far from the islands, cumulated over the pauses
	for k := range np {
		far[k+1] = far[k]
		if !ok[k] {
			continue
		}
		a, b := m.pauseBounds(is, k)
		thr := max(steady[k]+tu.fgBedDb, m.speech-tu.fgSpeechDb)
		in := func(j int) bool { return m.bg[j] && float64(m.lv0[j]) >= thr }
		for i := a; i < b; {
			i0 := i
			for i < b && in(i) {
				i++
			}
			if i == i0 {
				i++
				continue
			}
			// Runs touching an island are its edges (refine).
			if i-i0 < tu.fgMin || i0 == a && k > 0 || i == b && k < len(is) {
				continue
			}
			if (k == 0 || i0-a > tu.fgNear) && (k == len(is) || b-i > tu.fgNear) {
				far[k+1]++
			} else {
				near = append(near, run{k, i0, i})
			}
		}
	}
	lone := make([]bool, np)
	pauseWindows(ga, gb, tu.edgeBedWin, func(k, lo, hi int) { lone[k] = far[hi] == far[lo] })
	var out []island
	for _, r := range near {
		if lone[r.k] && m.foregroundRun(r.i0, r.i1, steady[r.k]) {
			out = append(out, island{rs: r.i0, re: r.i1, s: r.i0, e: r.i1, hs: r.i0, he: r.i1, fg: true})
		}
	}
	return out
}

// foregroundRun reports whether the frames [i0, i1) are a sound of the
// speaker's over the steady bed level bed (see foreground): no frame is a
// click, not all are unvoiced, tu.fgRawMin stand tu.fgRawDb over the bed,
// or one fewer with a frame the network scores tu.fgHeardMin or more.
func (m *maker) foregroundRun(i0, i1 int, bed float64) bool {
	if m.allUnvoiced(i0, i1) {
		return false
	}
	over, heard := 0, false
	for j := i0; j < i1; j++ {
		if m.crest(j) {
			return false
		}
		if m.raw(j) >= bed+m.tu.fgRawDb {
			over++
		}
		if len(m.env.Voice) == m.n {
			v := m.env.Voice[j]
			heard = heard || classified(v) && dsp.VoiceScore(v) >= m.tu.fgHeardMin
		}
	}
	return over >= m.tu.fgRawMin || heard && over >= m.tu.fgRawMin-1
}

// spreadBeds returns the beds, wide beds, flags and burst rates of the
// pauses between the islands is, from those measured per pause before
// is's foreground islands were merged in: a pause a foreground sound
// splits keeps its bed on both sides. The sound is no edge of the bed's
// measurement: measured again, the halves' frames next to it fall out
// of the bed (guardedPauses) and halves shorter than a bed's minimum
// drop out of it altogether, so one kept breath moved the edges of
// pauses up to 10 s away.
func spreadBeds(is []island, bed, wide []float64, ok []bool, rate []float64) ([]float64, []float64, []bool, []float64) {
	np := len(is) + 1
	b, w, o, r := make([]float64, np), make([]float64, np), make([]bool, np), make([]float64, np)
	old := 0
	for k := range np {
		b[k], w[k], o[k], r[k] = bed[old], wide[old], ok[old], rate[old]
		if k < len(is) && !is[k].fg {
			old++
		}
	}
	return b, w, o, r
}

// mergeIslands returns the islands of a and b (each sorted, disjoint from
// each other) in order.
func mergeIslands(a, b []island) []island {
	out := make([]island, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i].s < b[j].s {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// bandBeds returns each band's bed level: the tu.bandBedQ quantile of the
// band's level over the measured frames (Envelope.BandFrames) of the
// pauses around is (guardedPauses); nil where the rule is off, fewer than
// tu.bandMinFrames frames are measured, or the bed is not one whose
// spectrum tells it from speech better than its level: its bands' levels
// spread less than tu.bandSpreadDb (from their median to that quantile,
// averaged: a steady noise or hum), or more than tu.bandVoicedMax of the
// measured frames are speech to the network (another voice).
func (m *maker) bandBeds(is []island) []float64 {
	const nb = dsp.BandCount
	env := m.env
	if m.tu.bandExcessDb <= 0 || len(env.Bands) != len(env.BandFrames)*nb || len(env.Voice) != m.n {
		return nil
	}
	var hist [nb][256]int
	cnt, voiced := 0, 0
	a, b := m.guardedPauses(is)
	k := 0 // the pause of the frame
	for x, f := range env.BandFrames {
		i := int(f)
		for k < len(a) && b[k] <= i {
			k++
		}
		if k == len(a) {
			break
		}
		if i < a[k] || i >= m.n {
			continue
		}
		cnt++
		for j, c := range env.Bands[x*nb : (x+1)*nb] {
			hist[j][c]++
		}
		if v := env.Voice[i]; v == dsp.VoiceLoud || classified(v) && dsp.VoiceScore(v) >= voicedScore {
			voiced++
		}
	}
	if cnt < m.tu.bandMinFrames || float64(voiced) > m.tu.bandVoicedMax*float64(cnt) {
		return nil
	}
	quant := func(j int, q float64) float64 {
		want := max(int(math.Ceil(q*float64(cnt))), 1)
		c, acc := 0, 0
		for ; c < 255; c++ {
			if acc += hist[j][c]; acc >= want {
				break
			}
		}
		return dsp.BandDb(uint8(max(c, 1)))
	}
	bed := make([]float64, nb)
	spread := 0.0
	for j := range bed {
		bed[j] = quant(j, m.tu.bandBedQ)
		spread += bed[j] - quant(j, 0.5)
	}
	if spread < m.tu.bandSpreadDb*nb {
		return nil
	}
	return bed
}

// bedLike reports whether frame j's spectrum is the bed's: measured, and
// its bands stand in all (summed) under tu.bandExcessDb over their bed
// levels (bandBeds).
func (m *maker) bedLike(j int) bool {
	if m.bandBed == nil {
		return false
	}
	f := m.env.FrameBands(j)
	if f == nil {
		return false
	}
	ex := 0.0
	for k, c := range f {
		ex += max(0, dsp.BandDb(c)-m.bandBed[k])
	}
	return ex < m.tu.bandExcessDb
}
