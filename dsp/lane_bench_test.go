package dsp

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// BenchmarkLanes measures the lanes alone (K-weighting, sums of squares,
// peaks and true peak of both channels) on 10 s of 44.1 kHz and of 16 kHz
// stereo speech-like samples per op (at 16 kHz each frame's interpolated
// peak too: framePeakRate), on one goroutine: one lane after the other,
// and both in one pass with the stereo kernel (where the machine has it).
func BenchmarkLanes(b *testing.B) {
	for _, rate := range []int{44100, 16000} {
		for _, pair := range []bool{false, true} {
			name := fmt.Sprintf("%d/%s", rate, map[bool]string{false: "one-by-one", true: "pair"}[pair])
			b.Run(name, func(b *testing.B) { benchLanes(b, rate, pair) })
		}
	}
}

// benchLanes is BenchmarkLanes at one rate, one lane after the other or
// both in one pass.
func benchLanes(b *testing.B, rate int, pair bool) {
	const ch, sec = 2, 10
	if pair && !pairKernel() {
		b.Skip("no stereo kernel on this machine")
	}
	buf := make([]float32, sec*rate*ch)
	fill(newSpeechLike(rate, ch, sec, -20, -60, 3), buf, ch)
	an, _ := newAnalyzer(Format{SampleRate: rate, Channels: ch})
	an.pair = pair
	segs := an.cut(len(buf)/ch, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		an.runLanes(buf, segs, nil)
	}
	b.ReportMetric(float64(sec*b.N)/b.Elapsed().Seconds(), "x_realtime")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*sec*rate*ch), "ns/sample")
}

// TestPairKernelExact runs the stereo kernel (both channels in one pass,
// where the machine has it) and the one-channel lanes on the same
// speech-like stereo, segment by segment, at 48 and 16 kHz: every sum of
// squares, peak, K-weighted energy, sum, largest and smallest value (the
// interpolated ones at 16 kHz), and the filter states, must be equal to
// the bit.
func TestPairKernelExact(t *testing.T) {
	if !pairKernel() {
		t.Skip("no stereo kernel on this machine")
	}
	for _, rate := range []int{48000, 16000} {
		pairKernelExact(t, rate)
	}
}

func pairKernelExact(t *testing.T, rate int) {
	const ch = 2
	buf := make([]float32, 3*rate*ch)
	fill(newSpeechLike(rate, ch, 3, -20, -50, 7), buf, ch)
	buf[1001] = 0.999 // an odd-channel peak
	ref, _ := newAnalyzer(Format{SampleRate: rate, Channels: ch})
	got, _ := newAnalyzer(Format{SampleRate: rate, Channels: ch})
	segs := ref.cut(len(buf)/ch, nil)
	for _, l := range ref.lanes {
		l.fma = true
		l.run(buf, segs)
	}
	runPair(got.lanes[0], got.lanes[1], buf, segs)
	for c := range 2 {
		r, g := ref.lanes[c], got.lanes[c]
		if d := cmp.Diff([][]float64{r.sq, r.pk, r.ke, r.sx, r.hi, r.lo}, [][]float64{g.sq, g.pk, g.ke, g.sx, g.hi, g.lo}); d != "" {
			t.Errorf("%d Hz, channel %d: sums differ (-lane +pair):\n%s", rate, c, d)
		}
		if r.k != g.k || r.tp.max != g.tp.max {
			t.Errorf("%d Hz, channel %d: state %+v / %v, pair %+v / %v", rate, c, r.k, r.tp.max, g.k, g.tp.max)
		}
	}
}
