package dsp

import (
	"io"
	"math"
	"math/rand/v2"
)

// Test signal generators: Sources synthesised sample by sample, never
// buffered whole, so hour-long inputs cost no memory.

// tone is one segment of a synthetic signal: a sine of freq Hz whose peak
// level in each channel is dbfs[c] (math.Inf(-1) for silence).
type tone struct {
	sec  float64
	freq float64
	dbfs []float64
}

// synth is a Source playing tones one after another with continuous phase.
// Segment boundaries are at round(cumulative seconds * rate) samples.
type synth struct {
	f      Format
	tones  []tone
	ends   []int64 // end sample of each tone
	gains  [][]float64
	phase  float64 // start phase, radians
	fade   int64   // linear fade in/out length in samples
	quant  int     // 0: float; 16 or 32: round to that many bits like an integer source
	pos    int64
	cur    int
	length int64
}

func newSynth(rate, channels int, tones ...tone) *synth {
	s := &synth{f: Format{SampleRate: rate, Channels: channels}, tones: tones}
	t := 0.0
	for _, tn := range tones {
		t += tn.sec
		s.ends = append(s.ends, int64(math.Round(t*float64(rate))))
		g := make([]float64, channels)
		for c := range g {
			d := tn.dbfs[min(c, len(tn.dbfs)-1)]
			if !math.IsInf(d, -1) {
				g[c] = math.Pow(10, d/20)
			}
		}
		s.gains = append(s.gains, g)
	}
	s.length = s.ends[len(s.ends)-1]
	return s
}

// stereo returns n copies of level for all channels.
func lv(level float64) []float64 { return []float64{level} }

func (s *synth) Format() Format { return s.f }

func (s *synth) Read(p []float32) (int, error) {
	ch := s.f.Channels
	n := 0
	w := 2 * math.Pi / float64(s.f.SampleRate)
	for n+ch <= len(p) && s.pos < s.length {
		for s.pos >= s.ends[s.cur] {
			s.cur++
		}
		tn := s.tones[s.cur]
		v := math.Sin(w*tn.freq*float64(s.pos) + s.phase)
		if s.fade > 0 {
			if s.pos < s.fade {
				v *= float64(s.pos) / float64(s.fade)
			} else if r := s.length - 1 - s.pos; r < s.fade {
				v *= float64(r) / float64(s.fade)
			}
		}
		for c := 0; c < ch; c++ {
			p[n+c] = s.quantize(v * s.gains[s.cur][c])
		}
		n += ch
		s.pos++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (s *synth) quantize(v float64) float32 {
	switch s.quant {
	case 16:
		return float32(math.Round(v*32767) / 32768)
	case 32:
		return float32(math.Round(v*2147483647) / 2147483648)
	}
	return float32(v)
}

// speechLike is a Source of speech-like bursts over steady noise: syllables
// of band-limited noise modulated at about 4 Hz, grouped in phrases with
// pauses, mixed over white noise at noiseDb RMS. Speech frames have an RMS
// near speechDb. Deterministic for a seed.
type speechLike struct {
	f        Format
	length   int64
	pos      int64
	rng      *rand.Rand
	noiseAmp float64 // white noise std dev
	speech   float64 // speech RMS amplitude
	lp       float64 // one-pole low-pass state for the "voice" noise
	talking  bool
	next     int64 // when talking flips
	sylLen   int64
	sylPos   int64
	sylGain  float64
}

func newSpeechLike(rate, channels int, sec, speechDb, noiseDb float64, seed uint64) *speechLike {
	s := &speechLike{
		f:        Format{SampleRate: rate, Channels: channels},
		length:   int64(sec * float64(rate)),
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		noiseAmp: math.Pow(10, noiseDb/20),
		speech:   math.Pow(10, speechDb/20),
	}
	return s
}

func (s *speechLike) Format() Format { return s.f }

func (s *speechLike) Read(p []float32) (int, error) {
	ch := s.f.Channels
	rate := float64(s.f.SampleRate)
	n := 0
	for n+ch <= len(p) && s.pos < s.length {
		if s.pos >= s.next {
			s.talking = !s.talking
			if s.talking { // phrase 1.5-4 s
				s.next = s.pos + int64((1.5+2.5*s.rng.Float64())*rate)
			} else { // pause 0.4-1.2 s
				s.next = s.pos + int64((0.4+0.8*s.rng.Float64())*rate)
			}
			s.sylPos, s.sylLen = 0, 0
		}
		v := 0.0
		if s.talking {
			if s.sylPos >= s.sylLen { // syllable 120-300 ms, level +/-4 dB
				s.sylLen = int64((0.12 + 0.18*s.rng.Float64()) * rate)
				s.sylPos = 0
				s.sylGain = math.Pow(10, (8*s.rng.Float64()-4)/20)
			}
			// Voice-like: low-passed noise; the raised-sine syllable shape has
			// mean square 3/8, so scale to speech RMS over the syllable.
			s.lp += 0.3 * (s.rng.NormFloat64() - s.lp)
			env := math.Sin(math.Pi * float64(s.sylPos) / float64(s.sylLen))
			v = s.lp / 0.42 * env * env * s.speech * s.sylGain / math.Sqrt(3.0/8)
			s.sylPos++
		}
		for c := 0; c < ch; c++ {
			p[n+c] = float32(v + s.noiseAmp*s.rng.NormFloat64())
		}
		n += ch
		s.pos++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
