package dsp

import (
	"context"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// readAll returns what src gives, to its end.
func readAll(t testing.TB, src Source) []float32 {
	t.Helper()
	var out []float32
	buf := make([]float32, 4096*src.Format().Channels)
	for {
		n, err := src.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestAnalyzeTracksSameAsAnalyze: each channel of a 3-channel input,
// measured by AnalyzeTracks, is measured as Analyze measures it alone.
func TestAnalyzeTracksSameAsAnalyze(t *testing.T) {
	const rate, sec, n = 16000, 12, 3
	mono := make([][]float32, n)
	for k := range mono {
		mono[k] = readAll(t, newSpeechLike(rate, 1, sec, -20-4*float64(k), -60+5*float64(k), uint64(k+1)))
	}
	inter := make([]float32, 0, n*len(mono[0]))
	for i := range mono[0] {
		for k := range mono {
			inter = append(inter, mono[k][i])
		}
	}
	ctx := context.Background()
	var last float64
	got, err := AnalyzeTracks(ctx, &sliceSource{Format{rate, n}, inter}, Info{Name: "three.wav", Frames: int64(len(mono[0]))}, func(f float64) {
		if f < last {
			t.Errorf("progress %v after %v", f, last)
		}
		last = f
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || last != 1 {
		t.Fatalf("%d analyses, last progress %v", len(got), last)
	}
	for k := range mono {
		want, err := Analyze(ctx, &sliceSource{Format{rate, 1}, mono[k]}, Info{Name: got[k].Input.Name, Frames: int64(len(mono[k]))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got[k], cmpopts.EquateNaNs()); d != "" {
			t.Errorf("track %d differs from its channel analysed alone (-Analyze +AnalyzeTracks):\n%s", k+1, d)
		}
		if got[k].Input.Name != "three.wav#"+string(rune('1'+k)) || got[k].Input.Channels != 1 {
			t.Errorf("track %d input %+v", k+1, got[k].Input)
		}
	}
}

// TestAnalyzeTracksErrors: too many channels, a source that fails and a
// cancelled context are errors, and no goroutine is left behind.
func TestAnalyzeTracksErrors(t *testing.T) {
	boom := errors.New("boom")
	before := runtime.NumGoroutine()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		src  Source
		want error
	}{
		{"17 channels", context.Background(), &sliceSource{Format{16000, 17}, make([]float32, 17*1600)}, ErrUnsupportedFormat},
		{"source fails", context.Background(), &errSource{f: Format{16000, 2}, frames: 100000, err: boom}, boom},
		{"bad rate", context.Background(), &sliceSource{Format{100, 2}, make([]float32, 200)}, ErrUnsupportedFormat},
		{"cancelled", cancelled, &errSource{f: Format{16000, 2}, frames: 1 << 30}, context.Canceled},
	} {
		as, err := AnalyzeTracks(c.ctx, c.src, Info{Name: c.name}, nil)
		if !errors.Is(err, c.want) || as != nil {
			t.Errorf("%s: %v, %v; want nil, %v", c.name, as, err, c.want)
		}
	}
	if _, err := AnalyzeTracks(context.Background(), nil, Info{}, nil); err == nil {
		t.Error("nil source: no error")
	}
	// The tracks' goroutines end with AnalyzeTracks (give the runtime a
	// moment to retire them).
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after, %d before", g, before)
	}
}

// BenchmarkTracks3h analyses 3 hours of a 4-track recording (4 channels
// at 48 kHz streamed from a generator's looped pattern, each channel its
// own voice over its own bed) with AnalyzeTracks, and reports the peak
// heap in use while it runs and the speed (hours of 4-track audio per
// hour of wall time). Measured once on the shared 2-core machine (load
// 7-10): 397 s, 27x realtime (108x per track), 109.8 MB peak heap, 189 MB
// allocated in 1814 allocations: the four envelopes with their spectra,
// which grow with the input, and the split's 1 MB of blocks.
func BenchmarkTracks3h(b *testing.B) {
	const rate, n, sec = 48000, 4, 3 * 3600
	const patSec = 13
	mono := make([][]float32, n)
	for k := range mono {
		mono[k] = readAll(b, newSpeechLike(rate, 1, patSec, -20-3*float64(k), -60+4*float64(k), uint64(k+11)))
	}
	pat := make([]float32, 0, n*len(mono[0]))
	for i := range mono[0] {
		for k := range mono {
			pat = append(pat, mono[k][i])
		}
	}
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		probe := &memProbe{Source: &loopSource{f: Format{rate, n}, pattern: pat, left: int64(sec) * rate * n}}
		as, err := AnalyzeTracks(context.Background(), probe, Info{Name: "bench", Frames: int64(sec) * rate}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(as) != n || as[n-1].Input.Duration != sec {
			b.Fatalf("%d tracks, %v s", len(as), as[n-1].Input.Duration)
		}
		peak = max(peak, probe.peakHeap)
	}
	b.ReportMetric(float64(peak)/1e6, "MB_peak_heap")
	b.ReportMetric(float64(sec*b.N)/b.Elapsed().Seconds(), "x_realtime")
}
