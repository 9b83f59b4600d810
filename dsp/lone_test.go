package dsp

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// keystroke adds one keystroke at sample at: a click (white noise decaying
// in 3 ms) over a thump (a 180 Hz tone decaying in 10 ms), amplitude amp.
func keystroke(x []float32, rate, at int, amp float64, r *rand.Rand) {
	for k := 0; k < rate/15 && at+k < len(x); k++ {
		t := float64(k) / float64(rate)
		v := r.NormFloat64()*math.Exp(-t/0.003) + 0.5*math.Sin(2*math.Pi*180*t)*math.Exp(-t/0.01)
		x[at+k] += float32(amp * v)
	}
}

// TestVoiceLoneSounds: over a quiet bed, keystrokes standing alone in a
// real speaker's pauses go to the voice network, which finds them no
// speech: their frames get its codes and NonSpeech puts them in the
// background, while every loud frame of the speech stays speech; the
// first keystroke 100 ms after a word stays level's (quietLoud), and the
// network heard the speech among the loud frames (VoiceHeard). The same
// keystrokes without the speech: nobody speaks, so NonSpeech leaves them
// to level.
func TestVoiceLoneSounds(t *testing.T) {
	raw, rate := readWAVMono(t, filepath.Join(recordings, "fr_asterisk_june_demo-instruct_71s.wav"))
	// The recording's pauses are short: each of 200 ms or more (a run of
	// 10 ms levels under its floor + 6 dB) is lengthened by 1.5 s of
	// digital silence in its middle.
	rl, _ := frameLevels(raw, rate)
	sorted := slices.Clone(rl)
	slices.Sort(sorted)
	rawFloor := sorted[len(sorted)/10]
	fl := rate / 100
	var clean []float32
	var words []int // frames where a pause starts (a word ends), in clean
	var gaps [][2]int
	last := 0
	for f := 0; f < len(rl); {
		if rl[f] >= rawFloor+6 {
			f++
			continue
		}
		g := f
		for g < len(rl) && rl[g] < rawFloor+6 {
			g++
		}
		if g-f >= 20 && f > 0 && g < len(rl) {
			mid := (f + g) / 2
			words = append(words, len(clean)/fl+f-last/fl)
			clean = append(clean, raw[last:mid*fl]...)
			gaps = append(gaps, [2]int{len(clean) / fl, len(clean)/fl + 150})
			clean = append(clean, make([]float32, 150*fl)...)
			last = mid * fl
		}
		f = g
	}
	clean = append(clean, raw[last:]...)
	lvl, top := frameLevels(clean, rate)
	// Keystrokes 150 ms apart over the inserted silence, 400 ms from its
	// ends, 12 dB under the loudest 10 ms of speech; one 100 ms after
	// each word ending a pause, from the third on; a faint noise floor.
	r := rand.New(rand.NewPCG(3, 4))
	amp := math.Pow(10, (top-12)/20)
	speech, keys := slices.Clone(clean), make([]float32, len(clean))
	for i := range keys {
		keys[i] = float32(math.Pow(10, (rawFloor-3)/20) * r.NormFloat64())
	}
	var inPause []int // frames of the keystrokes in the pauses' middles
	var near []int    // the first frame of each keystroke 100 ms after a word
	for p, g := range gaps {
		if p >= 2 {
			keystroke(keys, rate, (words[p]+10)*fl, amp, r)
			near = append(near, words[p]+10)
		}
		for k := g[0] + 40; k+40 <= g[1]; k += 15 {
			keystroke(keys, rate, k*fl, amp*math.Pow(10, (r.Float64()*6-3)/20), r)
			inPause = append(inPause, k, k+1)
		}
	}
	pauses := len(gaps)
	if len(inPause) < 40 || len(near) < 3 {
		t.Fatalf("%d pauses, %d keystroke frames, %d near words: the recording has too few pauses", pauses, len(inPause), len(near))
	}
	for i := range speech {
		speech[i] += keys[i]
	}
	analyse := func(x []float32) *Analysis {
		a, err := Analyze(context.Background(), &sliceSource{Format{SampleRate: rate, Channels: 1}, x}, Info{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := analyse(speech)
	env := &a.Envelope
	lv := SmoothedLevels(env.RMSDb)
	bg := NonSpeech(env, lv, a.SpeechLevelDb, 0, 0)
	if bg == nil {
		t.Fatalf("NonSpeech: nil (heard %d, voiced %d)", env.VoiceHeard, VoicedFrames(env))
	}
	low, out := 0, 0
	for _, f := range inPause {
		if v := env.Voice[f]; v != VoiceLoud && v != VoiceFloor && VoiceScore(v) < voiceLoneMaxP {
			low++
		}
		if bg[f] {
			out++
		}
	}
	lost := 0
	for f, l := range lvl {
		if l > top-20 && bg[f] {
			lost++
		}
	}
	nearKept := 0
	for _, f := range near {
		if env.Voice[f+1] == VoiceLoud && !bg[f+1] {
			nearKept++
		}
	}
	t.Logf("%d pauses; keystroke frames: %d of %d classified under %.1f, %d in the background; loud speech frames in it: %d; keystrokes after a word kept %d of %d; heard %d",
		pauses, low, len(inPause), voiceLoneMaxP, out, lost, nearKept, len(near), env.VoiceHeard)
	// Measured: 78 %; the rest score 0.2-0.5 (the network's scores of the
	// sounds standing alone here run on from 0 to 0.5; the words' are
	// 0.6-1).
	if 10*low < 7*len(inPause) || 10*out < 7*len(inPause) {
		t.Errorf("keystroke frames: %d of %d classified as no speech, %d in the background; want 70 %%", low, len(inPause), out)
	}
	if lost > 0 {
		t.Errorf("%d frames of loud speech in the background", lost)
	}
	// One word (at 27 s) ends in a faint sound of its own 150 ms after it,
	// the first sound after that word: the keystroke after it is no longer
	// the first, and goes to the network.
	if nearKept < len(near)-1 {
		t.Errorf("keystrokes 100 ms after a word: %d of %d left to level", nearKept, len(near))
	}
	if env.VoiceHeard < minVoicedFrames {
		t.Errorf("VoiceHeard %d, want %d or more", env.VoiceHeard, minVoicedFrames)
	}
	k := analyse(keys)
	if k.Envelope.VoiceHeard != 0 || NonSpeech(&k.Envelope, SmoothedLevels(k.Envelope.RMSDb), k.SpeechLevelDb, 0, 0) != nil {
		t.Errorf("keystrokes alone: heard %d, NonSpeech not nil", k.Envelope.VoiceHeard)
	}
}
