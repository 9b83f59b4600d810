package dsp

import (
	"encoding/json"
	"math"
)

// EnvelopeFrameSec is the length of an envelope frame: 10 ms.
const EnvelopeFrameSec = 0.01

// FloorDb is the lowest level the envelope and the level estimates report.
const FloorDb = -120.0

// dbOfPower converts a mean square to dB (floor FloorDb).
func dbOfPower(ms float64) float32 {
	if ms <= 1e-12 {
		return FloorDb
	}
	return float32(max(10*math.Log10(ms), FloorDb))
}

// dbOfAmplitude converts an absolute sample value to dBFS (floor FloorDb).
func dbOfAmplitude(v float64) float32 {
	if v <= 1e-6 {
		return FloorDb
	}
	return float32(max(20*math.Log10(v), FloorDb))
}

// MarshalJSON writes the envelope's summary, {"frameSec", "frames"}; the
// levels themselves stay out of JSON (a 3-hour input has a million frames).
func (e Envelope) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		FrameSec float64 `json:"frameSec"`
		Frames   int     `json:"frames"`
	}{e.FrameSec, len(e.RMSDb)})
}

// At returns the envelope frame index holding time t (seconds), clamped to
// the envelope.
func (e *Envelope) At(t float64) int {
	if len(e.RMSDb) == 0 || e.FrameSec <= 0 {
		return 0
	}
	i := int(t / e.FrameSec)
	return min(max(i, 0), len(e.RMSDb)-1)
}
