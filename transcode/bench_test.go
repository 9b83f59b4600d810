package transcode

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/dsp"
)

// benchInput makes a 10-minute 44.1 kHz stereo 16-bit WAV of pink noise
// bursts (speech-like level changes) and a plan that keeps most of it in 200 pieces.
func benchInput(b *testing.B) (string, *dsp.Analysis, []dsp.Range) {
	b.Helper()
	in := gen(b, "bench.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=5:amplitude=0.2:d=600",
		"-af", "volume='if(lt(mod(t,3),2.4),1,0.01)':eval=frame", "-ar", "44100", "-ac", "2", "-c:a", "pcm_s16le")
	a := analyze(b, in)
	var keep []dsp.Range
	for s := 0.0; s < 600; s += 3 {
		keep = append(keep, dsp.Range{Start: s, End: s + 2.5})
	}
	return in, a, keep
}

func BenchmarkRenderWAV(b *testing.B) {
	for _, norm := range []string{"none", "podcast"} {
		b.Run("normalize="+norm, func(b *testing.B) { benchRenderWAV(b, norm) })
	}
}

func benchRenderWAV(b *testing.B, norm string) {
	in, a, keep := benchInput(b)
	p := planOf(600, keep...)
	out := filepath.Join(b.TempDir(), "out.wav")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(context.Background(), in, a, p, Options{Format: "wav", Normalize: norm, Rumble: true}, out, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(600*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
}

// BenchmarkRenderMP3VsFFmpeg compares our whole mp3 render (decode, cut,
// rumble, normalize with its extra pass, encode) with ffmpeg encoding the
// same WAV alone: the encoder is the floor.
func BenchmarkRenderMP3VsFFmpeg(b *testing.B) {
	in, a, keep := benchInput(b)
	p := planOf(600, keep...)
	dir := b.TempDir()
	var ours, theirs time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := Render(context.Background(), in, a, p, Options{Format: "mp3", Normalize: "podcast", Rumble: true}, filepath.Join(dir, "o.mp3"), nil); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if out, err := exec.Command("ffmpeg", "-v", "error", "-y", "-i", in, "-c:a", "libmp3lame", "-q:a", "2", filepath.Join(dir, "f.mp3")).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		ours += t1.Sub(t0)
		theirs += time.Since(t1)
	}
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "ratio_vs_ffmpeg")
	b.ReportMetric(600*float64(b.N)/ours.Seconds(), "x_realtime")
}
