package dsp

import "testing"

func TestZZVoiceFrac(t *testing.T) {
	a := analyzeSynth(t, newSpeechLike(44100, 2, 60, -20, -60, 3))
	c := map[string]int{}
	for _, v := range a.Envelope.Voice {
		switch v {
		case VoiceFloor:
			c["floor"]++
		case VoiceLoud:
			c["loud"]++
		default:
			c["classified"]++
			if VoiceScore(v) > 0.5 {
				c["voiced"]++
			}
		}
	}
	t.Log(len(a.Envelope.Voice), len(a.Envelope.RMSDb), c)
}
