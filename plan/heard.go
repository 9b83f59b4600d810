package plan

import (
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// The references a plan measures speech against, taken from what the
// render keeps where the rumble sets them.
//
// Every preset renders through the rumble filter (dsp.RumbleHz), and what
// lies under it is not heard: breath blown on the microphone, handling
// noise, a plosive's pop. Yet it can set the input's sample peak and its
// speech level (the 95th percentile of the 10 ms levels), which the plan
// measures words against: the audible bound (the peak less
// audibleDepthDb), the faint-voice rule, the edge and short-island rules.
// MFA's speaker with a cold (cold_corpus, report part) blows sub-100 Hz
// blasts that put his sample peak at -3.7 dBFS and his speech level at
// -24.2 dBFS, while his words stand at -32 to -49 dB; after the filter
// the speech level is -34.2 dBFS and the peak -6.5 dBFS. On the tune
// part's breath cases (TestBreathMix: a 35 Hz blast 15 or 25 dB over the
// speech opening every other phrase) the blasts raise the speech level by
// 8.5 to 19.5 dB, and 4 of the 18 cases at 25 dB clipped words (up to
// 3270 ms).
//
// So where the speech level after the filter (dsp.Envelope.HighPassDb)
// lies rumbleSetsLevelDb or more under the full band's, the rumble sets
// it, and the plan takes the speech level and the peak after the filter
// (HighPassPeakDb; the lower of it and the full band's: taking a low
// swing out of a waveform can raise its sample peak, librivox's clip
// -7.5 dBFS to -5.1, and a higher peak would raise the audible bound).
// Elsewhere both stay the full band's, on which every rule was measured:
// a bed's or a voice's own low end moves the speech level a little
// (picovoice's by 0.5 dB), and the rules that set the speech level
// against a bed measured on the full band (the spectrum rule's bandSNRDb,
// edgeStrictMinDb) would read a bass-heavy bed as nearer the speech (with
// the levels after the filter for every input, 3 of the report part's 130
// conversation cases lost 30-95 ms more of the quieter voice). The frames
// the plan decides on, the bed and the pause threshold are always the
// full band's. An analysis without the levels after the filter (stored
// before them) keeps the full band's references.

// rumbleSetsLevelDb: the rumble sets the speech level where the full
// band's lies this far or more over the level after the filter. The tune
// part's recordings and mixes (TestBreathMix's cases as they are,
// TestConversationMix's) move by 0 to 0.5 dB, its breath cases by 8.5
// dB or more; 3 dB is six of the level histogram's bins.
const rumbleSetsLevelDb = 3.0

// references returns the speech level and the peak (dBFS) the plan
// measures a's speech against (see above).
func references(a *dsp.Analysis) (speech, peak float64) {
	speech, peak = a.SpeechLevelDb, a.Loudness.SamplePeak
	env := &a.Envelope
	if len(env.HighPassDb) == 0 || len(env.HighPassDb) != len(env.RMSDb) {
		return speech, peak
	}
	s := dsp.EstimateLevels(env.HighPassDb).SpeechLevelDb
	if !(speech-s >= rumbleSetsLevelDb) {
		return speech, peak
	}
	if p := env.HighPassPeakDb; p < peak && !math.IsNaN(p) {
		peak = p
	}
	return s, peak
}
