package dsp

import "math"

// Level estimation from the 10 ms envelope.
//
// Method: a histogram of the frame RMS levels in 0.5 dB bins. Frames at or
// below digitalSilenceDb (digital silence, fades to zero, dither-free
// gaps) are left out, unless nothing else is there, so they cannot drag
// the noise floor down to -120 dB. From the remaining frames:
//
//   - the noise floor is the 10th percentile: speech recordings spend well
//     over 10 % of their frames in pauses, between words and phrases,
//     so the low tail of the histogram is the room/background noise;
//   - the speech (programme) level is the 95th percentile: the level that
//     loud frames of speech reach;
//   - the automatic silence threshold lies between them, thresholdFrac
//     (35 %) of the way up from the noise floor in dB, but at least
//     minNoiseMarginDb above the noise floor (10 ms noise frames scatter a
//     few dB around their mean) and at least minSpeechMarginDb below the
//     speech level when the gap allows, finally clamped to -70..-10 dB.
//
// With a -70 dBFS noise floor and speech at -20 dBFS the threshold is
// about -53 dB; with -40 dBFS noise and speech near -15 dBFS it is about
// -31 dB; for a quiet speaker (-36 dBFS RMS) over -70 dBFS it is about -60
// dB. Tests in levels_test.go check these cases on synthetic speech.
const (
	levelBinDb        = 0.5
	digitalSilenceDb  = -100.0
	noisePercentile   = 0.10
	speechPercentile  = 0.95
	thresholdFrac     = 0.35
	minNoiseMarginDb  = 6.0
	minSpeechMarginDb = 10.0
	minThresholdDb    = -70.0
	maxThresholdDb    = -10.0
)

// Levels holds the noise floor, the programme (speech) level and the
// automatic silence threshold, all in dBFS.
type Levels struct {
	NoiseFloorDb  float64
	SpeechLevelDb float64
	ThresholdDb   float64
}

// EstimateLevels derives the noise floor, speech level and automatic
// silence threshold from 10 ms RMS levels in dBFS (see the method above).
// An empty or all-silent envelope gives FloorDb levels and the lowest
// threshold.
func EstimateLevels(rmsDb []float32) Levels {
	const lo, hi = FloorDb, 20.0
	nb := int((hi-lo)/levelBinDb) + 1
	hist := make([]int, nb)
	audible := 0
	for _, v := range rmsDb {
		d := float64(v)
		if math.IsNaN(d) {
			continue
		}
		b := int((min(max(d, lo), hi) - lo) / levelBinDb)
		hist[b]++
		if d > digitalSilenceDb {
			audible++
		}
	}
	first := int((digitalSilenceDb-lo)/levelBinDb) + 1 // first bin above digital silence
	total := audible
	if total == 0 {
		first, total = 0, len(rmsDb)
	}
	if total == 0 {
		return Levels{NoiseFloorDb: FloorDb, SpeechLevelDb: FloorDb, ThresholdDb: minThresholdDb}
	}
	pct := func(p float64) float64 {
		target := int(math.Ceil(p * float64(total)))
		target = max(target, 1)
		acc := 0
		for b := first; b < nb; b++ {
			acc += hist[b]
			if acc >= target {
				return lo + (float64(b)+0.5)*levelBinDb
			}
		}
		return hi
	}
	noise, speech := pct(noisePercentile), pct(speechPercentile)
	thr := noise + thresholdFrac*(speech-noise)
	thr = max(thr, noise+minNoiseMarginDb)
	if speech-noise > minNoiseMarginDb+minSpeechMarginDb {
		thr = min(thr, speech-minSpeechMarginDb)
	}
	thr = min(max(thr, minThresholdDb), maxThresholdDb)
	return Levels{NoiseFloorDb: noise, SpeechLevelDb: speech, ThresholdDb: thr}
}

// BackgroundDb returns the background level an analysis reports for the 10
// ms levels rmsDb whose levels are lvl (Analysis.NoiseFloorDb): the noise
// floor, but FloorDb where the pauses are digital silence and nothing else
// is quiet: digital silence fills noisePercentile of the frames or more,
// and the floor of the other frames lies within minSpeechMarginDb of the
// speech level (they are all programme, as in tone bursts between silent
// gaps, whose "noise floor" was otherwise the tones' own level). The
// threshold is worked out on lvl as it is.
func BackgroundDb(rmsDb []float32, lvl Levels) float64 {
	if lvl.SpeechLevelDb-lvl.NoiseFloorDb > minSpeechMarginDb {
		return lvl.NoiseFloorDb
	}
	silent := 0
	for _, v := range rmsDb {
		if float64(v) <= digitalSilenceDb {
			silent++
		}
	}
	if len(rmsDb) == 0 || float64(silent) < noisePercentile*float64(len(rmsDb)) {
		return lvl.NoiseFloorDb
	}
	return FloorDb
}

// The pause threshold (Analysis.ThresholdDb), the open level the planner
// uses with the automatic threshold. It is worked out on the 10 ms powers
// averaged over 50 ms (centred), whose 10th percentile is the floor:
//
//   - it starts from EstimateLevels' threshold, raised to 6 dB over the
//     floor by at most 4 dB, so that the floor's scatter cannot open speech;
//   - pauses of digital silence (the floor more than 20 dB under the noise
//     floor, which leaves digital silence out): it is lowered to
//     max(floor + 20 dB, speech level - 40 dB);
//   - no plateau of steady floor (the 25th percentile more than 3 dB over
//     the 10th: the quiet frames are quiet programme, as in music): at most
//     the speech level - 20 dB;
//   - never above the speech level - SpeechMarginDb (24 dB): the quietest
//     audible run of real speech (60 ms or more) in the test recordings
//     peaks 19.7 dB under the speech level (50 ms level), so a threshold
//     24 dB under it leaves 4 dB for the scatter of the 10 ms levels;
//     except for a voice over a steady bed (the input holds 0.2 s of
//     frames classified as speech, its quiet frames form a plateau, 10 dB or more
//     under the speech level): then up to the floor + 6 dB, since speech
//     quieter than that is masked by the bed (the corpora's rule of
//     audible speech; brown noise 10-17 dB under synthetic speech);
//   - finally within -70..-10 dB (the range a caller may give).
//
// When no stretch of 0.5 s stays under it (50 ms level) the file has no
// pause that level can find.
const (
	thrFloorRaiseDb     = 6.0
	thrMaxRaiseDb       = 4.0
	thrSilentGapDb      = 20.0
	thrSpeechDepthDb    = 40.0
	thrPlateauDb        = 3.0
	thrNoPlateauDepth   = 20.0
	SpeechMarginDb      = 24.0
	minPauseFrames      = 50
	bedDepthDb          = 10
	pauseThresholdBinDb = 0.5
)

// SmoothedLevels returns the 10 ms powers of rmsDb averaged over 5 frames
// (50 ms, centred; fewer at the edges), in dB, floor FloorDb.
func SmoothedLevels(rmsDb []float32) []float32 {
	n := len(rmsDb)
	out := make([]float32, n)
	// Each frame's power is computed once, into a ring of the 5 a window
	// spans (math.Pow is most of the cost), and summed in the same order.
	var ring [5]float64
	next := 0
	for i := range out {
		hi := min(i+2, n-1)
		for ; next <= hi; next++ {
			ring[next%5] = math.Pow(10, float64(rmsDb[next])/10)
		}
		s, c := 0.0, 0
		for j := max(i-2, 0); j <= hi; j++ {
			s += ring[j%5]
			c++
		}
		out[i] = float32(FloorDb)
		if m := s / float64(c); m > 1e-12 {
			out[i] = float32(max(10*math.Log10(m), FloorDb))
		}
	}
	return out
}

// quantile32 returns the p-quantile of levels in 0.5 dB bins (the lower
// edge of its bin).
func quantile32(levels []float32, p float64) float64 {
	const lo, hi = FloorDb, 20.0
	var bins [int((hi-lo)/pauseThresholdBinDb) + 1]int
	for _, v := range levels {
		bins[int((min(max(float64(v), lo), hi)-lo)/pauseThresholdBinDb)]++
	}
	target, acc := max(int(math.Ceil(p*float64(len(levels)))), 1), 0
	for b, c := range bins {
		acc += c
		if acc >= target {
			return lo + float64(b)*pauseThresholdBinDb
		}
	}
	return hi
}

// PauseThreshold returns the automatic pause threshold for the 50 ms
// levels lv (SmoothedLevels) and the levels lvl, and whether some stretch of
// at least 0.5 s stays under it. voiced says the input holds a voice
// (VoicedFrames at least 0.2 s), which allows the steady-bed exception.
func PauseThreshold(lv []float32, lvl Levels, voiced bool) (float64, bool) {
	if len(lv) == 0 {
		return lvl.ThresholdDb, false
	}
	floor := quantile32(lv, 0.10)
	open := max(lvl.ThresholdDb, min(floor+thrFloorRaiseDb, lvl.ThresholdDb+thrMaxRaiseDb))
	if floor < lvl.NoiseFloorDb-thrSilentGapDb {
		open = min(open, max(floor+thrSilentGapDb, lvl.SpeechLevelDb-thrSpeechDepthDb))
	}
	plateau := quantile32(lv, 0.25)-floor <= thrPlateauDb
	if !plateau {
		open = min(open, lvl.SpeechLevelDb-thrNoPlateauDepth)
	}
	margin := lvl.SpeechLevelDb - SpeechMarginDb
	if voiced && plateau && lvl.SpeechLevelDb-floor >= bedDepthDb {
		// A voice over a steady bed within the margin: what is quieter
		// than the bed + 6 dB is masked by it, so the threshold may sit
		// there.
		margin = max(margin, floor+thrFloorRaiseDb)
	}
	open = min(open, margin)
	open = min(max(open, minThresholdDb), maxThresholdDb)
	run := 0
	for _, v := range lv {
		if float64(v) < open {
			if run++; run >= minPauseFrames {
				return open, true
			}
		} else {
			run = 0
		}
	}
	return open, false
}
