package plan

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/internal/testtier"
)

var realmixVerbose = flag.Bool("realmix.v", false, "log every case of TestRealMix")

var (
	realmixOffsets = flag.Bool("realmix.offsets", false, "TestOffsetMix: plan every case of TestRealMix with a DC offset (about 5 minutes)")
	realmixDC      = flag.Float64("realmix.dc", 0.01, "TestOffsetMix: the offset")
)
var realmixRates = flag.Bool("realmix.rates", false, "TestRateMix: plan every case of TestRealMix and the phone cases at 8 and 16 kHz (about 6 minutes)")

// mixRow is one case's result.
type mixRow struct {
	c     corpus.MixCase
	s     corpus.MixScore
	thr   float64
	cuts  int
	notes string
}

// runRealMix analyses and plans every case of the real-speech set with the
// podcast preset and scores it.
func runRealMix(t *testing.T, cases []corpus.MixCase) []mixRow {
	t.Helper()
	m := corpus.NewMixer(realdata.AllRecordings(t)...)
	pr := DefaultPreset()
	var rows []mixRow
	for _, c := range cases {
		a, tr := analyseMix(t, m, c)
		rows = append(rows, planMix(c, a, tr, pr.Params))
	}
	return rows
}

// analyseMix mixes case c and analyses the mix.
func analyseMix(t *testing.T, m *corpus.Mixer, c corpus.MixCase) (*dsp.Analysis, corpus.MixTruth) {
	t.Helper()
	mx, err := m.Mix(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	a, err := dsp.Analyze(context.Background(), &sliceSource{mx.Rate, mx.Samples}, dsp.Info{Name: c.Name, Frames: int64(len(mx.Samples))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a, mx.Truth
}

// mixParams returns the params case c is planned with: p, with crosstalk
// cut where the bed is another speaker's bleed (the crosstalk and phone
// beds: one person's microphone, which the truth counts the other voice
// as pause on, so a user would ask for it).
func mixParams(c corpus.MixCase, p Params) Params {
	if c.Bed == corpus.BedCrosstalk || c.Bed == corpus.BedPhone {
		p.Crosstalk = CrosstalkCut
	}
	return p
}

// planMix plans analysis a of case c with params p (mixParams) and scores
// the plan against the truth tr.
func planMix(c corpus.MixCase, a *dsp.Analysis, tr corpus.MixTruth, p Params) mixRow {
	p = mixParams(c, p)
	pl, err := Make(a, p, nil)
	row := mixRow{c: c}
	if err != nil {
		row.notes = err.Error()
	}
	var cuts []corpus.Interval
	if pl != nil {
		for _, k := range pl.Cuts {
			cuts = append(cuts, corpus.Interval{Start: k.Start, End: k.End})
		}
		row.thr, row.cuts = pl.ThresholdDb, len(pl.Cuts)
	}
	row.s = corpus.ScoreMix(tr, cuts, p.MinSilenceSec, p.KeepSilenceMs)
	return row
}

// mixTable summarises rows per bed and SNR: removed % of the removable
// pause time (all speakers together), worst clipped ms and worst boundary
// P95 of a case.
func mixTable(rows []mixRow) string {
	type key struct {
		bed corpus.Bed
		snr float64
	}
	type agg struct {
		rem, cut, clip, p95, minPct float64
		n                           int
		edges                       []float64
	}
	m := map[key]*agg{}
	var keys []key
	for _, r := range rows {
		k := key{r.c.Bed, r.c.SNRDb}
		a := m[k]
		if a == nil {
			a = &agg{minPct: 100}
			m[k] = a
			keys = append(keys, k)
		}
		a.rem += r.s.RemovableSec
		a.cut += r.s.CutSec
		a.clip = max(a.clip, r.s.ClippedMs)
		a.p95 = max(a.p95, r.s.BoundaryP95)
		a.minPct = min(a.minPct, r.s.RemovedPct)
		for _, e := range r.s.Edges {
			a.edges = append(a.edges, math.Abs(e))
		}
		a.n++
	}
	order := map[corpus.Bed]int{}
	for i, b := range corpus.MixBeds() {
		order[b] = i
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].bed != keys[j].bed {
			return order[keys[i].bed] < order[keys[j].bed]
		}
		return keys[i].snr < keys[j].snr
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %4s %9s %8s %9s %9s %9s\n", "bed", "snr", "removed%", "worst%", "clip ms", "P95 ms", "all P95")
	for _, k := range keys {
		a := m[k]
		pct := 100.0
		if a.rem > 0 {
			pct = 100 * a.cut / a.rem
		}
		fmt.Fprintf(&b, "%-10s %4g %9.1f %8.1f %9.1f %9.1f %9.1f\n", k.bed, k.snr, pct, a.minPct, a.clip, a.p95, corpus.P95(a.edges))
	}
	return b.String()
}

// mixFloor is the removal (%) each bed reaches at each ratio, all speakers
// together, less 2 points (rounded down): the regression floor the test
// asserts (where it lies over the bar, the gain is locked too).
// Measured (issue 14, round 10: music 10/15/20 dB raised after the
// spectrum told a music bed's notes from a word's edges (bedLike in
// make.go); round 9: static 10/15 dB and radio 10 dB raised
// after crackles of a 13 dB crest were clicks; round 8: vinyl 10/15 dB, music 10/25 dB, static
// 10/20 dB and crosstalk 20 dB raised after the edge levels rose with the
// wide bed, short islands with nothing at the burst level were dropped,
// beds crackled at 0.5 % and the end's anchor moved in past gaps longer
// than the bridge's reach; round 7: static at 10 dB raised after short
// islands of clicks over a crackling bed were dropped; round 6: vinyl 10/20 dB, pink 20 dB, music
// 10/15/20 dB and crosstalk 15 dB raised after short islands the voice
// network finds clearly not speech throughout were dropped and bursts
// after speech bridged to only across a closure; round 5: vinyl 10/25 dB and music 10 dB raised
// after edges stopped at frames the voice network finds clearly not
// speech; round 4) after the edges followed decays at the
// truth's 7 dB (one frame at 5 dB) and ignored the clicks of crackling
// beds; round 3 had brought the faint-voice rule's comparisons (seeds
// within the depth less 3 dB of the speech level, stretches peaking within
// the depth less 5 dB) and stopped speech growing over another voice's
// rise and over frames the network finds clearly not speech.
//
// Since a faint voice is speech unless crosstalk is cut (issue 42: the
// faint-voice rule spares a stretch the network or level hears as a voice
// for 50 ms, keepVoicedFrames), vinyl at 25 dB went 96.4 -> 85.7 % and
// music at 20, 25 and 35 dB 96.8 -> 94.9, 96.9 -> 90.9 and 97.6 -> 95.5 %
// (a crackle's or a note's 50 ms over its floor, which the rule took, is
// now kept), and the cases with a boundary P95 over 40 ms went 10 -> 23
// (0 -> 13 at 15 dB or more). The floors are those figures.
var mixFloor = map[corpus.Bed]map[float64]float64{
	corpus.BedVinyl:     {10: 84, 15: 94, 20: 95, 25: 85, 35: 97},
	corpus.BedPink:      {10: 94, 15: 96, 20: 97, 25: 97, 35: 96},
	corpus.BedHum:       {10: 93, 15: 96, 20: 96, 25: 97, 35: 96},
	corpus.BedMusic:     {10: 85, 15: 96, 20: 94, 25: 90, 35: 95},
	corpus.BedStatic:    {10: 94, 15: 97, 20: 97, 25: 97, 35: 97},
	corpus.BedCrosstalk: {15: 95, 20: 96, 25: 96},
	// The radio cases (TestRadioMix), measured when their speech became
	// band-limited (round 9).
	// Radio at 35 dB: 93.4 % since a faint voice is speech (issue 42).
	corpus.BedRadio: {10: 93, 15: 97, 20: 97, 25: 97, 35: 93},
	// The phone cases (TestPhoneMix), measured when they were added.
	corpus.BedPhone: {15: 88, 20: 96, 25: 96},
	// The typing cases (TestTypingMix), measured when sounds standing
	// alone over a quiet bed went to the voice network (dsp's quietLoud):
	// 34.9, 56.8, 73.7, 95.1 and 97.8 %; 26.3, 45.2, 66.7, 93.9 and 96.0
	// before. Since a faint voice is speech unless crosstalk is cut (issue
	// 42), a keystroke run of 50 ms loud over the quiet desk counts as a
	// voice: 35.7, 37.4, 43.4 and 72.9 % at 15-35 dB.
	corpus.BedTyping: {10: 30, 15: 35, 20: 37, 25: 43, 35: 72},
}

// Clipping: the bar is 30 ms per case; mixMaxClipMs is what any
// case may clip, mixMaxClipCases how many may clip more than 30 ms: 1
// since foreground sounds over a steady bed are kept (issue 14, round 8,
// foreground in make.go), 8 before, all picovoice's at 20-25 dB (60-120
// ms each, 680 ms in all): its recording ends in a 60-80 ms low-frequency
// burst 260 ms after the last word, 12.5-14.5 dB under the speech level,
// which the voice network scores as no speech (0.01-0.34) or the
// faint-voice rule takes (loud by level at 25 dB), and the weak end of its
// last word (0-40 ms of each), which the cut after the burst no longer
// reaches once the burst is kept. The truth counts the burst (it is
// audible); the goal line (no cut holds audio within 20 dB of the
// speech level) asks for it to stay too. Then 1 was left:
// picovoice-vinyl-20 (80 ms), where only 2 of the burst's 10 ms frames
// stand 7 dB over the steady bed (at 6 dB it is kept, but so are two voiced
// sounds of allison's over vinyl at 15 dB that the truth does not count,
// and its boundary P95 goes over 40 ms). Since 2 such frames suffice where
// the network scores a frame of the sound 0.12 or more (the burst: 0.17,
// vinyl's pops under 0.09), no case clips.
// Boundary P95 (the bar, 40 ms, is for 15 dB and over):
// mixMaxP95BarCases cases at 15 dB or more may exceed it (none of 138
// since the spectrum rule (bedLike in make.go): allison over music at 15
// and 20 dB, 60 -> 20 and 60 -> 40 ms; 2 before, 3
// before a click's crest went from 14 to 13 dB (librispeech over static
// at 25 dB bridged to a crackle of 13.6 dB after a word), 4
// before a start's anchor moved in past a faint sound standing apart
// from the word (apartAnchor: allison over music at 25 dB kept a note 180
// ms before a word as its onset); 5 before the truth's click rule
// measured its 100 ms gap with a tolerance (jfk at 15 dB ended in a 20 ms tongue click exactly 100 ms after its
// word, counted as speech: the edge was 100 ms early by that truth); 8
// before round 8's rules (the edge levels rise with the wide bed, short
// islands with nothing at the burst level are dropped, beds crackle at
// 0.5 %, the end's anchor is a release only within the bridge's reach), 9
// before bursts after speech needed a closure, 10 before short unvoiced
// islands were dropped, 11 before edges stopped at
// frames the network finds clearly not speech, 19 before the edges' 7 dB
// decay and click rules, 32 before round 3), and mixMaxP95Cases cases at
// any ratio (10 of 168, all at 10 dB; were 12, 13, 16, 17, 18, 20, 22,
// 23, 24, 25, 34 and 47). What was left at 15 dB or more until the
// spectrum rule: allison over music at 15-20 dB (a note just before a
// word's onset or after its end, scored as speech by the network).
const (
	mixMaxClipMs      = 30
	mixMaxClipCases   = 0
	mixMaxP95Cases    = 23
	mixMaxP95BarCases = 13
)

// The radio cases' floors (TestRadioMix). The speech passes a radio
// link's 300-3400 Hz band since round 9; over the full band no case
// clipped more than 30 ms and the boundary P95 was over 40 ms in 9 cases,
// all at 15 dB or more. Band-limited, 5 cases clip more than 30 ms:
//   - jfk at 35 dB (625 ms; radioClipKnown): the truth's, not the plan's.
//     Without its rumble the recording's own floor (the 10th percentile of
//     its 10 ms levels) falls 6 dB, speech 2 dB, and the background
//     between the words (-38 to -44 dBFS, which the voice network scores
//     0-0.07) stands 6 dB over it: the truth counts it as speech;
//   - picovoice at 20 and 25 dB (60, 130 ms): its weak last word, 15 dB
//     under the speech level, which the faint-voice rule takes;
//   - allison at 20 dB, librispeech at 25 dB (50-55 ms): a 40-60 ms sound
//     30-160 ms after a word. Allison at 35 dB clipped 40 ms too until a
//     quiet bed was measured without the 200 ms after each word.
//
// Before a quiet word inside the speaker's phrase was kept from the
// faint-voice rule (dsp's fainterStretches), librivox at 15 and 20 dB lost
// 190 and 300 ms too. The boundary P95 is over 40 ms in 6 cases, 5 at 15
// dB or more (7 and 6 before the faint-voice rule followed the speaker's
// level: allison at 35 dB, 70 -> 30 ms).
const (
	radioMaxClipMs      = 130
	radioMaxClipCases   = 5
	radioMaxP95Cases    = 7
	radioMaxP95BarCases = 5
)

// radioClipKnown are the radio cases allowed to clip more than
// radioMaxClipMs, with their bound: cases where the truth, not the plan,
// is wrong (see above).
var radioClipKnown = map[string]float64{"jfk-radio-35": 625}

// The phone cases' floors (TestPhoneMix), measured when they were added:
// one case clipped more than 30 ms (picovoice at 25 dB, 50 ms: its weak
// last word, which the faint-voice rule takes; none since a quiet bed is
// measured without the 200 ms after each word, and the edge after the
// word before reaches it), and the boundary P95 is over 40
// ms in 8 of the 18 (allison at 15-25 dB, librispeech at 15-25 dB, june
// and picovoice at 15 dB, 70-160 ms), and at 15 dB only 90 % of the
// removable pause time is cut (97.8 % over the full band): probably the
// other voice, narrowed with the speaker, nearer the faint-voice rule's
// limit (not checked case by case).
// Before a quiet word's run stopped at the faint-voice depth + 6 dB,
// librivox at 15-25 dB lost 60-345 ms.
const (
	// TestRateMix: how far cases at 8 or 16 kHz may plan from the same
	// signals at 48 kHz.
	rateMaxCutDiffPct = 1.0
	rateMaxClipDiffMs = 10.0
	rateMaxP95Cases   = 1
	// TestOffsetMix: how far cases with a DC offset may plan from the
	// same mixes without.
	offsetMaxCutDiffPct = 1.0
	offsetMaxClipDiffMs = 10.0
	offsetMaxP95Cases   = 1
	offsetMaxClipMs     = 30
	offsetMaxClipCases  = 0
	phoneMaxClipMs      = 30
	phoneMaxClipCases   = 0
	phoneMaxP95Cases    = 8
	phoneMaxP95BarCases = 8
	// The typing cases (TestTypingMix): no case clips, and 15 have a
	// boundary P95 over 40 ms, 11 of them at 15 dB or more (12 and 10
	// before quietLoud, with fewer pauses cut).
	typingMaxClipMs      = 30
	typingMaxClipCases   = 0
	typingMaxP95Cases    = 20
	typingMaxP95BarCases = 17
)

// The drift cases' floors (TestDriftMix), measured when they were added
// with the faint-voice rule following the speaker's level (dsp's
// trackSpeechLevel and speakerLevel). Against the whole input's speech
// level, 14 of the 48 cases clipped more than 30 ms (80 ms to 2 s: the
// quieter part's words taken for a fainter voice) and 13 had a boundary
// P95 over 40 ms. Left: allison over pink noise at 15 dB (50 ms); june over
// pink noise at 10 dB (80 ms, then 40 ms, which clipped with the
// faint-voice rule off too) keeps its short word since minSpeech spares the
// islands the network hears as speech. Crosstalk at 15 dB keeps more of the
// other voice (87 % of the removable pause time cut): by the recording's
// end the speaker has fallen 12 dB and the other voice stands some 9 dB
// under it, no longer the faint voice the rule removes.
var driftFloor = map[corpus.Bed]map[float64]float64{
	corpus.BedPink:      {10: 80, 15: 96, 20: 97, 25: 97, 35: 97},
	corpus.BedCrosstalk: {15: 84, 20: 96, 25: 96},
}

const (
	driftMaxClipMs      = 50
	driftMaxClipCases   = 1
	driftMaxP95Cases    = 5
	driftMaxP95BarCases = 3
)

// The turn cases' floors (TestTurnMix), measured when they were added
// with the faint-voice rule starting from the main speaker's own level
// (dsp's speakerLevel). Starting from the 95th percentile of all the
// levels, which falls 0.3-5 dB towards the other voice when it fills most
// of the recording, crosstalk at 15 dB had 87.1 % cut (picovoice 50 %,
// librivox 73 %: their 7 s of speech against the 20 s turn; 84.4 % once
// the level was tracked). Since the envelope leaves a DC offset out (dsp's
// offset.go), librivox over crosstalk at 20 dB has a boundary P95 of 0 ms
// (70 before): 4 cases over 40 ms.
var turnFloor = map[corpus.Bed]map[float64]float64{
	corpus.BedCrosstalk: {15: 94, 20: 97, 25: 97},
}

const (
	turnMaxClipMs      = 30
	turnMaxClipCases   = 0
	turnMaxP95Cases    = 4
	turnMaxP95BarCases = 4
)

// The room cases' floors (TestRoomMix), measured when they were added (no
// rule handles a room yet). Against the same cases dry, 8 cases clip more
// than 30 ms instead of 1 and 14 have a boundary P95 over 40 ms instead of
// 5 (10 at 15 dB or more instead of 0). The cut edges lie towards the
// speech more often (at 15 dB or more, 49 of 774 by over 40 ms, 11 of 757
// dry): into the room's tail after words, which the truth hears down to
// the bed + 6 dB. With 125 ms kept at each edge, the long recordings
// rarely clip; the short ones do (librivox, picovoice: short sounds in
// pauses, picovoice's final burst, made longer by the room). Since the
// foreground rule's speech-level bound went from 15 to 16 dB (plan's doc)
// the room keeps picovoice's burst: 3 cases clip, 13 have a boundary P95
// over 40 ms (9 at 15 dB or more); since minSpeech spares the islands the
// network hears as speech, 2 clip (librivox over vinyl at 10 dB keeps a
// short word: 130 -> 0 ms, over pink noise 230 -> 150 ms). Since a quiet
// bed (see the plan package doc) is measured without the 200 ms after
// each word, where the room's tail lies, 11 have a boundary
// P95 over 40 ms (7 at 15 dB or more): allison over pink noise and over
// vinyl at 35 dB, 60 -> 20 and 30 ms. Since the envelope leaves a DC
// offset out (dsp's offset.go), librivox, whose recording carries one,
// no longer clips over pink noise at 10 dB (150 -> 0 ms): 1 case clips
// (picovoice over vinyl at 20 dB, 50 ms; 70 ms since the spectrum rule,
// bedLike in make.go: 20 ms more of the room's tail after its last word,
// at the bed's level, look like the bed).
//
// Vinyl at 25 dB: 82.1 % since a faint voice is speech (issue 42), and 14
// cases have a boundary P95 over 40 ms, 10 at 15 dB or more.
var roomFloor = map[corpus.Bed]map[float64]float64{
	corpus.BedVinyl:     {10: 85, 15: 94, 20: 95, 25: 82, 35: 97},
	corpus.BedPink:      {10: 95, 15: 96, 20: 97, 25: 97, 35: 97},
	corpus.BedCrosstalk: {15: 94, 20: 96, 25: 96},
}

const (
	roomMaxClipMs      = 70
	roomMaxClipCases   = 1
	roomMaxP95Cases    = 14
	roomMaxP95BarCases = 10
)

// The level cases' floors (TestLevelMix), by the mix's gain: the vinyl,
// music and crosstalk cases with the whole mix 20 dB quieter or 10 dB
// louder, measured when the voice network's input was brought to one level
// (dsp's netGain, decided voiceHoldFrames ahead). Heard as it came, 20 dB
// quieter: picovoice's crosstalk scored 0.03-0.09 instead of 0.67-0.95, no
// frame classified as speech, the classification was set aside and the
// crosstalk kept (picovoice-crosstalk-20 0 %, -25 35 %: crosstalk at 20 and
// 25 dB 95.0 and 96.4 % cut), and allison's music at 35 dB was kept (89 %);
// 10 dB louder: the music bed scored as speech before picovoice's first
// word (picovoice-music-20 69 %), music at 10 dB 80.4 %, and 14 cases had a
// boundary P95 over 40 ms (6 at 15 dB or more; then 10 and 3, and 9 and 2
// since the foreground rule's 16 dB bound: librispeech over vinyl at 20
// dB; 7 and 0 at both levels since the spectrum rule, bedLike in make.go,
// which raised music's floors at 10-20 dB). Every cell now lies within 0.7
// points of the same cases at their own level (TestRealMix) but music at
// 10 dB 10 dB louder: 85.2 % cut against 87.9 % (81.6 against 84.2 before
// the spectrum rule). One case clipped more than 30 ms at
// each level (picovoice over vinyl at 20 dB, 80 ms: its final burst) until
// the foreground rule took 2 raw levels with a score of 0.12; none since.
// Since a faint voice is speech unless crosstalk is cut (issue 42), as at
// the cases' own level: -20 dB: vinyl at 25 dB 87.5 %, music at 20 and 25
// dB 94.8 and 91.0 %; +10 dB: vinyl at 25 dB 85.8 %, music at 25 dB 89.7
// %; 19 cases with a boundary P95 over 40 ms at each gain, 12 at 15 dB or
// more.
var levelFloor = map[float64]map[corpus.Bed]map[float64]float64{
	-20: {
		corpus.BedVinyl:     {10: 83, 15: 94, 20: 95, 25: 87, 35: 97},
		corpus.BedMusic:     {10: 85, 15: 96, 20: 94, 25: 90, 35: 95},
		corpus.BedCrosstalk: {15: 95, 20: 96, 25: 96},
	},
	10: {
		corpus.BedVinyl:     {10: 83, 15: 94, 20: 94, 25: 85, 35: 97},
		corpus.BedMusic:     {10: 82, 15: 95, 20: 95, 25: 89, 35: 95},
		corpus.BedCrosstalk: {15: 95, 20: 96, 25: 96},
	},
}

var levelLimits = map[float64]mixLimits{
	-20: {maxClipMs: 30, maxClipCases: 0, maxP95Cases: 19, maxP95Bar: 12},
	10:  {maxClipMs: 30, maxClipCases: 0, maxP95Cases: 19, maxP95Bar: 12},
}

// TestRealMix plans the real-speech set (testdata/recordings speech mixed
// with real and generated beds, internal/corpus) with the podcast preset
// and checks each bed and ratio against the bars (at 15 dB and
// over: 90 % of the removable pause time cut, at 10 dB 70 %; clipping 30
// ms and boundary P95 40 ms per case): it fails under the regression
// floors (mixFloor, mixMaxClipMs, mixMaxClipCases, mixMaxP95Cases,
// mixMaxP95BarCases) and
// logs where the bars are not met.
func TestRealMix(t *testing.T) {
	testtier.Slow(t, "real-speech set: about a minute")
	checkMix(t, runRealMix(t, corpus.MixCases()), mixLimits{mixMaxClipMs, mixMaxClipCases, mixMaxP95Cases, mixMaxP95BarCases, nil, nil})
}

// mixLimits are a set's regression floors besides mixFloor.
type mixLimits struct {
	maxClipMs                            float64
	maxClipCases, maxP95Cases, maxP95Bar int
	clipKnown                            map[string]float64                 // cases with their own clipping bound
	floor                                map[corpus.Bed]map[float64]float64 // removal floors; nil: mixFloor
}

// checkMix logs rows (every case with -realmix.v) and their table, fails
// where they fall under the regression floors (mixFloor and lim), and logs
// where they fall short of the bars.
func checkMix(t *testing.T, rows []mixRow, lim mixLimits) {
	t.Helper()
	if *realmixVerbose {
		var lines []string
		for _, r := range rows {
			lines = append(lines, fmt.Sprintf("%-28s thr %6.1f cuts %3d removable %6.2fs removed %5.1f%% (%d/%d) clip %6.1f P95 %5.1f %s",
				r.c.Name, r.thr, r.cuts, r.s.RemovableSec, r.s.RemovedPct, r.s.PausesCut, r.s.Pauses, r.s.ClippedMs, r.s.BoundaryP95, r.notes))
		}
		t.Log("\n" + strings.Join(lines, "\n"))
	}
	t.Log("\n" + mixTable(rows))
	type key struct {
		bed corpus.Bed
		snr float64
	}
	rem, cut := map[key]float64{}, map[key]float64{}
	var short []string
	clipCases, p95Cases, p95Bar := 0, 0, 0
	for _, r := range rows {
		k := key{r.c.Bed, r.c.SNRDb}
		rem[k] += r.s.RemovableSec
		cut[k] += r.s.CutSec
		maxClip := lim.maxClipMs
		if k, ok := lim.clipKnown[r.c.Name]; ok {
			maxClip = k
		}
		if r.s.ClippedMs > maxClip+1e-6 {
			t.Errorf("%s: %.0f ms of speech clipped (regression floor %g ms)", r.c.Name, r.s.ClippedMs, maxClip)
		} else if r.s.ClippedMs > 30+1e-6 {
			short = append(short, fmt.Sprintf("%s: clipped %.0f ms (bar 30)", r.c.Name, r.s.ClippedMs))
		}
		if r.s.ClippedMs > 30+1e-6 {
			clipCases++
		}
		if r.s.BoundaryP95 > 40+1e-6 {
			short = append(short, fmt.Sprintf("%s: boundary P95 %.0f ms (bar 40)", r.c.Name, r.s.BoundaryP95))
			p95Cases++
			if r.c.SNRDb >= 15 {
				p95Bar++
			}
		}
	}
	if clipCases > lim.maxClipCases {
		t.Errorf("%d cases clip more than 30 ms of speech (regression floor %d)", clipCases, lim.maxClipCases)
	}
	if p95Cases > lim.maxP95Cases {
		t.Errorf("%d cases have a boundary P95 over 40 ms (regression floor %d)", p95Cases, lim.maxP95Cases)
	}
	if p95Bar > lim.maxP95Bar {
		t.Errorf("%d cases at 15 dB or more have a boundary P95 over 40 ms (regression floor %d)", p95Bar, lim.maxP95Bar)
	}
	for k, rs := range rem {
		pct := 100 * cut[k] / max(rs, 1e-9)
		bar := 90.0
		if k.snr < 15 {
			bar = 70
		}
		floor := lim.floor
		if floor == nil {
			floor = mixFloor
		}
		if fl := floor[k.bed][k.snr]; pct < fl {
			t.Errorf("%s at %g dB: %.1f %% of the removable pause time cut (regression floor %g %%)", k.bed, k.snr, pct, fl)
		}
		if pct < bar {
			short = append(short, fmt.Sprintf("%s at %g dB: %.1f %% cut (bar %g %%)", k.bed, k.snr, pct, bar))
		}
	}
	t.Logf("%d cases clip more than 30 ms; %d have a boundary P95 over 40 ms, %d of them at 15 dB or more", clipCases, p95Cases, p95Bar)
	sort.Strings(short)
	t.Logf("short of the issue's bars (%d):\n%s", len(short), strings.Join(short, "\n"))
}

// sliceSource is a dsp.Source over mono samples.
type sliceSource struct {
	rate int
	s    []float32
}

func (s *sliceSource) Format() dsp.Format { return dsp.Format{SampleRate: s.rate, Channels: 1} }

func (s *sliceSource) Read(p []float32) (int, error) {
	if len(s.s) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.s)
	s.s = s.s[n:]
	return n, nil
}

// TestNoPauseInputs: a -23 dBFS tone, steady music and inputs of noise
// alone have no pause: every preset cuts nothing, and the analysis says
// why (the music loop has beats, so only "no cut" is asked of it).
func TestNoPauseInputs(t *testing.T) {
	const rate = 48000
	tone := make([]float32, 20*rate)
	white := make([]float32, 20*rate)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range tone {
		tone[i] = float32(0.1 * math.Sqrt2 * math.Sin(2*math.Pi*1000*float64(i)/rate)) // -23 dBFS RMS
		white[i] = float32(0.03 * r.NormFloat64())                                     // -30 dBFS
	}
	type input struct {
		name string
		a    *dsp.Analysis
		warn bool
	}
	an := func(s []float32) *dsp.Analysis {
		a, err := dsp.Analyze(context.Background(), &sliceSource{rate, s}, dsp.Info{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	rec := filepath.Join("..", "testdata", "recordings")
	ins := []input{
		{"tone 1 kHz -23 dBFS", an(tone), true},
		{"white noise -30 dBFS", an(white), true},
		{"noise_vinyl_hiss_cc0.flac", analyzeFile(t, filepath.Join(rec, "noise_vinyl_hiss_cc0.flac")), true},
		{"noise_alsa_pink_1s.wav", analyzeFile(t, filepath.Join(rec, "noise_alsa_pink_1s.wav")), true},
		{"music_loop_garzul_cc0.flac", analyzeFile(t, filepath.Join(rec, "music_loop_garzul_cc0.flac")), false},
	}
	for _, in := range ins {
		if in.warn && len(in.a.Warnings) == 0 {
			t.Errorf("%s: no warning in the analysis", in.name)
		}
		for _, pr := range Presets() {
			pl, err := Make(in.a, pr.Params, nil)
			if err != nil || len(pl.Cuts) != 0 || pl.ThresholdDb != in.a.ThresholdDb {
				t.Errorf("%s, %s: error %v, cuts %v, threshold %v (analysis %v): want no cut, one threshold", in.name, pr.Name, err, pl.Cuts, pl.ThresholdDb, in.a.ThresholdDb)
			}
		}
		t.Logf("%s: threshold %.2f, warnings %q", in.name, in.a.ThresholdDb, in.a.Warnings)
	}
}

// TestRadioMix plans the radio cases (internal/corpus RadioCases: the
// speech over radio static, the whole mix through a receiver's gain
// control that brings the static up by as much as 10 dB in pauses) with
// the podcast preset and checks them as TestRealMix does, with their own
// regression floors (mixFloor's radio row, radioMax*).
func TestRadioMix(t *testing.T) {
	testtier.Slow(t, "radio cases: about 20 s")
	checkMix(t, runRealMix(t, corpus.RadioCases()), mixLimits{radioMaxClipMs, radioMaxClipCases, radioMaxP95Cases, radioMaxP95BarCases, radioClipKnown, nil})
}

// TestPhoneMix plans the phone cases (internal/corpus PhoneCases: the
// crosstalk cases with both voices through a telephone link's 300-3400 Hz
// band) with the podcast preset and checks them as TestRealMix does, with
// their own regression floors (mixFloor's phone row, phoneMax*).
func TestPhoneMix(t *testing.T) {
	testtier.Slow(t, "phone cases: about 10 s")
	checkMix(t, runRealMix(t, corpus.PhoneCases()), mixLimits{phoneMaxClipMs, phoneMaxClipCases, phoneMaxP95Cases, phoneMaxP95BarCases, nil, nil})
}

// TestTypingMix plans the typing cases (internal/corpus TypingCases: each
// speech recording over keystrokes on a quiet desk, a generated bed) with
// the podcast preset and checks them as TestRealMix does, with their own
// regression floors (mixFloor's typing row, typingMax*). The keystrokes
// stand 10-20 dB over the bed's RMS, so at 10-20 dB they come within 0-10
// dB of the speech level, where level alone keeps them; the voice network
// hears the ones standing alone over the quiet room (dsp's quietLoud).
func TestTypingMix(t *testing.T) {
	testtier.Slow(t, "typing cases: about 15 s")
	checkMix(t, runRealMix(t, corpus.TypingCases()), mixLimits{typingMaxClipMs, typingMaxClipCases, typingMaxP95Cases, typingMaxP95BarCases, nil, nil})
}

// TestRateMix plans cases recorded at 8 and 16 kHz (internal/corpus
// RateCases: low-passed at 0.45 times the rate, then decimated) and the
// same signals left at 48 kHz (BandCases) with the podcast preset, and
// checks that the cases plan at their rate as at 48 kHz: the sample rate
// should change only how many samples a 10 ms frame holds, how the voice
// network's input is resampled and how a frame's peak is read (see dsp's
// framePeakRate). Over the cases, the cut time differs by at most
// rateMaxCutDiffPct of the 48 kHz cut time (the sum of each case's
// difference), no case clips more than rateMaxClipDiffMs more speech, and
// the cases with a boundary P95 over 40 ms are at most rateMaxP95Cases
// more. The cases: the phone ones at 8 kHz (narrow-band speech), the
// static ones at 16 kHz (crackles, whose peaks a low rate reads low); with
// -realmix.rates every case of TestRealMix and the phone cases at both.
func TestRateMix(t *testing.T) {
	testtier.Slow(t, "rate cases: about 30 s")
	sets := []struct {
		rate  int
		cases []corpus.MixCase
	}{{8000, corpus.PhoneCases()}, {16000, nil}}
	for _, c := range corpus.MixCases() {
		if c.Bed == corpus.BedStatic {
			sets[1].cases = append(sets[1].cases, c)
		}
	}
	if *realmixRates {
		all := append(corpus.PhoneCases(), corpus.MixCases()...)
		sets[0].cases, sets[1].cases = all, all
	}
	for _, set := range sets {
		band := runRealMix(t, corpus.BandCases(set.cases, set.rate))
		rows := runRealMix(t, corpus.RateCases(set.cases, set.rate))
		t.Logf("%d Hz:\n%s", set.rate, mixTable(rows))
		compareMixes(t, fmt.Sprintf("%d Hz", set.rate), "at 48 kHz", rows, band, rateMaxCutDiffPct, rateMaxClipDiffMs, rateMaxP95Cases)
	}
}

// compareMixes checks the plans rows against those of the same cases
// otherwise made, base (what says how, in messages): over the cases the
// cut time differs by at most maxCutPct of base's (the sum of each case's
// difference), no case clips more than maxClipMs more speech, and the
// cases with a boundary P95 over 40 ms are at most maxP95 more.
func compareMixes(t *testing.T, label, other string, rows, base []mixRow, maxCutPct, maxClipMs float64, maxP95 int) {
	t.Helper()
	var cut, diff float64
	var p95, p95Base int
	for i, r := range rows {
		b := base[i]
		cut += b.s.CutSec
		diff += math.Abs(r.s.CutSec - b.s.CutSec)
		if r.s.ClippedMs > b.s.ClippedMs+maxClipMs+1e-6 {
			t.Errorf("%s: %.0f ms clipped, %.0f ms %s", r.c.Name, r.s.ClippedMs, b.s.ClippedMs, other)
		}
		if r.s.BoundaryP95 > 40+1e-6 {
			p95++
		}
		if b.s.BoundaryP95 > 40+1e-6 {
			p95Base++
		}
		if math.Abs(r.s.CutSec-b.s.CutSec) > 0.05 || math.Abs(r.s.BoundaryP95-b.s.BoundaryP95) > 20+1e-6 {
			t.Logf("%s: cut %.3f s, clipped %.0f ms, P95 %.0f ms; %s %.3f s, %.0f ms, %.0f ms", r.c.Name,
				r.s.CutSec, r.s.ClippedMs, r.s.BoundaryP95, other, b.s.CutSec, b.s.ClippedMs, b.s.BoundaryP95)
		}
	}
	pct := 100 * diff / max(cut, 1e-9)
	t.Logf("%s, %d cases: cut time %.2f %% apart from the plans %s; boundary P95 over 40 ms in %d cases, %d %s", label, len(rows), pct, other, p95, p95Base, other)
	if pct > maxCutPct {
		t.Errorf("%s: cut time %.2f %% apart from the plans %s (regression floor %g %%)", label, pct, other, maxCutPct)
	}
	if p95 > p95Base+maxP95 {
		t.Errorf("%s: %d cases with a boundary P95 over 40 ms, %d %s (regression floor %d more)", label, p95, p95Base, other, maxP95)
	}
}

// TestOffsetMix plans mixes with a DC offset of 0.01 (-40 dBFS; internal/
// corpus OffsetCases, alternately added and taken away) and the same
// mixes without, with the podcast preset, and checks them with
// compareMixes and the offsetMax* floors: the offset is inaudible, and
// dsp takes it out of the envelope (dsp's offset.go), so the plans
// should hardly move. Before it did, the 168 mixes of TestRealMix with
// 0.01 added had 59 cases clip more than 30 ms of speech (none without).
// No case may clip more than offsetMaxClipMs. The cases: the mixes at 15
// dB; with -realmix.offsets every case of TestRealMix (-realmix.dc sets
// the offset).
func TestOffsetMix(t *testing.T) {
	testtier.Slow(t, "offset cases: about 40 s")
	var cases []corpus.MixCase
	for _, c := range corpus.MixCases() {
		if c.SNRDb == 15 || *realmixOffsets {
			cases = append(cases, c)
		}
	}
	base := runRealMix(t, cases)
	rows := runRealMix(t, corpus.OffsetCases(cases, *realmixDC))
	label := fmt.Sprintf("offset %g", *realmixDC)
	checkMix(t, rows, mixLimits{offsetMaxClipMs, offsetMaxClipCases, len(rows), len(rows), nil, nil})
	compareMixes(t, label, "without it", rows, base, offsetMaxCutDiffPct, offsetMaxClipDiffMs, offsetMaxP95Cases)
}

// TestDriftMix plans the drift cases (internal/corpus DriftCases: the pink
// and crosstalk cases with the speaker's level falling 10 dB a minute)
// with the podcast preset and checks them as TestRealMix does, with their
// own regression floors (driftFloor, driftMax*).
func TestDriftMix(t *testing.T) {
	testtier.Slow(t, "drift cases: about 15 s")
	checkMix(t, runRealMix(t, corpus.DriftCases()), mixLimits{driftMaxClipMs, driftMaxClipCases, driftMaxP95Cases, driftMaxP95BarCases, nil, driftFloor})
}

// TestTurnMix plans the turn cases (internal/corpus TurnCases: the
// crosstalk cases with a 20 s turn of the other speaker alone in the
// middle) with the podcast preset and checks them as TestRealMix does,
// with their own regression floors (turnFloor, turnMax*).
func TestTurnMix(t *testing.T) {
	testtier.Slow(t, "turn cases: about 10 s")
	checkMix(t, runRealMix(t, corpus.TurnCases()), mixLimits{turnMaxClipMs, turnMaxClipCases, turnMaxP95Cases, turnMaxP95BarCases, nil, turnFloor})
}

// TestRoomMix plans the room cases (internal/corpus RoomCases: the vinyl,
// pink and crosstalk cases with the speech through a reverberant room,
// RT60 0.5 s) with the podcast preset and checks them as TestRealMix
// does, with their own regression floors (roomFloor, roomMax*).
func TestRoomMix(t *testing.T) {
	testtier.Slow(t, "room cases: about 40 s")
	checkMix(t, runRealMix(t, corpus.RoomCases()), mixLimits{roomMaxClipMs, roomMaxClipCases, roomMaxP95Cases, roomMaxP95BarCases, nil, roomFloor})
}

// TestFadeMix plans the fade cases (internal/corpus FadeCases: the pink,
// hum and crosstalk cases with the mix's ends 14 dB down, rising over 10 s,
// as ffmpeg's dynaudnorm leaves a file's ends) with the podcast preset and
// checks them as TestRealMix does, with their own regression floors
// (fadeFloor, fadeLimits). Before plan.Make planned such ends at the gain
// of the rest (dsp.GainDrop), 45 of the 78 cases clipped more than 30 ms,
// most of them 3.4-6 s: the speaker's words at the ends, taken for a
// fainter voice or under the pause threshold. Since, 24: the 11 s and
// 18.7 s recordings (jfk, librispeech), whose ends meet so that no middle
// keeps the usual gain (librispeech 1.5-4.8 s), and 6 more at 60-200 ms.
func TestFadeMix(t *testing.T) {
	testtier.Slow(t, "fade cases: about 30 s")
	checkMix(t, runRealMix(t, corpus.FadeCases()), fadeLimits)
}

// fadeFloor is TestFadeMix's removal floor per bed and ratio: measured
// less 2 points, rounded down.
var fadeFloor = map[corpus.Bed]map[float64]float64{
	corpus.BedPink:      {10: 91, 15: 97, 20: 97, 25: 97, 35: 97},
	corpus.BedHum:       {10: 93, 15: 96, 20: 97, 25: 97, 35: 93},
	corpus.BedCrosstalk: {15: 93, 20: 95, 25: 97},
}

// fadeLimits are TestFadeMix's other floors, as measured: no case clips
// more than 200 ms but librispeech's (each its own bound, rounded up to 50
// ms).
var fadeLimits = mixLimits{
	maxClipMs: 200, maxClipCases: 24, maxP95Cases: 19, maxP95Bar: 13, floor: fadeFloor,
	clipKnown: map[string]float64{
		"librispeech-pink-10-fade": 2050, "librispeech-pink-15-fade": 3550, "librispeech-pink-20-fade": 3950,
		"librispeech-pink-25-fade": 2200, "librispeech-pink-35-fade": 4450,
		"librispeech-hum-10-fade": 2400, "librispeech-hum-15-fade": 3350, "librispeech-hum-20-fade": 3700,
		"librispeech-hum-25-fade": 4500, "librispeech-hum-35-fade": 4750,
		"librispeech-crosstalk-15-fade": 2200, "librispeech-crosstalk-20-fade": 1900, "librispeech-crosstalk-25-fade": 2750,
	},
}

// TestLevelMix plans the level cases (internal/corpus LevelCases: the
// vinyl, music and crosstalk cases with the whole mix 20 dB quieter and 10
// dB louder) with the podcast preset and checks each gain as TestRealMix
// does, with its own regression floors (levelFloor, levelLimits).
func TestLevelMix(t *testing.T) {
	testtier.Slow(t, "level cases: about 30 s")
	for _, g := range []float64{-20, 10} {
		t.Run(fmt.Sprintf("gain%+gdB", g), func(t *testing.T) {
			lim := levelLimits[g]
			lim.floor = levelFloor[g]
			checkMix(t, runRealMix(t, corpus.LevelCases(g)), lim)
		})
	}
}

// The short-word cases' bounds (TestShortWords), per preset: cases of the
// 30 that clip more than 30 ms of speech, and the removal floor (percent
// of the removable pause time, all cases together).
var shortWordLimits = map[string]struct {
	clipCases int
	removed   float64
}{
	"youtube": {2, 91},
	"radical": {4, 86},
}

// TestShortWords plans the real-speech mixes at 10 dB (every speaker over
// vinyl, pink noise, hum, music and static: 30 cases) with the youtube and
// radical presets, whose minSpeech (150 and 250 ms, with pauses of 175 and
// 100 ms on each side) drops short islands. Over a bed 10 dB under the
// speech only a word's loudest 50-100 ms may stand out of it (june's
// "t" at 4.42 s: 80 ms), and minSpeech dropped such words as short noises:
// youtube clipped 8 of the cases by more than 30 ms, radical 25. An island
// the voice network hears as speech is no short noise (voicedIsland).
func TestShortWords(t *testing.T) {
	testtier.Slow(t, "short words: about 20 s")
	m := corpus.NewMixer(realdata.AllRecordings(t)...)
	type mix struct {
		c  corpus.MixCase
		a  *dsp.Analysis
		tr corpus.MixTruth
	}
	var mixes []mix
	for _, c := range corpus.MixCases() {
		if c.SNRDb == 10 {
			a, tr := analyseMix(t, m, c)
			mixes = append(mixes, mix{c, a, tr})
		}
	}
	if len(mixes) != 30 {
		t.Fatalf("%d cases at 10 dB, want 30", len(mixes))
	}
	for _, name := range []string{"youtube", "radical"} {
		pr, err := LookupPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		lim := shortWordLimits[name]
		clip, removable, cut := 0, 0.0, 0.0
		var clipped []string
		for _, x := range mixes {
			r := planMix(x.c, x.a, x.tr, pr.Params)
			removable += r.s.RemovableSec
			cut += r.s.CutSec
			if r.s.ClippedMs > 30+1e-6 {
				clip++
				clipped = append(clipped, fmt.Sprintf("%s %.0f ms", x.c.Name, r.s.ClippedMs))
			}
		}
		pct := 100 * cut / removable
		t.Logf("%s: %d cases clip more than 30 ms %v; %.1f %% of the removable pause time cut", name, clip, clipped, pct)
		if clip > lim.clipCases {
			t.Errorf("%s: %d cases clip more than 30 ms (bound %d)", name, clip, lim.clipCases)
		}
		if pct < lim.removed {
			t.Errorf("%s: %.1f %% cut (floor %g %%)", name, pct, lim.removed)
		}
	}
}
