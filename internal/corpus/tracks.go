package corpus

// The multi-track cases: one microphone per person. Two to four real
// voices, each on its own track, take turns and sometimes talk at once;
// each voice leaks into the other tracks IsolationDb under its level on its
// own, a few milliseconds late and coloured by a room's first reflections;
// each track has its own real bed. The truth is each voice's own audible
// speech, by the rule of the real-speech set.

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/autocut-dev/autocut/dsp"
)

// TracksCase is one multi-track case.
type TracksCase struct {
	Name   string   // e.g. "tracks3-15"
	Voices []string // one recording per track (2 to 4)
	// Beds are the bed recordings, track k taking Beds[k%len(Beds)]
	// (each from its own random offset).
	Beds []string
	// IsolationDb: each voice lies this much lower on the other tracks
	// than on its own (the bleed; the room's colouring keeps its power).
	IsolationDb float64
	// BedDb: each track's bed lies this much under its own voice's
	// active level.
	BedDb float64
	// VoiceSec: at most this much of each recording (its pauses
	// stretched) is used; 0: all of it.
	VoiceSec float64
	// GainDb: track k is turned up GainDb[k] dB once mixed (a hotter
	// preamp), voice, bleed and bed alike; none where missing.
	GainDb []float64
	Seed   uint64
}

// Tracks' schedule: a turn follows the previous one after a gap drawn
// from tracksGaps (s), except one time in tracksOverlapEvery, when it
// starts tracksOverlap[...] s before the previous one ends (the voices
// talk at once). tracksLeadSec of beds alone open and close the case.
var (
	tracksGaps    = []float64{0.15, 0.4, 0.8, 1.2, 2.0}
	tracksOverlap = []float64{0.4, 0.8, 1.5}
)

const (
	tracksOverlapEvery = 4
	tracksLeadSec      = 1.0
	// The bleed's path: a delay of tracksDelayMs[0]..[1] ms, then
	// tracksReflections reflections 1-15 ms after the direct sound, each
	// 0.25-0.6 of it, of either sign (a comb: the room's colouring).
	tracksReflections = 3
)

var tracksDelayMs = [2]float64{2, 8}

// TracksTruth is what the clean voices of a multi-track case say.
type TracksTruth struct {
	Name     string
	Duration float64
	// Voices[k] is track k's own voice's audible speech, sorted.
	Voices [][]Interval
	// Speech is where anyone speaks: the union of Voices, sorted.
	Speech []Interval
}

// Mix returns the truth as the real-speech set's (someone speaking is
// speech), for ScoreMix.
func (t TracksTruth) Mix() MixTruth {
	return MixTruth{Name: t.Name, Duration: t.Duration, Speech: t.Speech}
}

// TracksMixed is a built multi-track case: one mono signal per track at
// Rate (MixRate), on the 16-bit grid, all of the same length.
type TracksMixed struct {
	Rate   int
	Tracks [][]float32
	Truth  TracksTruth
}

// TracksBeds are the beds of the multi-track cases: real room and noise
// recordings (the vinyl hiss and pink noise of testdata/recordings, a
// café's ambience and a quiet room's tone from the real material).
func TracksBeds() []string {
	return []string{
		"noise_alsa_pink_1s.wav",
		"corpus/noisereduce/cafe_short.wav",
		"corpus/speechbrain/noise5.wav",
		"corpus/speechbrain/noise1.wav",
	}
}

// TracksVoices are the voices of the multi-track cases of the tune part
// (testdata/split/speech.tsv), in the order the tracks take them.
func TracksVoices() []string {
	return []string{
		"en_asterisk_allison_demo-instruct_73s.wav",
		"fr_asterisk_june_demo-instruct_71s.wav",
		"en_librivox_sense_sensibility_0870.wav",
		"fr_picovoice_leopard_test_fr.wav",
	}
}

// TracksReportVoices are the voices of the multi-track cases of the
// report part: the Italian asterisk prompts and SPPAS's French, German and
// Portuguese readers (the report voices of the conversation cases). Not
// MFA's monologue (acoustic_corpus): its pauses hold bursts of 10-30 ms
// every 55 ms that the truth rule counts as speech.
func TracksReportVoices() []string {
	return []string{
		"it_asterisk_carlo_demo-instruct_64s.wav",
		"corpus/sppas/samples-fra/F_F_C006-P6.wav",
		"corpus/sppas/samples-deu/DEU_F10_DEU_T02.wav",
		"corpus/sppas/samples-por/POR_F25_POR_T02.wav",
	}
}

// TracksCases returns a multi-track set: 2, 3 and 4 tracks (the first of
// voices, 4 or more) at each isolation of isolations, the beds bedDb
// under each voice, each voice's first voiceSec; seeds from seed.
func TracksCases(voices []string, isolations []float64, bedDb, voiceSec float64, seed uint64) []TracksCase {
	var out []TracksCase
	for n := 2; n <= min(4, len(voices)); n++ {
		for _, iso := range isolations {
			out = append(out, TracksCase{
				Name:   fmt.Sprintf("tracks%d-%g", n, iso),
				Voices: voices[:n], Beds: TracksBeds(),
				IsolationDb: iso, BedDb: bedDb, VoiceSec: voiceSec, Seed: seed + uint64(n),
			})
		}
	}
	return out
}

// Recordings returns the recordings case c reads.
func (c TracksCase) Recordings() []string { return append(slices.Clone(c.Voices), c.Beds...) }

// HasTracks reports whether the Mixer's folders hold every recording of c.
func (m *Mixer) HasTracks(c TracksCase) bool {
	for _, name := range c.Recordings() {
		if _, err := m.find(name); err != nil {
			return false
		}
	}
	return true
}

// Tracks builds case c. Each voice is scaled to an active level of -20,
// -24 or -28 dBFS on its own track (by seed and track), its turns laid
// out as the schedule above says; track k is its own voice, every other
// voice through its bleed path IsolationDb under, and its bed BedDb under
// its voice; TPDF dither, then 16-bit rounding.
func (m *Mixer) Tracks(ctx context.Context, c TracksCase) (*TracksMixed, error) {
	nv := len(c.Voices)
	if nv < 1 || len(c.Beds) == 0 {
		return nil, fmt.Errorf("corpus: %s: %d voices, %d beds", c.Name, nv, len(c.Beds))
	}
	r := rand.New(rand.NewPCG(c.Seed, 0x747263))
	type voice struct {
		x     []float32
		turns [][2]int
		gain  float64
		level float64 // active level on its own track, dBFS
	}
	vs := make([]voice, nv)
	for k, name := range c.Voices {
		x, err := m.speech(ctx, name)
		if err != nil {
			return nil, err
		}
		if c.VoiceSec > 0 && int(c.VoiceSec*MixRate) < len(x) {
			x = x[:int(c.VoiceSec*MixRate)]
		}
		act, _, err := activeLevel(x)
		if err != nil {
			return nil, fmt.Errorf("corpus: %s: %w", name, err)
		}
		lv := []float64{-20, -24, -28}[(c.Seed+uint64(k))%3]
		vs[k] = voice{x: x, turns: turnsOf(x), gain: math.Pow(10, (lv-act)/20), level: lv}
	}
	// The schedule: (voice, turn, start sample), round robin.
	type place struct{ v, t, at int }
	var sched []place
	pos := int(tracksLeadSec * MixRate)
	first := true
	for ti := 0; ; ti++ {
		more := false
		for k := range vs {
			if ti >= len(vs[k].turns) {
				continue
			}
			more = true
			tr := vs[k].turns[ti]
			at := pos
			if !first {
				if len(sched)%tracksOverlapEvery == tracksOverlapEvery-1 {
					at = pos - int(tracksOverlap[r.IntN(len(tracksOverlap))]*MixRate)
				} else {
					at = pos + int(tracksGaps[r.IntN(len(tracksGaps))]*MixRate)
				}
			}
			first = false
			sched = append(sched, place{k, ti, max(at, 0)})
			pos = max(pos, at+tr[1]-tr[0])
		}
		if !more {
			break
		}
	}
	n := pos + int(tracksLeadSec*MixRate)

	// Each voice alone, placed and scaled.
	placed := make([][]float32, nv)
	for k := range placed {
		placed[k] = make([]float32, n)
	}
	for _, p := range sched {
		v := vs[p.v]
		tr := v.turns[p.t]
		for i, s := range v.x[tr[0]:tr[1]] {
			placed[p.v][p.at+i] += float32(float64(s) * v.gain)
		}
	}
	// The tracks: own voice, the others' bleed, the bed.
	sum := make([][]float64, nv)
	for k := range sum {
		sum[k] = make([]float64, n)
		for i, s := range placed[k] {
			sum[k][i] = float64(s)
		}
	}
	iso := math.Pow(10, -c.IsolationDb/20)
	for k := range nv {
		for j := range nv {
			if j == k {
				continue
			}
			taps, gains := bleedPath(r)
			for t, d := range taps {
				g := gains[t] * iso
				for i := d; i < n; i++ {
					sum[k][i] += g * float64(placed[j][i-d])
				}
			}
		}
	}
	bedDb := make([]float64, nv)
	for k := range nv {
		name := c.Beds[k%len(c.Beds)]
		x, err := m.load(ctx, name)
		if err != nil {
			return nil, err
		}
		bed := loopTo(trimSilence(x), n, r)
		var bsq float64
		for _, v := range bed {
			bsq += float64(v) * float64(v)
		}
		if bsq == 0 {
			return nil, fmt.Errorf("corpus: %s: bed %s is silent", c.Name, name)
		}
		bedDb[k] = vs[k].level - c.BedDb
		g := math.Pow(10, (bedDb[k]-db10(bsq/float64(n)))/20)
		for i, v := range bed {
			sum[k][i] += g * float64(v)
		}
	}
	out := &TracksMixed{Rate: MixRate, Tracks: make([][]float32, nv)}
	for k := range nv {
		g := 1.0
		if k < len(c.GainDb) {
			g = math.Pow(10, c.GainDb[k]/20)
		}
		t := make([]float32, n)
		for i, v := range sum[k] {
			v *= g
			t[i] = float32(max(-32768, min(32767, math.Round(v*32768+r.Float64()-r.Float64()))) / 32768)
		}
		out.Tracks[k] = t
	}

	// The truth: each voice's own audible speech, judged on the voice
	// alone (its peak less 40 dB, its recording's floor + 6 dB) and over
	// its own track's bed (+ 6 dB).
	tr := TracksTruth{Name: c.Name, Duration: float64(n) / MixRate, Voices: make([][]Interval, nv)}
	fl := MixRate / 100
	nf := (n + fl - 1) / fl
	var all []Interval
	for k := range nv {
		ms := frameMS(placed[k], fl, nf)
		peak := 0.0
		for _, v := range placed[k] {
			peak = max(peak, math.Abs(float64(v)))
		}
		thr := max(db20(peak)-truthPeakDepthDb, floorOf(ms)+truthFloorMarginDb, bedDb[k]+truthFloorMarginDb)
		tr.Voices[k] = dropClicks(runsOver(window20(ms), thr, n))
		all = append(all, tr.Voices[k]...)
	}
	tr.Speech = union(all)
	out.Truth = tr
	return out, nil
}

// bleedPath draws a bleed path: the direct sound's delay and the
// reflections' (samples) and their gains, scaled to unit power gain.
func bleedPath(r *rand.Rand) ([]int, []float64) {
	d := tracksDelayMs[0] + r.Float64()*(tracksDelayMs[1]-tracksDelayMs[0])
	taps := []int{int(d * MixRate / 1000)}
	gains := []float64{1}
	for range tracksReflections {
		taps = append(taps, taps[0]+int((1+14*r.Float64())*MixRate/1000))
		g := 0.25 + 0.35*r.Float64()
		if r.IntN(2) == 0 {
			g = -g
		}
		gains = append(gains, g)
	}
	e := 0.0
	for _, g := range gains {
		e += g * g
	}
	for i := range gains {
		gains[i] /= math.Sqrt(e)
	}
	return taps, gains
}

// Analyze analyses each track of mx as dsp.Analyze does a mono file of
// its samples named name-1, name-2, ...
func (mx *TracksMixed) Analyze(ctx context.Context, name string) ([]*dsp.Analysis, error) {
	as := make([]*dsp.Analysis, len(mx.Tracks))
	for k, x := range mx.Tracks {
		a, err := dsp.Analyze(ctx, &monoSource{mx.Rate, x}, dsp.Info{Name: fmt.Sprintf("%s-%d", name, k+1), Frames: int64(len(x))}, nil)
		if err != nil {
			return nil, fmt.Errorf("corpus: %s track %d: %w", name, k+1, err)
		}
		as[k] = a
	}
	return as, nil
}

// monoSource is a dsp.Source over mono samples in memory.
type monoSource struct {
	rate int
	s    []float32
}

func (s *monoSource) Format() dsp.Format { return dsp.Format{SampleRate: s.rate, Channels: 1} }

func (s *monoSource) Read(p []float32) (int, error) {
	if len(s.s) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.s)
	s.s = s.s[n:]
	return n, nil
}
