package dsp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// BenchmarkLanes measures the lanes alone (K-weighting, sums of squares,
// peaks and true peak of both channels) on 10 s of 44.1 kHz stereo
// speech-like samples per op, on one goroutine: one lane after the other,
// and both in one pass with the stereo kernel (where the machine has it).
func BenchmarkLanes(b *testing.B) {
	const rate, ch, sec = 44100, 2, 10
	buf := make([]float32, sec*rate*ch)
	fill(newSpeechLike(rate, ch, sec, -20, -60, 3), buf, ch)
	for _, pair := range []bool{false, true} {
		name := map[bool]string{false: "one-by-one", true: "pair"}[pair]
		b.Run(name, func(b *testing.B) {
			if pair && !pairKernel() {
				b.Skip("no stereo kernel on this machine")
			}
			an, _ := NewAnalyzer(Format{SampleRate: rate, Channels: ch})
			an.pair = pair
			segs := an.cut(len(buf)/ch, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				an.runLanes(buf, segs, nil)
			}
			b.ReportMetric(float64(sec*b.N)/b.Elapsed().Seconds(), "x_realtime")
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*sec*rate*ch), "ns/sample")
		})
	}
}

// TestPairKernelExact runs the stereo kernel (both channels in one pass,
// where the machine has it) and the one-channel lanes on the same
// speech-like stereo, segment by segment: every sum of squares, peak and
// K-weighted energy, and the filter states, must be equal to the bit.
func TestPairKernelExact(t *testing.T) {
	if !pairKernel() {
		t.Skip("no stereo kernel on this machine")
	}
	const rate, ch = 48000, 2
	buf := make([]float32, 3*rate*ch)
	fill(newSpeechLike(rate, ch, 3, -20, -50, 7), buf, ch)
	buf[1001] = 0.999 // an odd-channel peak
	ref, _ := NewAnalyzer(Format{SampleRate: rate, Channels: ch})
	got, _ := NewAnalyzer(Format{SampleRate: rate, Channels: ch})
	segs := ref.cut(len(buf)/ch, nil)
	for _, l := range ref.lanes {
		l.fma = true
		l.run(buf, segs)
	}
	runPair(got.lanes[0], got.lanes[1], buf, segs)
	for c := range 2 {
		r, g := ref.lanes[c], got.lanes[c]
		if d := cmp.Diff([][]float64{r.sq, r.pk, r.ke}, [][]float64{g.sq, g.pk, g.ke}); d != "" {
			t.Errorf("channel %d: sums differ (-lane +pair):\n%s", c, d)
		}
		if r.k != g.k || r.tp.max != g.tp.max {
			t.Errorf("channel %d: state %+v / %v, pair %+v / %v", c, r.k, r.tp.max, g.k, g.tp.max)
		}
	}
}
