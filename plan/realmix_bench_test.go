package plan

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
)

// cpuSeconds returns the process's user+system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// benchMixWAV measures the full analysis (WAV decoding included, one
// goroutine) of a case written as a 16-bit WAV file and read 8 times over
// (about 11 minutes of audio).
func benchMixWAV(b *testing.B, c corpus.MixCase) {
	x, err := corpus.NewMixer(realdata.AllRecordings(b)...).Mix(context.Background(), c)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "mix.wav")
	if err := x.WriteWAV(path); err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	const loops = 8
	data := raw[44:]
	body := bytes.Repeat(data, loops)
	hdr := append([]byte(nil), raw[:44]...)
	n := uint32(len(body))
	hdr[4], hdr[5], hdr[6], hdr[7] = byte(n+36), byte((n+36)>>8), byte((n+36)>>16), byte((n+36)>>24)
	hdr[40], hdr[41], hdr[42], hdr[43] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	sec := float64(len(body)/2) / corpus.MixRate
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	var a *dsp.Analysis
	for i := 0; i < b.N; i++ {
		src, err := dsp.NewWAVReader(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader(body)))
		if err != nil {
			b.Fatal(err)
		}
		if a, err = dsp.Analyze(context.Background(), src, src.Info(), nil); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(sec*float64(b.N)/el, "x_realtime")
	b.ReportMetric(sec*float64(b.N)/(cpuSeconds()-cpu0), "x_realtime_cpu")
	classified := 0
	for _, v := range a.Envelope.Voice {
		if v != dsp.VoiceFloor && v != dsp.VoiceLoud {
			classified++
		}
	}
	b.ReportMetric(100*float64(classified)/float64(max(len(a.Envelope.Voice), 1)), "%classified")
}

// BenchmarkAnalyzeMixQuiet: speech whose pauses are quiet (allison over
// pink noise 35 dB down), 48 kHz mono WAV.
func BenchmarkAnalyzeMixQuiet(b *testing.B) {
	benchMixWAV(b, corpus.MixCase{Name: "quiet", Speech: corpus.MixSpeech()[0], Bed: corpus.BedPink, SNRDb: 35})
}

// BenchmarkAnalyzeMixNoisy: the same speech over radio static 10 dB down,
// where level cannot decide and the classifier runs on most frames.
func BenchmarkAnalyzeMixNoisy(b *testing.B) {
	benchMixWAV(b, corpus.MixCase{Name: "noisy", Speech: corpus.MixSpeech()[0], Bed: corpus.BedStatic, SNRDb: 10})
}

// BenchmarkAnalyzeMixTyping: the same speech with keystrokes in its pauses
// over a quiet room (the typing bed 25 dB down), where the network hears
// the sounds standing alone in the pauses (dsp's quietLoud).
func BenchmarkAnalyzeMixTyping(b *testing.B) {
	benchMixWAV(b, corpus.MixCase{Name: "typing", Speech: corpus.MixSpeech()[0], Bed: corpus.BedTyping, SNRDb: 25})
}
