package plan

import (
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// The references a plan measures speech against, taken from what the
// render keeps.
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
// the speech level is -34.2 dBFS. On the tune part's breath cases
// (TestBreathMix: a 35 Hz blast 25 dB over the speech opening every other
// phrase) the blasts raise the speech level by about 20 dB, and planned
// with the level without them no case clips.
//
// So the speech level and the peak are measured on the levels after the
// filter (dsp.Envelope.HighPassDb, HighPassPeakDb), each the lower of that
// and the full band's: the filter takes energy out of a frame, never
// adds any, but taking a low-frequency swing out of a waveform can raise
// its sample peak (librivox's clip: -7.5 dBFS, -5.1 after the filter;
// picovoice's -3.3 and -2.3), and a higher peak would raise the audible
// bound, cutting more of every decay. The frames the plan decides on and
// the bed stay the full band's (the voice classification, the pause
// threshold and every rule were measured there); without the levels after
// the filter (an analysis stored before them) both references are the
// full band's. On speech without rumble the two speech levels lie within
// a histogram bin (0.5 dB) of each other.

// references returns the speech level and the peak (dBFS) the plan
// measures a's speech against (see above).
func references(a *dsp.Analysis) (speech, peak float64) {
	speech, peak = a.SpeechLevelDb, a.Loudness.SamplePeak
	env := &a.Envelope
	if len(env.HighPassDb) == 0 || len(env.HighPassDb) != len(env.RMSDb) {
		return speech, peak
	}
	if s := dsp.EstimateLevels(env.HighPassDb).SpeechLevelDb; s < speech && !math.IsNaN(s) {
		speech = s
	}
	if p := env.HighPassPeakDb; p < peak && !math.IsNaN(p) {
		peak = p
	}
	return speech, peak
}
