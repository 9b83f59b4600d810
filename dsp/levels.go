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
