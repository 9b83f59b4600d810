package dsp

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestVoiceStereoPolarity analyses real speech over a noisy bed (where the
// voice network decides) as stereo in several channel layouts and checks
// the network heard it as it hears the mono mix: a channel in opposite
// polarity (a cable wired the other way round) must not silence the
// network's input, and only such a file is warned about.
func TestVoiceStereoPolarity(t *testing.T) {
	clean, rate := readWAVMono(t, filepath.Join(recordings, "fr_asterisk_june_demo-instruct_71s.wav"))
	_, top := frameLevels(clean, rate)
	mix := withRedBed(clean, top-12)
	other, _ := readWAVMono(t, filepath.Join(recordings, "en_asterisk_allison_demo-instruct_73s.wav"))
	analyse := func(ch int, s []float32) *Analysis {
		t.Helper()
		a, err := Analyze(context.Background(), &sliceSource{Format{SampleRate: rate, Channels: ch}, s}, Info{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	mono := analyse(1, mix)
	stereo := func(r func(i int, x float32) float32) []float32 {
		s := make([]float32, 2*len(mix))
		for i, x := range mix {
			s[2*i], s[2*i+1] = x, r(i, x)
		}
		return s
	}
	half := len(mix) / 2
	for _, tc := range []struct {
		name     string
		s        []float32
		maxDiff  int // frames where its voice codes and the mono analysis's are clearly apart
		warn     bool
		listened bool // the network's decisions are compared
	}{
		{name: "the same on both", s: stereo(func(_ int, x float32) float32 { return x }), listened: true},
		{name: "right inverted", s: stereo(func(_ int, x float32) float32 { return -x }), warn: true, listened: true},
		// An offset on one side: the difference's offset is taken out as
		// the sum's is. The offset tracker takes out what stands out of
		// the red bed's wander, which moves the envelope's quietest
		// frames (floor or not) by as much either way: 195 and 224
		// frames (of 7075) apart from the mono analysis, measured.
		{name: "right inverted, offset", s: stereo(func(i int, x float32) float32 { return -x - 0.01 }), maxDiff: 300, warn: true, listened: true},
		{name: "the same on both, offset", s: stereo(func(i int, x float32) float32 { return x - 0.01 }), maxDiff: 300, listened: true},
		// Wired one way, then the other (two takes joined): the
		// network follows within its memory of about 1 s.
		{name: "right inverted halfway", s: stereo(func(i int, x float32) float32 {
			if i < half {
				return x
			}
			return -x
		}), maxDiff: 50, listened: true},
		// Two different signals (a speaker on each side): no warning.
		{name: "another voice on the right", s: stereo(func(i int, _ float32) float32 { return other[i%len(other)] * 0.3 })},
	} {
		a := analyse(2, tc.s)
		if got := hasWarning(a, WarnOppositePolarity); got != tc.warn {
			t.Errorf("%s: warned %v, want %v (%q)", tc.name, got, tc.warn, a.Warnings)
		}
		if !tc.listened {
			continue
		}
		ref := mono
		diff, speech := 0, 0
		for f, v := range ref.Envelope.Voice {
			w := a.Envelope.Voice[f]
			if VoiceScore(v) >= 0.5 {
				speech++
			}
			if clearlyApart(v, w) {
				diff++
			}
		}
		t.Logf("%s: %d of %d frames differ from the mono analysis (%d speech)", tc.name, diff, len(ref.Envelope.Voice), speech)
		if speech < 1000 {
			t.Fatalf("%s: the mono analysis finds %d frames of speech: the case does not test the network", tc.name, speech)
		}
		if diff > tc.maxDiff {
			t.Errorf("%s: %d frames differ from the mono analysis, want at most %d", tc.name, diff, tc.maxDiff)
		}
	}
}

// clearlyApart reports whether voice codes v and w disagree: one a floor
// frame and the other not, or speech probabilities apart by more than 0.5
// (the network's scores near 0.5 move with the last bit of its input).
func clearlyApart(v, w uint8) bool {
	if (v == VoiceFloor) != (w == VoiceFloor) {
		return true
	}
	return math.Abs(min(VoiceScore(v), 1)-min(VoiceScore(w), 1)) > 0.5
}

// TestStereoDownmixOffsets checks the two downmixes the voice detector
// keeps of a stereo input leave out their own offsets: the offset tracker
// gives (L+R)/2's and (L-R)/2's, and the detector takes each out of its
// ring, and out of the samples before the first estimate once it comes.
func TestStereoDownmixOffsets(t *testing.T) {
	const rate = 16000
	// Noise 40 dB under full scale, the left channel 0.02 over zero, the
	// right 0.03 under.
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 2*rate*3)
	for i := range x {
		x[i] = float32(0.01 * r.NormFloat64())
		if i%2 == 0 {
			x[i] += 0.02
		} else {
			x[i] -= 0.03
		}
	}
	a, err := newAnalyzer(Format{SampleRate: rate, Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Write(x); err != nil {
		t.Fatal(err)
	}
	dc := a.off.downmix()
	if math.Abs(float64(dc.mean)+0.005) > 0.001 || math.Abs(float64(dc.side)-0.025) > 0.001 {
		t.Errorf("offsets %+v, want mean -0.005 and side 0.025", dc)
	}
	v := a.voice
	var mean, side float64
	for i := range v.n {
		mean += float64(v.ring[i&v.mask])
		side += float64(v.side[i&v.mask])
	}
	mean /= float64(v.n)
	side /= float64(v.n)
	if math.Abs(mean) > 0.001 || math.Abs(side) > 0.001 {
		t.Errorf("the downmixes' means are %.4f and %.4f after their offsets are taken out, want 0", mean, side)
	}
	// Uncorrelated channels: with the offsets left in, their difference
	// would outweigh their sum 25 to 1, and read as opposite polarity.
	if c := (v.pol.mid - v.pol.dif) / (v.pol.mid + v.pol.dif); math.Abs(c) > 0.1 {
		t.Errorf("channels of uncorrelated noise correlate %.2f", c)
	}
	if a.Result(Info{}); a.voice.invertedInput() {
		t.Error("channels of uncorrelated noise read as in opposite polarity")
	}
}
