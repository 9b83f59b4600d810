package dsp

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/internal/testtier"
)

// patternPCM16 renders sec seconds of speech-like stereo at 44.1 kHz as
// 16-bit little-endian PCM (speech at -20 dBFS RMS over -60 dBFS noise).
func patternPCM16(tb testing.TB, rate, ch int, sec float64) []byte {
	tb.Helper()
	src := newSpeechLike(rate, ch, sec, -20, -60, 3)
	var out []byte
	buf := make([]float32, 4096*ch)
	for {
		n, err := src.Read(buf)
		for _, v := range buf[:n] {
			out = binary.LittleEndian.AppendUint16(out, uint16(int16(max(-32768, min(32767, math.Round(float64(v)*32768))))))
		}
		if err != nil {
			return out
		}
	}
}

// loopWAV is an io.Reader of a 16-bit PCM WAV file of frames sample frames
// whose data loops pattern: hours of WAV bytes without the memory.
type loopWAV struct {
	hdr     []byte
	pattern []byte
	left    int64 // data bytes left
	off     int   // offset in pattern
}

func newLoopWAV(rate, ch int, frames int64, pattern []byte) *loopWAV {
	size := frames * int64(ch) * 2
	h := make([]byte, 0, 44)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(min(size+36, math.MaxUint32)))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, uint16(ch))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate*ch*2))
	h = binary.LittleEndian.AppendUint16(h, uint16(ch*2))
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(min(size, math.MaxUint32)))
	return &loopWAV{hdr: h, pattern: pattern, left: size}
}

func (w *loopWAV) Read(p []byte) (int, error) {
	if len(w.hdr) > 0 {
		n := copy(p, w.hdr)
		w.hdr = w.hdr[n:]
		return n, nil
	}
	if w.left == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), w.left)], w.pattern[w.off:])
	w.off = (w.off + n) % len(w.pattern)
	w.left -= int64(n)
	return n, nil
}

// BenchmarkAnalyzeWAV1h measures full analysis (loudness, LRA, true peak,
// envelope, levels) of one hour of 44.1 kHz stereo 16-bit WAV bytes read
// through the native WAVReader, decoding included. Run with -benchtime 2x.
func BenchmarkAnalyzeWAV1h(b *testing.B) { benchAnalyzeWAV(b, 44100, 2) }

// BenchmarkAnalyzeWAV1h16k is BenchmarkAnalyzeWAV1h at 16 kHz mono, a
// meeting recording's format (the envelope's frame peaks interpolated:
// framePeakRate).
func BenchmarkAnalyzeWAV1h16k(b *testing.B) { benchAnalyzeWAV(b, 16000, 1) }

func benchAnalyzeWAV(b *testing.B, rate, ch int) {
	const sec = 3600
	pattern := patternPCM16(b, rate, ch, 61.3)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	cpu0 := cpuSeconds()
	var a *Analysis
	for i := 0; i < b.N; i++ {
		src, err := NewWAVReader(newLoopWAV(rate, ch, int64(rate*sec), pattern))
		if err != nil {
			b.Fatal(err)
		}
		a, err = Analyze(context.Background(), src, src.Info(), nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(sec*b.N)/el, "x_realtime")
	b.ReportMetric(el/float64(b.N), "s/hour")
	// CPU time is steadier than wall time on a shared machine.
	b.ReportMetric(float64(sec*b.N)/(cpuSeconds()-cpu0), "x_realtime_cpu")
	if math.Abs(a.Input.Duration-sec) > 1e-9 {
		b.Fatalf("decoded %.3f s, want %d", a.Input.Duration, sec)
	}
}

// BenchmarkAnalyzeWorstCase10min analyses 10 minutes of full-scale stereo
// noise, where true-peak pruning can skip nothing, from float samples.
func BenchmarkAnalyzeWorstCase10min(b *testing.B) {
	const rate, ch, sec = 44100, 2, 600
	pat := make([]float32, 0, rate*ch)
	src := newSpeechLike(rate, ch, 1, -200, -10, 9) // noise only, -10 dBFS RMS
	buf := make([]float32, rate*ch)
	n, _ := src.Read(buf)
	pat = append(pat, buf[:n]...)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		an, _ := newAnalyzer(Format{SampleRate: rate, Channels: ch})
		for k := 0; k < sec; k++ {
			// Each second a little louder: the running true peak keeps rising.
			g := float32(math.Pow(10, float64(k)*0.002/20))
			for j := range buf[:n] {
				buf[j] = pat[j] * g
			}
			if err := an.Write(buf[:n]); err != nil {
				b.Fatal(err)
			}
		}
		an.Result(Info{})
		if i == 0 {
			segments, skipped := an.pruning()
			b.Logf("pruning skipped %d of %d segments", skipped, segments)
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(sec*b.N)/el, "x_realtime")
}

// cpuSeconds returns the process's user+system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// loopSource is a Source of frames sample frames looping a float pattern.
type loopSource struct {
	f       Format
	pattern []float32
	left    int64 // samples left
	off     int
}

func (s *loopSource) Format() Format { return s.f }

func (s *loopSource) Read(p []float32) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	n := len(p) / s.f.Channels * s.f.Channels
	n = int(min(int64(n), s.left))
	n = min(n, len(s.pattern)-s.off)
	copy(p, s.pattern[s.off:s.off+n])
	s.off = (s.off + n) % len(s.pattern)
	s.left -= int64(n)
	return n, nil
}

// memProbe wraps a Source and samples the heap every 256 reads.
type memProbe struct {
	Source
	reads    int
	peakHeap uint64
}

func (m *memProbe) Read(p []float32) (int, error) {
	if m.reads%256 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m.peakHeap = max(m.peakHeap, ms.HeapInuse)
	}
	m.reads++
	return m.Source.Read(p)
}

// TestAnalyzeMemory3h analyses a 3-hour 48 kHz stereo input streamed from a
// generator and checks that the heap stays bounded throughout: under 64 MB
// over a quiet bed; under 96 MB over a noisy one, where the voice network
// classifies most frames and the envelope keeps their spectrum
// (Envelope.Bands: 20 bytes a frame; 73 MB measured when it came).
func TestAnalyzeMemory3h(t *testing.T) {
	testtier.Slow(t, "3 hours of audio; run without -short")
	const rate, ch, sec = 48000, 2, 3 * 3600
	for _, tc := range []struct {
		name       string
		bedDb      float64
		maxMB      int
		minMeasure float64 // share of the frames whose spectrum is measured, at least
	}{
		{"quiet bed", -60, 64, 0},
		{"noisy bed", -32, 96, 0.5},
	} {
		pat := make([]float32, 13*rate*ch) // 13 s of speech-like audio, looped
		src := newSpeechLike(rate, ch, 13, -20, tc.bedDb, 5)
		for off := 0; off < len(pat); {
			m, err := src.Read(pat[off:])
			off += m
			if err != nil {
				break
			}
		}
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		// Frames unknown: the envelope grows by appending, the worst case.
		probe := &memProbe{Source: &loopSource{f: Format{rate, ch}, pattern: pat, left: int64(sec) * rate * ch}}
		a, err := Analyze(context.Background(), probe, Info{Frames: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.Input.Duration != sec {
			t.Fatalf("duration %.3f, want %d", a.Input.Duration, sec)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		probe.peakHeap = max(probe.peakHeap, after.HeapInuse)
		measured := float64(len(a.Envelope.BandFrames)) / float64(a.Envelope.Frames())
		t.Logf("3 h analysis, %s: peak heap in use %.1f MB (%.1f MB before, pattern %.1f MB); result %d envelope frames (%.0f %% with their spectrum), %d blocks",
			tc.name, float64(probe.peakHeap)/1e6, float64(before.HeapInuse)/1e6, float64(4*len(pat))/1e6, a.Envelope.Frames(), 100*measured, len(a.Blocks))
		if probe.peakHeap > uint64(tc.maxMB)<<20 {
			t.Errorf("%s: peak heap %.1f MB, want < %d MB", tc.name, float64(probe.peakHeap)/1e6, tc.maxMB)
		}
		if measured < tc.minMeasure {
			t.Errorf("%s: %.0f %% of the frames have their spectrum, want %.0f %% or more", tc.name, 100*measured, 100*tc.minMeasure)
		}
	}
}

// BenchmarkAnalyzerWrite measures the analyzer alone on 10 s of 44.1 kHz
// stereo speech-like samples per op (no decoding).
func BenchmarkAnalyzerWrite(b *testing.B) {
	const rate, ch = 44100, 2
	buf := make([]float32, 10*rate*ch)
	src := newSpeechLike(rate, ch, 10, -20, -60, 3)
	for off := 0; off < len(buf); {
		n, err := src.Read(buf[off:])
		off += n
		if err != nil {
			break
		}
	}
	an, _ := newAnalyzer(Format{SampleRate: rate, Channels: ch})
	b.SetBytes(int64(len(buf) * 2))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(buf); off += 4096 * ch {
			an.Write(buf[off:min(off+4096*ch, len(buf))])
		}
	}
	b.ReportMetric(float64(10*b.N)/b.Elapsed().Seconds(), "x_realtime")
}

// BenchmarkAnalyzeMP3 analyses 10 minutes of 44.1 kHz stereo speech (a
// recording looped) encoded as MP3 (lame -q:a 2) through the ffmpeg pipe
// and with the native decoder (go-mp3), next to the peer: a bare ffmpeg
// decode (-f null) of the same file. x_realtime is wall time; the ratio of
// ffmpeg-pipe to bare-ffmpeg is issue 17's "analyze MP3" row.
func BenchmarkAnalyzeMP3(b *testing.B) {
	const sec = 600
	path := ffmpegGen(b, "speech.mp3", "-stream_loop", "-1", "-i", "../testdata/recordings/en_asterisk_allison_demo-instruct_73s.wav",
		"-t", fmt.Sprint(sec), "-ar", "44100", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "2")
	for _, tc := range []struct {
		name string
		dec  Decoder
	}{{"ffmpeg-pipe", FFmpegDecoder{}}, {"native", NativeDecoder{}}, {"bare-ffmpeg", nil}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if tc.dec == nil {
					if out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-").CombinedOutput(); err != nil {
						b.Fatalf("ffmpeg: %v: %s", err, out)
					}
					continue
				}
				if _, err := AnalyzeWith(context.Background(), tc.dec, path, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(sec*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
		})
	}
}
