package dsp

import (
	"math"
	"slices"
)

// Gain turned down at the input's ends.
//
// Some processing leaves the first or last seconds of a recording quieter
// than the rest, the background and the speech alike: ffmpeg's dynaudnorm
// with its defaults (its gain runs from 0 dB at the file's ends up to the
// 10-15 dB it gives the middle, over about 8 s), a fade in or out, a
// recorder's gain control settling. Judged against the whole input's
// levels, the speaker's words there read as a fainter voice or fall under
// the pause threshold: of the 72 real-speech mixes of plan's TestCodecMix
// processed with dynaudnorm (-realmix.codecs), 18 lost more than 30 ms of
// words, 54.6 s in all, up to 6.6 s each.
//
// GainDrop measures it. For each gainBlockFrames (0.5 s) block, over the
// 50 ms levels within gainWinFrames (3 s) either side: the background's
// level (their 10th percentile; the median of 5 blocks' around it, which
// another voice's gaps would make jumpy) and the programme's (their 90th),
// each against its median over the input. From each end inward, the blocks
// where both lie gainMinDropDb (3 dB) or more under their medians (with up
// to gainGapBlocks blocks between them or first at the end, where a window
// is cut short) are turned down by the lesser of the two, if they run at
// least gainMinRun blocks (4 s). Elsewhere nothing is: a quieter stretch
// inside the input is no gain change (there the background stays, as on a
// close-mic track during the other speaker's turn, plan's TestTurnMix, or
// the speech does, over a pause or a soft passage), nor is a short quiet
// end (the last words' decay, another voice's gaps in the final pause:
// plan's TestDriftMix, where the speaker falls away and the other voice
// fills the end). At an end of a turned-down input both move together.
//
// Measured before and after plan.Make planned such ends at the gain of the
// rest: of the 78 mixes of plan's TestFadeMix (ends 14 dB down), 45 ->
// 24 clipping more than 30 ms; of TestCodecMix's 72 processed with
// dynaudnorm, 18 -> 5, 54.6 -> 5.5 s of words in all, removal 98.4 ->
// 98.3 %, cases with a boundary P95 over 40 ms 20 -> 5. What is left is
// inputs too short for a middle at the usual gain (the 11 s and 18.7 s
// recordings, whose turned-down ends meet, so that the median is itself
// turned down: up to 4.7 s each) and a few cases clipping 60-200 ms. It
// costs plan.Make no time it can measure (BenchmarkMake3h, 3 h: 50-57 ms
// before, 43-58 ms after; the 50 ms levels it reads are the ones detection
// uses) and 2.5 MB more a plan (7.4 -> 9.9 MB).
const (
	gainBlockFrames = 50
	gainWinFrames   = 300
	gainMinDropDb   = 3.0
	gainMinRun      = 8
	gainGapBlocks   = 2
	gainBinDb       = 0.25
)

// GainDrop returns how far (dB, 0 or more) the gain of each frame lies
// under the input's usual gain, at its ends only (see above), or nil where
// it does not; lv are the 50 ms levels of the frames (SmoothedLevels).
func GainDrop(lv []float32) []float32 {
	n := len(lv)
	nb := (n + gainBlockFrames - 1) / gainBlockFrames
	bed, prog := make([]float64, nb), make([]float64, nb)
	known := make([]bool, nb)
	var beds, progs []float64
	// A sliding histogram of the window's levels over digital silence.
	const hi = 20.0
	hist := make([]int, int((hi-FloorDb)/gainBinDb)+1)
	bin := func(v float32) int { return int((min(float64(v), hi) - FloorDb) / gainBinDb) }
	count := 0
	put := func(i, d int) {
		if i >= 0 && i < n && float64(lv[i]) > digitalSilenceDb && !math.IsNaN(float64(lv[i])) {
			hist[bin(lv[i])] += d
			count += d
		}
	}
	pct := func(p float64) float64 {
		target, acc := int(p*float64(count)), 0
		for b, c := range hist {
			if acc += c; acc > target {
				return FloorDb + (float64(b)+0.5)*gainBinDb
			}
		}
		return math.NaN()
	}
	lo, up := 0, 0 // the window is [lo, up)
	for b := range nb {
		c := b*gainBlockFrames + gainBlockFrames/2
		for ; up < min(c+gainWinFrames, n); up++ {
			put(up, 1)
		}
		for ; lo < max(c-gainWinFrames, 0); lo++ {
			put(lo, -1)
		}
		if count < gainWinFrames/2 {
			continue // mostly digital silence, or a short input
		}
		bed[b], prog[b], known[b] = pct(0.1), pct(0.9), true
		beds, progs = append(beds, bed[b]), append(progs, prog[b])
	}
	if len(beds) == 0 {
		return nil
	}
	slices.Sort(beds)
	slices.Sort(progs)
	medBed, medProg := beds[len(beds)/2], progs[len(progs)/2]
	dBed, dProg := make([]float64, nb), make([]float64, nb)
	w := make([]float64, 0, 5)
	for b := range nb {
		if !known[b] {
			continue
		}
		dProg[b] = medProg - prog[b]
		w = w[:0]
		for c := max(b-2, 0); c <= min(b+2, nb-1); c++ {
			if known[c] {
				w = append(w, medBed-bed[c])
			}
		}
		slices.Sort(w)
		dBed[b] = w[len(w)/2]
	}
	d := func(b int) float64 { return max(min(dBed[b], dProg[b]), 0) }
	// run returns how many blocks from the end at b0 (going by step) are
	// turned down.
	run := func(b0, step int) int {
		last, k := -1, 0
		for b := b0; b >= 0 && b < nb; b, k = b+step, k+1 {
			if known[b] && d(b) >= gainMinDropDb {
				last = k
			} else if k-last > gainGapBlocks {
				break
			}
		}
		return last + 1
	}
	head := run(0, 1)
	tail := min(run(nb-1, -1), nb-head)
	if head < gainMinRun {
		head = 0
	}
	if tail < gainMinRun {
		tail = 0
	}
	if head+tail == 0 {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		if b := i / gainBlockFrames; b < head || b >= nb-tail {
			out[i] = float32(d(b))
		}
	}
	return out
}
