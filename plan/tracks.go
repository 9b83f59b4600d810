package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/autocut-dev/autocut/dsp"
)

// MaxTracks is the most tracks MakeTracks and OwnedSpeech plan together.
const MaxTracks = dsp.MaxTracks

// bleedMarginDb is how much louder a simultaneous voice on another track
// must be for a track's sound to count as that voice's bleed
// (OwnedSpeech). Measured on the multi-track mixes of real voices
// (internal/corpus TracksCases, TestTracksBleed, docs/accuracy.md): the
// bleed-only frames stand 9.5-10.4 dB (median) under the owner's track at
// 10 dB of isolation, 4.5-6.1 dB at the 5th percentile, 1.2-3.4 dB at the
// 1st (the room's colouring moves the bleed's level frame by frame); the
// frames of a voice alone stand 1.2-2.0 dB under the loudest other track
// at the 99th percentile. At 10 dB the bleed a track owns is 0.3, 0.7,
// 1.2, 1.8, 5.4 and 17.2 % of its bleed-only time with margins of 0, 2,
// 3, 4, 6 and 8 dB, and its own speech owned 98.3, 98.8, 98.9, 99.0, 99.3,
// 99.5 %; at 15 dB or more at most 0.1 % of the bleed with 0-3 dB. 3 dB
// keeps the bleed owned under 1.5 % at 10 dB and loses 0.4 points more of
// the own speech than 6 dB (the quieter of two voices talking at once).
const bleedMarginDb = 3.0

// bleedSmoothFrames is the window (10 ms frames, centred) over which the
// tracks' levels are averaged before they are compared: 50 ms, as the
// planner's detection, so that a few milliseconds of delay between the
// microphones and a room's colouring do not flip a frame.
const bleedSmoothFrames = 5

// MakeTracks plans a recording of N aligned tracks (one microphone per
// person, all from time 0; 1 to MaxTracks): the plan's cuts lie where
// nobody speaks on any track. A frame is speech on track i when track i
// hears a voice that is not the bleed of a louder simultaneous voice on
// another track (OwnedSpeech); a voice is bleed only while its owner
// speaks, so the pauses are where every track's own detection (Make with
// p and keepSilence 0) finds a pause, and a pause of one speaker while
// another talks is never cut.
//
// Each track is planned on its own with Make (its own threshold, bed,
// voice rules, minSpeech and minSilence); the pauses of the recording
// are the time all the tracks' plans cut. A pause shorter than
// MinSilenceSec less one 10 ms frame is not cut; the others are cut less
// KeepSilenceMs as Make cuts them: half kept after the last voice to
// stop, half before the first to start again, all of it next to the
// speech at the file's ends, each inner edge moved by up to one frame to
// a frame whose loudest peak over the tracks is 1 dB quieter. A cut's
// reason is the strongest the tracks give its time: "short-speech" over
// "noise" over "silence". The extra cuts are then merged as Make merges
// them. Tracks of different lengths are padded with digital silence to
// the longest. ThresholdDb and NoiseFloorDb are the first track's (each
// track has its own).
//
// One track gives exactly what Make gives. More than MaxTracks, none, a
// nil analysis or envelopes of different frame lengths are refused
// (ErrInvalidParams, ErrBadAnalysis). Like Make, a plan with nothing to
// keep comes with ErrNothingToKeep.
func MakeTracks(as []*dsp.Analysis, p Params, extra []Cut) (*Plan, error) {
	if err := checkTracks(as); err != nil {
		return nil, err
	}
	if len(as) == 1 {
		return Make(as[0], p, extra)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for i, c := range extra {
		if math.IsNaN(c.Start) || math.IsNaN(c.End) || math.IsInf(c.Start, 0) || math.IsInf(c.End, 0) || c.End < c.Start {
			return nil, fmt.Errorf("%w: extra cut %d [%v, %v] is not a time range", ErrInvalidParams, i, c.Start, c.End)
		}
	}
	padded, dur := padTracks(as)
	q := p
	q.KeepSilenceMs = 0
	var pauses []Cut
	var first *Plan
	for i, a := range padded {
		pl, err := Make(a, q, nil)
		if err != nil && !errors.Is(err, ErrNothingToKeep) {
			return nil, fmt.Errorf("plan: track %d: %w", i+1, err)
		}
		if i == 0 {
			first, pauses = pl, pl.Cuts
		} else {
			pauses = intersectCuts(pauses, pl.Cuts)
		}
	}
	cuts := trackCuts(pauses, p, padded, dur)
	eff := p
	eff.ThresholdDb = first.Params.ThresholdDb
	pl := &Plan{ThresholdDb: first.ThresholdDb, NoiseFloorDb: first.NoiseFloorDb, Params: eff}
	pl.finish(mergeExtra(cuts, extra, dur), dur)
	if len(pl.Keep) == 0 {
		return pl, fmt.Errorf("plan: all %.3f s of the %d tracks would be cut: %w", dur, len(as), ErrNothingToKeep)
	}
	return pl, nil
}

// trackCuts turns the pauses all tracks share (sorted, disjoint; touching
// pieces are one pause) into cuts: minSilence, keepSilence and the snap
// of Make's rules 2 to 4, on the loudest of the tracks.
func trackCuts(pauses []Cut, p Params, as []*dsp.Analysis, dur float64) []Cut {
	fs := as[0].Envelope.FrameSec
	keep := p.KeepSilenceMs / 1000
	var out []Cut
	for i := 0; i < len(pauses); {
		j := i + 1
		for j < len(pauses) && pauses[j].Start-pauses[j-1].End < 1e-9 {
			j++
		}
		a, b := pauses[i].Start, pauses[j-1].End
		group := pauses[i:j]
		i = j
		if b-a < p.MinSilenceSec-fs-1e-9 || b-a <= keep+1e-9 {
			continue
		}
		atStart, atEnd := a <= 1e-9, b >= dur-1e-9
		cs, ce := a+keep/2, b-keep/2
		switch {
		case atStart && atEnd:
			cs, ce = 0, dur
		case atStart:
			cs, ce = 0, b-keep
		case atEnd:
			cs, ce = a+keep, dur
		}
		if !atStart && keep > 0 {
			cs = snapTracks(as, cs, a, ce, dur)
		}
		if !atEnd && keep > 0 {
			ce = snapTracks(as, ce, cs, b, dur)
		}
		for _, c := range group {
			if s, e := max(c.Start, cs), min(c.End, ce); e > s {
				out = append(out, Cut{Start: s, End: e, Reason: c.Reason})
			}
		}
	}
	return out
}

// snapTracks moves the cut edge t by up to snapFrames frames to a frame
// whose loudest peak over the tracks is snapMinGainDb quieter, staying
// within (lo, hi), as Make's snap does on one track.
func snapTracks(as []*dsp.Analysis, t, lo, hi, dur float64) float64 {
	fs := as[0].Envelope.FrameSec
	n := len(as[0].Envelope.RMSDb)
	if n == 0 {
		return t
	}
	peak := func(x float64) float64 {
		f := min(max(int(math.Floor(x/fs+1e-9)), 0), n-1)
		pk := dsp.FloorDb
		for _, a := range as {
			db := a.Envelope.RMSDb
			if len(a.Envelope.PeakDb) == n {
				db = a.Envelope.PeakDb
			}
			if v := float64(db[f]); !math.IsNaN(v) {
				pk = max(pk, v)
			}
		}
		return pk
	}
	best, bestQ := t, peak(t)
	for _, k := range []int{-1, 1} {
		for d := 1; d <= snapFrames; d++ {
			x := t + float64(k*d)*fs
			if x < lo || x > hi || x <= 0 || x >= dur {
				continue
			}
			if q := peak(x); q < bestQ-snapMinGainDb {
				best, bestQ = x, q
			}
		}
	}
	return best
}

// checkTracks refuses what MakeTracks and OwnedSpeech cannot plan.
func checkTracks(as []*dsp.Analysis) error {
	if len(as) == 0 || len(as) > MaxTracks {
		return fmt.Errorf("%w: %d tracks (1 to %d)", ErrInvalidParams, len(as), MaxTracks)
	}
	for i, a := range as {
		if a == nil {
			return fmt.Errorf("plan: track %d: nil analysis: %w", i+1, ErrBadAnalysis)
		}
		if i > 0 && len(a.Envelope.RMSDb) > 0 && len(as[0].Envelope.RMSDb) > 0 && a.Envelope.FrameSec != as[0].Envelope.FrameSec {
			return fmt.Errorf("plan: track %d has %g s frames, track 1 %g s: %w", i+1, a.Envelope.FrameSec, as[0].Envelope.FrameSec, ErrBadAnalysis)
		}
	}
	return nil
}

// padTracks returns the analyses with the shorter ones' envelopes padded
// with digital silence (dsp.FloorDb, VoiceFloor) to the longest, and the
// longest duration.
func padTracks(as []*dsp.Analysis) ([]*dsp.Analysis, float64) {
	n, dur := 0, 0.0
	for _, a := range as {
		n = max(n, len(a.Envelope.RMSDb))
		dur = max(dur, trackDuration(a))
	}
	out := make([]*dsp.Analysis, len(as))
	for i, a := range as {
		if len(a.Envelope.RMSDb) == n && trackDuration(a) == dur {
			out[i] = a
			continue
		}
		c := *a
		e := &c.Envelope
		if e.FrameSec == 0 {
			e.FrameSec = as[0].Envelope.FrameSec
		}
		e.RMSDb = padFloor(e.RMSDb, n)
		if len(e.PeakDb) > 0 {
			e.PeakDb = padFloor(e.PeakDb, n)
		}
		if len(e.Voice) > 0 {
			e.Voice = append(slices.Clip(e.Voice), make([]uint8, n-len(e.Voice))...)
			for k := len(a.Envelope.Voice); k < n; k++ {
				e.Voice[k] = dsp.VoiceFloor
			}
		}
		c.Input.Duration = dur
		c.Input.Frames = -1
		out[i] = &c
	}
	return out, dur
}

// trackDuration is a track's length: its input's duration, else its
// envelope's.
func trackDuration(a *dsp.Analysis) float64 {
	if d := a.Input.Duration; d > 0 && !math.IsInf(d, 0) {
		return d
	}
	return float64(len(a.Envelope.RMSDb)) * a.Envelope.FrameSec
}

// padFloor returns db extended to n frames of dsp.FloorDb.
func padFloor(db []float32, n int) []float32 {
	out := append(slices.Clip(db), make([]float32, n-len(db))...)
	for k := len(db); k < n; k++ {
		out[k] = dsp.FloorDb
	}
	return out
}

// reasonRank orders the cut reasons MakeTracks gives a time two tracks cut
// for different reasons.
func reasonRank(r string) int {
	switch r {
	case ReasonShortSpeech:
		return 2
	case ReasonNoise:
		return 1
	}
	return 0
}

// intersectCuts returns the time both sorted, disjoint cut lists cut, each
// piece with the stronger of the two reasons (reasonRank).
func intersectCuts(x, y []Cut) []Cut {
	var out []Cut
	for i, j := 0, 0; i < len(x) && j < len(y); {
		s, e := max(x[i].Start, y[j].Start), min(x[i].End, y[j].End)
		if e > s {
			r := x[i].Reason
			if reasonRank(y[j].Reason) > reasonRank(r) {
				r = y[j].Reason
			}
			out = append(out, Cut{Start: s, End: e, Reason: r})
		}
		if x[i].End < y[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// OwnedSpeech returns, for each track, the time its own voice speaks: the
// speech its own plan finds (Make with p, but keepSilence and minSpeech
// 0 and minSilence at its least, MinMinSilenceSec: every sound of the
// track, its pauses of 0.2 s or more apart) less the frames that are the
// bleed of a louder simultaneous voice, sorted and disjoint. A frame of
// track i is bleed when another track j has speech there whose level
// stands bleedMarginDb (3 dB) or more over track i's (levels averaged
// over 50 ms): each microphone hears its own speaker louder than the
// others' microphones do (10-25 dB of isolation), so the levels are
// compared as recorded, the tracks at comparable gain (before any
// per-track normalization; a track turned up by more than the isolation
// less the margin owns the others' bleed). Where two speakers talk at
// once both tracks own the time, but for a voice bleedMarginDb under the
// other's bleed. The union of the tracks' owned speech is the union of
// their speech (the loudest track of a frame owns it): every sound of
// every track, so a sound shorter than minSpeechMs that MakeTracks drops,
// as Make does, may be owned and cut (in TestTracksBleed's cases no owned
// time lies inside a cut). Tracks are checked and
// padded as MakeTracks does. The level difference alone separates bleed
// from speech (see bleedMarginDb); no correlation between the tracks is
// measured (the analysis keeps no samples).
func OwnedSpeech(as []*dsp.Analysis, p Params) ([][]Range, error) {
	return ownedSpeech(as, p, bleedMarginDb)
}

// ownedSpeech is OwnedSpeech with the bleed margin marginDb (the sweeps').
func ownedSpeech(as []*dsp.Analysis, p Params, marginDb float64) ([][]Range, error) {
	if err := checkTracks(as); err != nil {
		return nil, err
	}
	padded, dur := padTracks(as)
	q := p
	q.KeepSilenceMs, q.MinSilenceSec, q.MinSpeechMs = 0, MinMinSilenceSec, 0
	n := len(padded[0].Envelope.RMSDb)
	fs := padded[0].Envelope.FrameSec
	speech := make([][]bool, len(padded))
	rel := make([][]float32, len(padded))
	for i, a := range padded {
		pl, err := Make(a, q, nil)
		if err != nil && !errors.Is(err, ErrNothingToKeep) {
			return nil, fmt.Errorf("plan: track %d: %w", i+1, err)
		}
		speech[i] = rangesToFrames(pl.Keep, n, fs)
		rel[i] = smoothLevels(a.Envelope.RMSDb)
	}
	out := make([][]Range, len(padded))
	for i := range padded {
		own := make([]bool, n)
		for f := range n {
			if !speech[i][f] {
				continue
			}
			own[f] = true
			for j := range padded {
				if j != i && speech[j][f] && float64(rel[j][f]-rel[i][f]) >= marginDb {
					own[f] = false
					break
				}
			}
		}
		out[i] = framesToRanges(own, fs, dur)
	}
	return out, nil
}

// smoothLevels returns the levels of rms averaged (in power) over
// bleedSmoothFrames frames.
func smoothLevels(rms []float32) []float32 {
	n := len(rms)
	pw := make([]float64, n)
	for i, v := range rms {
		if !math.IsNaN(float64(v)) {
			pw[i] = math.Pow(10, float64(v)/10)
		}
	}
	out := make([]float32, n)
	h := bleedSmoothFrames / 2
	for i := range n {
		s, k := 0.0, 0
		for j := max(i-h, 0); j <= min(i+h, n-1); j++ {
			s += pw[j]
			k++
		}
		db := dsp.FloorDb
		if s > 0 {
			db = max(10*math.Log10(s/float64(k)), dsp.FloorDb)
		}
		out[i] = float32(db)
	}
	return out
}

// rangesToFrames marks the frames (of fs seconds, n of them) whose middle
// lies in one of the sorted ranges rs.
func rangesToFrames(rs []Range, n int, fs float64) []bool {
	out := make([]bool, n)
	for _, r := range rs {
		for f := max(int(math.Round(r.Start/fs)), 0); f < n && float64(f)*fs < r.End-1e-9; f++ {
			out[f] = true
		}
	}
	return out
}

// framesToRanges returns the runs of marked frames as time ranges, the
// last clamped to dur.
func framesToRanges(m []bool, fs, dur float64) []Range {
	out := []Range{}
	start := -1
	for f := 0; f <= len(m); f++ {
		on := f < len(m) && m[f]
		if on && start < 0 {
			start = f
		}
		if !on && start >= 0 {
			out = append(out, Range{Start: round6(float64(start) * fs), End: round6(min(float64(f)*fs, dur))})
			start = -1
		}
	}
	return out
}
