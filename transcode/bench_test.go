package transcode

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/dsp"
)

// benchInput makes a WAV of sec seconds, 44.1 kHz stereo 16-bit, of pink
// noise bursts (speech-like level changes) and the keep ranges of a plan
// that keeps most of it in pieces of 2.5 s.
func benchInput(b *testing.B, sec int) (string, *dsp.Analysis, []dsp.Range) {
	b.Helper()
	in := gen(b, "bench.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=5:amplitude=0.2:d="+itoa(sec),
		"-af", "volume='if(lt(mod(t,3),2.4),1,0.01)':eval=frame", "-ar", "44100", "-ac", "2", "-c:a", "pcm_s16le")
	a := analyze(b, in)
	var keep []dsp.Range
	for s := 0.0; s < float64(sec); s += 3 {
		keep = append(keep, dsp.Range{Start: s, End: s + 2.5})
	}
	return in, a, keep
}

func itoa(n int) string { return ftoa(float64(n)) }

// cpuSeconds returns the user + system CPU time used so far by this process
// and its waited-for children (ffmpeg). On a machine shared with other
// work, wall-clock ratios favour whichever side runs more threads; CPU
// ratios do not (and count our second core's work against us).
func cpuSeconds(b *testing.B) float64 {
	b.Helper()
	var t float64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	return t
}

// BenchmarkRenderWAV renders 10 minutes to WAV with rumble, without and
// with podcast normalization (measurement pass + encode).
func BenchmarkRenderWAV(b *testing.B) {
	for _, norm := range []string{"none", "podcast"} {
		b.Run("normalize="+norm, func(b *testing.B) { benchRenderWAV(b, norm) })
	}
}

func benchRenderWAV(b *testing.B, norm string) {
	in, a, keep := benchInput(b, 600)
	p := planOf(600, keep...)
	out := filepath.Join(b.TempDir(), "out.wav")
	b.ReportAllocs()
	c0 := cpuSeconds(b)
	for b.Loop() {
		if _, err := Render(context.Background(), in, a, p, Options{Format: "wav", Normalize: norm, Rumble: true}, out, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(600*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
	// audio seconds per CPU second (both cores' work counted)
	b.ReportMetric(600*float64(b.N)/(cpuSeconds(b)-c0), "x_realtime_per_cpu")
}

// BenchmarkRenderWAVVsLoudnorm alternates our WAV render (podcast, rumble)
// with one ffmpeg loudnorm pass over the same 2-minute input, and reports
// how many times faster ours is (the machine's load hits both alike).
func BenchmarkRenderWAVVsLoudnorm(b *testing.B) {
	in, a, keep := benchInput(b, 120)
	p := planOf(120, keep...)
	dir := b.TempDir()
	var ours, theirs time.Duration
	var oursCPU, theirsCPU float64
	b.ReportAllocs()
	for b.Loop() {
		t0, c0 := time.Now(), cpuSeconds(b)
		if _, err := Render(context.Background(), in, a, p, Options{Format: "wav", Normalize: "podcast", Rumble: true}, filepath.Join(dir, "o.wav"), nil); err != nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cpuSeconds(b)
		if out, err := exec.Command("ffmpeg", "-v", "error", "-y", "-i", in, "-af", "loudnorm=I=-16:TP=-1.5", "-ar", "44100", filepath.Join(dir, "f.wav")).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		ours += t1.Sub(t0)
		theirs += time.Since(t1)
		oursCPU += c1 - c0
		theirsCPU += cpuSeconds(b) - c1
	}
	b.ReportMetric(theirs.Seconds()/ours.Seconds(), "x_faster_than_loudnorm")
	b.ReportMetric(theirsCPU/oursCPU, "x_less_cpu_than_loudnorm")
	b.ReportMetric(120*float64(b.N)/ours.Seconds(), "x_realtime")
}

// BenchmarkRenderMP3VsFFmpeg compares our whole mp3 render (decode, cut,
// rumble, normalize with its measurement pass, encode) with ffmpeg
// encoding the same WAV alone: the encoder is the floor.
func BenchmarkRenderMP3VsFFmpeg(b *testing.B) {
	in, a, keep := benchInput(b, 600)
	p := planOf(600, keep...)
	dir := b.TempDir()
	var ours, theirs time.Duration
	var oursCPU, theirsCPU float64
	b.ReportAllocs()
	for b.Loop() {
		t0, c0 := time.Now(), cpuSeconds(b)
		if _, err := Render(context.Background(), in, a, p, Options{Format: "mp3", Normalize: "podcast", Rumble: true}, filepath.Join(dir, "o.mp3"), nil); err != nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cpuSeconds(b)
		if out, err := exec.Command("ffmpeg", "-v", "error", "-y", "-i", in, "-c:a", "libmp3lame", "-q:a", "2", filepath.Join(dir, "f.mp3")).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		ours += t1.Sub(t0)
		theirs += time.Since(t1)
		oursCPU += c1 - c0
		theirsCPU += cpuSeconds(b) - c1
	}
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "ratio_vs_ffmpeg")
	b.ReportMetric(oursCPU/theirsCPU, "cpu_ratio_vs_ffmpeg")
	b.ReportMetric(600*float64(b.N)/ours.Seconds(), "x_realtime")
}

// BenchmarkRender3hHeap renders 3 hours (44.1 kHz stereo, podcast, rumble)
// to io.Discard and reports the largest heap in use while it runs. The
// input (1.9 GB) is written to the benchmark's temporary directory from 10 s
// of bursts, repeated, and removed with it.
func BenchmarkRender3hHeap(b *testing.B) { render3hHeap(b, "wav", false) }

// BenchmarkRender3hHeapFile is BenchmarkRender3hHeap rendering to a file
// (Render), where the measurement and the WAV encode run in two halves
// side by side (two chains, two meters joined, two writers).
func BenchmarkRender3hHeapFile(b *testing.B) { render3hHeap(b, "wav", true) }

// BenchmarkRender3hHeapMP3File is the same to an MP3 file: two chains,
// two lame encodes and their stitch.
func BenchmarkRender3hHeapMP3File(b *testing.B) { render3hHeap(b, "mp3", true) }

func render3hHeap(b *testing.B, format string, toFile bool) {
	const sec, rate, ch = 3 * 3600, 44100, 2
	in := filepath.Join(b.TempDir(), "long.wav")
	loop := make([]byte, 10*rate*ch*2)
	x := burstySignal(ch, 10*rate, 11)
	for i, v := range x {
		binary.LittleEndian.PutUint16(loop[2*i:], uint16(int16(max(-1, min(1, v*0.3))*32767)))
	}
	f, err := os.Create(in)
	if err != nil {
		b.Fatal(err)
	}
	h, err := wavHeader(dsp.Format{SampleRate: rate, Channels: ch}, 16, sec*rate)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.Write(h); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < sec/10; i++ {
		if _, err := f.Write(loop); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	a := analyze(b, in)
	p := planOf(float64(sec), dsp.Range{Start: 0, End: float64(sec)})
	var peak uint64
	for b.Loop() {
		runtime.GC()
		done := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var ms runtime.MemStats
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}()
		o := Options{Format: format, Normalize: "podcast", Rumble: true}
		if toFile {
			out := filepath.Join(b.TempDir(), "out."+format)
			if _, err := Render(context.Background(), in, a, p, o, out, nil); err != nil {
				b.Fatal(err)
			}
			os.Remove(out)
		} else if _, err := RenderTo(context.Background(), in, a, p, o, io.Discard, nil); err != nil {
			b.Fatal(err)
		}
		close(done)
		<-sampled
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak_heap_MB")
	b.ReportMetric(sec*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
}
