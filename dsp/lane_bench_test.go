package dsp

import (
	"testing"
)

// BenchmarkLanes measures the lanes alone (K-weighting, sums of squares,
// peaks and true peak of both channels, one after the other on one
// goroutine) on 10 s of 44.1 kHz stereo speech-like samples per op.
func BenchmarkLanes(b *testing.B) {
	const rate, ch, sec = 44100, 2, 10
	buf := make([]float32, sec*rate*ch)
	src := newSpeechLike(rate, ch, sec, -20, -60, 3)
	fill(src, buf, ch)
	an, _ := NewAnalyzer(Format{SampleRate: rate, Channels: ch})
	segs := an.cut(len(buf)/ch, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range an.lanes {
			l.run(buf, segs)
		}
	}
	b.ReportMetric(float64(sec*b.N)/b.Elapsed().Seconds(), "x_realtime")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*sec*rate*ch), "ns/sample")
}
