package transcribe

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mjibson/go-dsp/fft"
	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/autocut-dev/autocut/dsp"
)

var acousticHours = flag.Float64("acoustic.hours", 3, "BenchmarkAcousticLong: hours of generated audio")

// toneStream generates speech-like audio without a file: 300 ms voiced
// bursts with a gliding pitch, 300 ms steady "uh"s, and pauses, at 44.1 kHz
// stereo.
type toneStream struct {
	rate, total, pos int
	phase            float64
	noise            uint32
}

func (s *toneStream) Format() dsp.Format { return dsp.Format{SampleRate: s.rate, Channels: 2} }
func (s *toneStream) Info() dsp.Info {
	return dsp.Info{Duration: float64(s.total) / float64(s.rate), SampleRate: s.rate, Channels: 2}
}
func (s *toneStream) Close() error { return nil }
func (s *toneStream) Read(p []float32) (int, error) {
	n := 0
	for ; n+1 < len(p) && s.pos < s.total; n += 2 {
		t := float64(s.pos) / float64(s.rate)
		cycle := math.Mod(t, 2.0)
		f, amp := 0.0, 0.0
		switch {
		case cycle < 0.9: // a "word": pitch glides 120 -> 200 Hz
			f, amp = 120+80*cycle/0.9, 0.3
		case cycle >= 1.2 && cycle < 1.5: // a steady filled pause
			f, amp = 140, 0.25
		}
		s.phase += 2 * math.Pi * f / float64(s.rate)
		var v float64
		for k := 1.0; k <= 12; k++ { // a voice's harmonics
			v += amp / k * math.Sin(k*s.phase)
		}
		s.noise = s.noise*1664525 + 1013904223 // a quiet room: noise at about -70 dBFS
		v += (float64(s.noise)/(1<<32) - 0.5) * 0.001
		p[n], p[n+1] = float32(v), float32(v)
		s.pos++
	}
	if s.pos >= s.total {
		return n, io.EOF
	}
	return n, nil
}

// BenchmarkAcousticLong runs the acoustic detector over generated audio
// (3 hours by default) and reports its speed and the peak heap: per-frame
// features are 24 bytes per 10 ms, so the heap grows by about 9 MB per
// hour and holds no samples.
func BenchmarkAcousticLong(b *testing.B) {
	rate := 44100
	total := int(*acousticHours * 3600 * float64(rate))
	for range b.N {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Millisecond):
				}
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}()
		a := &Acoustic{}
		t0 := time.Now()
		feats, hop, err := a.features(context.Background(), &toneStream{rate: rate, total: total}, nil)
		if err != nil {
			b.Fatal(err)
		}
		found := a.detect(feats, hop)
		el := time.Since(t0)
		close(stop)
		heapMB := float64(peak.Load()-min(peak.Load(), base.HeapInuse)) / (1 << 20)
		b.ReportMetric(*acousticHours*3600/el.Seconds(), "x-realtime")
		b.ReportMetric(heapMB, "peak-heap-MB")
		b.Logf("%.1f h: %v, %.0fx realtime, %d frames, %d filled pauses, peak heap +%.1f MB", *acousticHours, el.Round(time.Millisecond),
			*acousticHours*3600/el.Seconds(), len(feats), len(found), heapMB)
	}
}

// BenchmarkFFT compares the real FFT the detector uses (gonum, buffers
// preallocated) with go-dsp's FFTReal, which it replaced, at the detector's
// two sizes.
func BenchmarkFFT(b *testing.B) {
	for _, n := range []int{512, 1024} {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Sin(float64(i) * 0.1)
		}
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			f := fourier.NewFFT(n)
			dst := make([]complex128, n/2+1)
			b.ReportAllocs()
			for b.Loop() {
				f.Coefficients(dst, x)
			}
		})
		b.Run(fmt.Sprintf("go-dsp/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fft.FFTReal(x)
			}
		})
	}
}

// TestAcousticFrameNoAlloc checks that the detector's per-frame work (the
// two gonum FFTs of the autocorrelation, the band levels) allocates
// nothing: its scratch is made once per input.
func TestAcousticFrameNoAlloc(t *testing.T) {
	const rate, win = 8820, 512 // 44.1 kHz decimated by 5, 40 ms rounded up
	fs := newFrameScratch(win, rate)
	x := make([]float64, win)
	for i := range x {
		x[i] = 0.1 * math.Sin(float64(i)*0.2) * (1 + 0.3*math.Sin(float64(i)*0.013))
	}
	fs.measure(x, true)
	if n := testing.AllocsPerRun(200, func() { fs.measure(x, false) }); n != 0 {
		t.Errorf("%.1f allocations per frame, want 0", n)
	}
}

// BenchmarkAcousticFrame measures the detector's work for one 10 ms frame
// (x_realtime: 10 ms of audio per op), allocations included.
func BenchmarkAcousticFrame(b *testing.B) {
	const rate, win = 8820, 512
	fs := newFrameScratch(win, rate)
	x := make([]float64, win)
	for i := range x {
		x[i] = 0.1 * math.Sin(float64(i)*0.2)
	}
	b.ReportAllocs()
	for b.Loop() {
		fs.measure(x, false)
	}
	b.ReportMetric(0.01*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
}
