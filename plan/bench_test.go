package plan

import (
	"math/rand/v2"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// speechLikeEnvelope returns n frames alternating speech (-30..-15 dB) and
// pauses (-60 dB noise) of random lengths, like a long recording.
func speechLikeEnvelope(n int) *dsp.Analysis {
	r := rand.New(rand.NewPCG(7, 7))
	rms := make([]float32, n)
	peak := make([]float32, n)
	for i := 0; i < n; {
		speech := r.IntN(400) + 20 // 0.2 to 4.2 s
		pause := r.IntN(150) + 5   // 50 ms to 1.55 s
		for k := 0; k < speech && i < n; k, i = k+1, i+1 {
			rms[i] = float32(-30 + 15*r.Float64())
			peak[i] = rms[i] + 6
		}
		for k := 0; k < pause && i < n; k, i = k+1, i+1 {
			rms[i] = float32(-60 + 2*r.NormFloat64())
			peak[i] = rms[i] + 10
		}
	}
	return &dsp.Analysis{
		Input:         dsp.Info{Duration: float64(n) * 0.01},
		NoiseFloorDb:  -61,
		SpeechLevelDb: -16,
		ThresholdDb:   -45,
		Envelope:      dsp.Envelope{FrameSec: 0.01, RMSDb: rms, PeakDb: peak},
	}
}

// BenchmarkMake3h plans a 3-hour envelope (1.08 M frames) with the default
// preset and a few hundred filler cuts. Required: under 50 ms per plan.
func BenchmarkMake3h(b *testing.B) {
	a := speechLikeEnvelope(3 * 3600 * 100)
	var extra []Cut
	for t := 5.0; t < 3*3600; t += 37 {
		extra = append(extra, Cut{Start: t, End: t + 0.3, Reason: ReasonFiller})
	}
	p := DefaultPreset().Params
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		pl, err := Make(a, p, extra)
		if err != nil || len(pl.Cuts) < 1000 {
			b.Fatalf("%v, %d cuts", err, len(pl.Cuts))
		}
	}
}

// TestDBTable checks the table conversions against math within 0.005 dB.
func TestDBTable(t *testing.T) {
	tb := newDBTable()
	for db := -119.99; db < 19.99; db += 0.0731 {
		if got := tb.db(tb.power(db)); got < db-0.006 || got > db+0.006 {
			t.Fatalf("db(power(%v)) = %v", db, got)
		}
	}
}

// TestVoicedShare checks voicedShare's byte comparison against
// dsp.VoiceScore on every code, and the share over a mix of codes.
func TestVoicedShare(t *testing.T) {
	for v := range 256 {
		m := maker{env: &dsp.Envelope{Voice: []uint8{uint8(v)}}}
		want := 0.0
		if v == int(dsp.VoiceLoud) || v != int(dsp.VoiceFloor) && dsp.VoiceScore(uint8(v)) >= voicedScore {
			want = 1
		}
		if got := m.voicedShare(); got != want {
			t.Errorf("code %d: voicedShare %v, want %v", v, got, want)
		}
	}
	tests := []struct {
		voice []uint8
		want  float64
	}{
		{nil, 0},
		{[]uint8{dsp.VoiceFloor, dsp.VoiceFloor}, 0},
		{[]uint8{dsp.VoiceFloor, dsp.VoiceLoud, 1, 254, 100}, 0.5},
	}
	for _, tc := range tests {
		m := maker{env: &dsp.Envelope{Voice: tc.voice}}
		if got := m.voicedShare(); got != tc.want {
			t.Errorf("%v: voicedShare %v, want %v", tc.voice, got, tc.want)
		}
	}
}

// BenchmarkMake3hVoiced plans the 3-hour envelope of BenchmarkMake3h with a
// voice classification on every frame (as over a loud bed, where the
// network scores everything): speech frames scored 0.9, pause frames 0.05.
// The voice rules run (dsp.NonSpeech with the podcast preset's faint-voice
// depth: the speaker's level, its tracking, the faint-voice stretches);
// what they cost over BenchmarkMake3h is the plan-time price of the
// classification.
func BenchmarkMake3hVoiced(b *testing.B) {
	a := speechLikeEnvelope(3 * 3600 * 100)
	a.Envelope.Voice = make([]uint8, len(a.Envelope.RMSDb))
	for i, v := range a.Envelope.RMSDb {
		p := 0.05
		if v > -40 {
			p = 0.9
		}
		a.Envelope.Voice[i] = uint8(1 + 253*p)
	}
	p := DefaultPreset().Params
	p.Crosstalk = CrosstalkCut
	if m := dsp.NonSpeech(&a.Envelope, dsp.SmoothedLevels(a.Envelope.RMSDb), a.SpeechLevelDb, CrosstalkDepthDb, 0); m == nil {
		b.Fatal("the voice rules do not run on this envelope")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		pl, err := Make(a, p, nil)
		if err != nil || len(pl.Cuts) < 1000 {
			b.Fatalf("%v, %d cuts", err, len(pl.Cuts))
		}
	}
}
