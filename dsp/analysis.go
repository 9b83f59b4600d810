package dsp

import "slices"

// Loudness holds EBU R128 measurements. Values are LUFS, LU or dB;
// -inf (math.Inf(-1)) where the programme is silent.
type Loudness struct {
	Integrated   float64 `json:"integrated"`   // LUFS, gated (-70 LUFS absolute, -10 LU relative)
	Range        float64 `json:"range"`        // LU, EBU Tech 3342
	TruePeak     float64 `json:"truePeak"`     // dBTP
	SamplePeak   float64 `json:"samplePeak"`   // dBFS
	MomentaryMax float64 `json:"momentaryMax"` // LUFS, 400 ms
	ShortTermMax float64 `json:"shortTermMax"` // LUFS, 3 s
}

// Envelope is the RMS and peak level of all channels in fixed frames,
// with each channel's DC offset, where one stands out, taken out (see
// offset.go): the levels of what is heard.
type Envelope struct {
	FrameSec float64   `json:"frameSec"` // frame length in seconds (0.01)
	RMSDb    []float32 `json:"-"`        // RMS level per frame, dBFS (floor -120)
	PeakDb   []float32 `json:"-"`        // peak per frame, dBFS (floor -120): the sample peak, or under 32 kHz the 2x-interpolated one (framePeakRate), measured from the offset
	// Voice is the voice classification of each frame (see voice.go):
	// VoiceFloor, VoiceLoud, or 1 + 253 x the speech probability where
	// level could not decide. Empty when unknown (an analysis from before it existed).
	Voice []uint8 `json:"-"`
	// VoiceHeard counts the frames over a quiet bed, decided loud by
	// level (VoiceLoud), that the network heard as speech: at most
	// 40, from the first 300 such frames it hears (see voice.go).
	VoiceHeard int `json:"-"`
	// BandFrames lists the frames whose spectrum was measured (those the
	// voice network classified; see bands.go), ascending, and Bands holds
	// their band levels as BandCode gives them: BandCount codes each, frame
	// BandFrames[k] at Bands[k*BandCount:(k+1)*BandCount]. Empty when none
	// was measured, or unknown.
	BandFrames []int32 `json:"-"`
	Bands      []uint8 `json:"-"`
	// HighPassDb is the RMS level per frame after the rumble filter
	// (RumbleHz, rumble.go; dBFS, floor -120), and HighPassPeakDb the
	// input's sample peak after it (dBFS; -Inf for silence): the levels
	// every preset's render keeps. Empty and 0 when unknown (an analysis
	// stored before they existed).
	HighPassDb     []float32 `json:"-"`
	HighPassPeakDb float64   `json:"-"`
}

// FrameBands returns the band codes of frame i (BandCount of them), or
// nil where its spectrum was not measured.
func (e *Envelope) FrameBands(i int) []uint8 {
	k, ok := slices.BinarySearch(e.BandFrames, int32(i))
	if !ok || len(e.Bands) < (k+1)*BandCount {
		return nil
	}
	return e.Bands[k*BandCount : (k+1)*BandCount]
}

// Frames returns the number of envelope frames.
func (e *Envelope) Frames() int { return len(e.RMSDb) }

// Analysis is the result of one streaming pass over an input.
type Analysis struct {
	Input         Info     `json:"input"`
	Loudness      Loudness `json:"loudness"`
	NoiseFloorDb  float64  `json:"noiseFloorDb"`  // the background's level (BackgroundDb; FloorDb: digital silence)
	SpeechLevelDb float64  `json:"speechLevelDb"` // the programme's (EstimateLevels)
	ThresholdDb   float64  `json:"thresholdDb"`   // the automatic pause threshold (PauseThreshold), the one the planner uses
	Envelope      Envelope `json:"envelope"`
	// Warnings say what the analysis found odd, such as a file with no
	// pause at all (WarnNoPauses) or a WAV or MP3 holding less than its
	// header or Xing tag gives (WarnTruncated).
	Warnings []string `json:"warnings,omitempty"`

	// Blocks are the channel-weighted mean-square K-weighted energies of
	// consecutive 100 ms blocks, kept so that LoudnessOf can measure any set
	// of time ranges without decoding again.
	Blocks []float64 `json:"-"`
	// BlockSec is the block length in seconds (0.1).
	BlockSec float64 `json:"-"`
}
