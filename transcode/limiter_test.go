package transcode

import (
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// sliceSource serves interleaved samples from memory, in reads of at most max frames.
type sliceSource struct {
	f   dsp.Format
	x   []float32
	pos int
	max int
}

func (s *sliceSource) Format() dsp.Format { return s.f }

func (s *sliceSource) Read(p []float32) (int, error) {
	n := min(len(p), len(s.x)-s.pos)
	if s.max > 0 {
		n = min(n, s.max*s.f.Channels)
	}
	n -= n % s.f.Channels
	if n == 0 {
		return 0, io.EOF
	}
	copy(p, s.x[s.pos:s.pos+n])
	s.pos += n
	return n, nil
}

// readSource reads src to the end in reads of buf samples.
func readSource(t testing.TB, src dsp.Source, buf int) []float32 {
	t.Helper()
	var out []float32
	b := make([]float32, buf)
	for {
		n, err := src.Read(b)
		out = append(out, b[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// burstySignal is speech-like material for the limiter: noise bursts at
// levels that change every 50 ms, some far over the ceiling, some under it,
// with isolated clicks and stretches of silence.
func burstySignal(ch, frames int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, ch*frames)
	amp := 0.0
	for i := 0; i < frames; i++ {
		if i%2205 == 0 {
			switch rng.IntN(4) {
			case 0:
				amp = 0
			case 1:
				amp = 0.05
			case 2:
				amp = 0.4
			default:
				amp = 1.6
			}
		}
		for c := 0; c < ch; c++ {
			v := amp * (2*rng.Float64() - 1) * math.Sin(float64(i)*0.05*float64(c+1))
			if rng.IntN(20000) == 0 {
				v = 3 // a click
			}
			x[i*ch+c] = float32(v)
		}
	}
	return x
}

// TestLimiterMatchesReference: the block limiter's output equals the
// per-frame limiter it replaced, sample for sample, for mono and stereo,
// small and large reads, at two look-aheads.
func TestLimiterMatchesReference(t *testing.T) {
	for _, c := range []struct {
		name     string
		ch, read int
		look     float64
	}{
		{"mono/small reads", 1, 37, 0.005},
		{"stereo/4096", 2, 4096, 0.005},
		{"stereo/one frame reads", 2, 1, 0.001},
		{"6ch/1000", 6, 1000, 0.005},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := dsp.Format{SampleRate: 44100, Channels: c.ch}
			x := burstySignal(c.ch, 44100*3+17, 7)
			want := readSource(t, newRefLimiter(&sliceSource{f: f, x: x}, -1.3, c.look), 4096*c.ch)
			got := readSource(t, newLimiter(&sliceSource{f: f, x: x, max: 3000}, -1.3, c.look), c.read*c.ch)
			if len(got) != len(want) || len(got) != len(x) {
				t.Fatalf("got %d samples, reference %d, input %d", len(got), len(want), len(x))
			}
			worst, at := 0.0, 0
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > worst {
					worst, at = d, i
				}
			}
			if worst > 1e-6 {
				t.Errorf("largest difference %.3g at sample %d (got %g, reference %g)", worst, at, got[at], want[at])
			}
		})
	}
}

// BenchmarkLimiter runs 30 s of stereo bursts (a third of them far over
// the ceiling) through the block limiter and the per-frame reference.
func BenchmarkLimiter(b *testing.B) {
	f := dsp.Format{SampleRate: 44100, Channels: 2}
	x := burstySignal(2, 44100*30, 3)
	for _, c := range []struct {
		name string
		mk   func(dsp.Source) dsp.Source
	}{
		{"block", func(s dsp.Source) dsp.Source { return newLimiter(s, -1.3, 0.005) }},
		{"reference", func(s dsp.Source) dsp.Source { return newRefLimiter(s, -1.3, 0.005) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]float32, 4096*2)
			b.ReportAllocs()
			for b.Loop() {
				l := c.mk(&sliceSource{f: f, x: x})
				for {
					if _, err := l.Read(buf); err != nil {
						break
					}
				}
			}
			b.ReportMetric(30*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
		})
	}
}

// TestHighPassStereoMatchesMono: the stereo path of the rumble filter (both
// channels and sections in one loop) gives each channel what the mono path
// gives it alone.
func TestHighPassStereoMatchesMono(t *testing.T) {
	x := burstySignal(2, 44100, 5)
	got := readSource(t, newHighPass(&sliceSource{f: dsp.Format{SampleRate: 44100, Channels: 2}, x: x, max: 1000}, 70), 4096)
	for c := 0; c < 2; c++ {
		mono := make([]float32, len(x)/2)
		for i := range mono {
			mono[i] = x[2*i+c]
		}
		want := readSource(t, newHighPass(&sliceSource{f: dsp.Format{SampleRate: 44100, Channels: 1}, x: mono, max: 777}, 70), 4096)
		for i := range want {
			if d := math.Abs(float64(got[2*i+c] - want[i])); d > 1e-6 {
				t.Fatalf("channel %d frame %d: stereo %g, mono %g", c, i, got[2*i+c], want[i])
			}
		}
	}
}
