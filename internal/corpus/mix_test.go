package corpus

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
)

func recordings(tb testing.TB) *Mixer {
	tb.Helper()
	return NewMixer(filepath.Join("..", "..", "testdata", "recordings"))
}

// TestMixTruth checks the set's construction: the bed sits at the ratio
// asked (within 0.5 dB, measured on the bed alone), the truth's speech is
// sorted and inside the case, and the pauses were stretched.
func TestMixTruth(t *testing.T) {
	m := recordings(t)
	for _, c := range []MixCase{
		{Name: "a", Speech: MixSpeech()[0], Bed: BedPink, SNRDb: 15, Seed: 1},
		{Name: "b", Speech: MixSpeech()[2], Bed: BedHum, SNRDb: 25, Seed: 2},
		{Name: "c", Speech: MixSpeech()[1], Bed: BedCrosstalk, SNRDb: 20, Seed: 3},
	} {
		x, err := m.Mix(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		tr := x.Truth
		if d := tr.SpeechDb - tr.BedDb; d < c.SNRDb-0.01 || d > c.SNRDb+0.01 {
			t.Errorf("%s: speech %.1f, bed %.1f: ratio %.2f, want %g", c.Name, tr.SpeechDb, tr.BedDb, d, c.SNRDb)
		}
		pos, long := 0.0, 0
		for _, s := range tr.Speech {
			if s.Start < pos || s.End <= s.Start || s.End > tr.Duration+1e-9 {
				t.Fatalf("%s: speech %v out of order or range", c.Name, s)
			}
			if s.Start-pos >= 0.6 {
				long++
			}
			pos = s.End
		}
		if long < 3 {
			t.Errorf("%s: only %d pauses of 0.6 s or more", c.Name, long)
		}
		t.Logf("%s: %.1f s, speech %.1f dBFS, bed %.1f dBFS, audible from %.1f dBFS, %d runs, %d pauses >= 0.6 s", c.Name, tr.Duration, tr.SpeechDb, tr.BedDb, tr.AudibleDb, len(tr.Speech), long)
	}
}

// TestScoreMix checks the score on a hand-made truth.
func TestScoreMix(t *testing.T) {
	tr := MixTruth{Duration: 10, Speech: []dsp.Range{{Start: 1, End: 3}, {Start: 5, End: 9}}}
	// Pauses: [0,1) lead, [3,5), [9,10) tail; keep 250 ms.
	cuts := []dsp.Range{{Start: 0, End: 0.75}, {Start: 3.125, End: 4.875}, {Start: 9.3, End: 10}}
	s := ScoreMix(tr, cuts, 0.6, 250)
	if s.Pauses != 3 || s.PausesCut != 3 || s.ClippedMs != 0 {
		t.Errorf("score %+v", s)
	}
	if want := 0.75 + 1.75 + 0.7; s.CutSec < want-1e-9 || s.CutSec > want+1e-9 || s.RemovableSec != 0.75+1.75+0.75 {
		t.Errorf("cut %v of %v, want %v of 3.25", s.CutSec, s.RemovableSec, want)
	}
	// Four edges (0, 0, 0 and the tail cut's start, 50 ms late: more
	// kept); P95 is the edge at index int(0.95 x 3) = 2 of the sorted ones.
	if len(s.Edges) != 4 || s.Edges[3] < 49.999 || s.Edges[3] > 50.001 || s.BoundaryP95 > 1e-9 {
		t.Errorf("edges %v, P95 %v ms: want the last +50 ms and P95 0", s.Edges, s.BoundaryP95)
	}
	s = ScoreMix(tr, []dsp.Range{{Start: 2.9, End: 5.1}}, 0.6, 250)
	if s.ClippedMs < 199.999 || s.ClippedMs > 200.001 {
		t.Errorf("clipped %v ms, want 200", s.ClippedMs)
	}
}

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
func benchMixWAV(b *testing.B, c MixCase) {
	x, err := recordings(b).Mix(context.Background(), c)
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
	sec := float64(len(body)/2) / MixRate
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
	benchMixWAV(b, MixCase{Name: "quiet", Speech: MixSpeech()[0], Bed: BedPink, SNRDb: 35})
}

// BenchmarkAnalyzeMixNoisy: the same speech over radio static 10 dB down,
// where level cannot decide and the classifier runs on most frames.
func BenchmarkAnalyzeMixNoisy(b *testing.B) {
	benchMixWAV(b, MixCase{Name: "noisy", Speech: MixSpeech()[0], Bed: BedStatic, SNRDb: 10})
}
