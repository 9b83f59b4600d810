package dsp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAnalyzeHeaderClaimsMoreThanInput: a WAV whose data chunk claims
// 18 hours but holds 2 s (a truncated file, or a lying header) is decoded
// for what it holds when the reader tells its size, not refused as too
// long; without a known size the header is all there is to go by.
func TestAnalyzeHeaderClaimsMoreThanInput(t *testing.T) {
	const rate = 16000
	data := buildWAV(wavSpec{container: "RIFF", tag: wavePCM, bits: 16, channels: 1, rate: rate, frames: 2 * rate, dataSize: 18 * 3600 * rate * 2})
	ctx := context.Background()
	o := AnalyzeOptions{Decoder: NativeDecoder{}, MaxDuration: 3 * time.Hour}
	a, err := AnalyzeReader(ctx, bytes.NewReader(data), "in.wav", o)
	if err != nil {
		t.Fatalf("sized reader: %v", err)
	}
	if d := a.Input.Duration; d < 1.99 || d > 2.01 {
		t.Errorf("duration %.3f s, want the 2 s the file holds", d)
	}
	if !hasWarning(a, WarnTruncated) {
		t.Errorf("warnings %q, want one saying the input is truncated", a.Warnings)
	}
	whole := buildWAV(wavSpec{container: "RIFF", tag: wavePCM, bits: 16, channels: 1, rate: rate, frames: 2 * rate})
	if a, err := AnalyzeReader(ctx, bytes.NewReader(whole), "whole.wav", o); err != nil {
		t.Errorf("a whole file: %v", err)
	} else if hasWarning(a, WarnTruncated) {
		t.Errorf("a whole file: warnings %q", a.Warnings)
	}
	f := filepath.Join(t.TempDir(), "in.wav")
	if err := os.WriteFile(f, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if a, err := AnalyzeWith(ctx, NativeDecoder{}, f, nil); err != nil || a.Input.Duration > 2.01 {
		t.Errorf("file: %v", err)
	}
	fh, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := AnalyzeReader(ctx, fh, "in.wav", o); err != nil {
		t.Errorf("file with a limit: %v", err)
	}
	var tl *TooLongError
	if _, err := AnalyzeReader(ctx, streamOnly(data), "in.wav", o); !errors.Is(err, ErrTooLong) || !errors.As(err, &tl) || tl.Duration != 18*3600 || tl.Limit != 3*3600 {
		t.Errorf("stream of unknown size: %v, want a TooLongError of 18 h over 3 h from the header", err)
	}
}

// TestAutoDecoderFallbackFailure: a WAV the native reader refuses goes to
// ffmpeg; when ffmpeg fails on it too, the error is ErrUnsupportedFormat
// (it was an untyped "ffmpeg failed decoding", answered as internal).
func TestAutoDecoderFallbackFailure(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffprobe not installed")
	}
	dir := t.TempDir()
	ff := filepath.Join(dir, "ffmpeg")
	script := "#!/bin/sh\necho '[adpcm_ms @ 0x55f2757d13c0] cannot decode' >&2\nexit 1\n"
	if err := os.WriteFile(ff, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// MS ADPCM (tag 2): ffprobe describes it, the native reader does not read it.
	data := buildWAV(wavSpec{container: "RIFF", tag: wavePCM, bits: 16, channels: 1, rate: 16000, frames: 16000, dataSize: -1})
	binary.LittleEndian.PutUint16(data[20:], 2)
	dec := AutoDecoder{FFmpeg: FFmpegDecoder{FFmpeg: ff}}
	for _, in := range []struct {
		name string
		r    func() io.Reader
	}{
		{"stream", func() io.Reader { return streamOnly(data) }},
		{"file", func() io.Reader {
			f := filepath.Join(dir, "in.wav")
			if err := os.WriteFile(f, data, 0o600); err != nil {
				t.Fatal(err)
			}
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fh.Close() })
			return fh
		}},
	} {
		t.Run(in.name, func(t *testing.T) {
			_, err := AnalyzeReader(context.Background(), in.r(), "in.wav", AnalyzeOptions{Decoder: dec})
			if !errors.Is(err, ErrUnsupportedFormat) {
				t.Errorf("err %v, want ErrUnsupportedFormat", err)
			}
		})
	}
}

// FuzzWAVDecode holds the native decoder (sniffing, the WAV header parser,
// the sample reader) to the property of issue 16 for any input: no panic;
// every input it refuses maps to ErrUnsupportedFormat (the code
// unsupported_format), and once it accepts a header, reading fails with
// no other error (an MP3 damaged further on fails with it too) and never
// yields more samples than the input has bytes. Under MaxDuration, AnalyzeReader adds only ErrTooLong.
func FuzzWAVDecode(f *testing.F) {
	for _, s := range []wavSpec{
		{container: "RIFF", tag: wavePCM, bits: 16, channels: 2, rate: 44100, frames: 20, dataSize: -1},
		{container: "RIFF", tag: wavePCM, bits: 0, channels: 1, rate: 16000, frames: 20, dataSize: -1},
		{container: "RIFF", tag: 0, bits: 16, channels: 1, rate: 16000, frames: 20, dataSize: -1},
		{container: "RIFF", tag: 0x1234, extensible: true, bits: 16, channels: 1, rate: 16000, frames: 20, dataSize: -1},
		{container: "RIFF", tag: wavePCM, bits: 16, channels: 65535, rate: 16000, frames: 1, dataSize: -1},
		{container: "RIFF", tag: wavePCM, bits: 16, channels: 1, rate: 0, frames: 20, dataSize: -1},
		{container: "RF64", tag: waveFloat, bits: 32, channels: 1, rate: 48000, frames: 20, dataSize: 1 << 40},
		{container: "BW64", tag: wavePCM, bits: 24, channels: 2, rate: 48000, frames: 5, dataSize: 0, bextRef: 1 << 60},
	} {
		f.Add(buildWAV(s))
	}
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEfmt \xF0\xFF\xFF\xFF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		s, err := NativeDecoder{}.Decode(ctx, bytes.NewReader(b), "in.wav")
		if err != nil {
			if !errors.Is(err, ErrUnsupportedFormat) {
				t.Fatalf("Decode: %v, not ErrUnsupportedFormat", err)
			}
			return
		}
		defer s.Close()
		ch := s.Format().Channels
		if ch < 1 || s.Format().SampleRate < 1 {
			t.Fatalf("accepted format %+v", s.Format())
		}
		buf := make([]float32, 256*ch)
		total := 0
		// PCM holds at least one byte per sample; the native decoder's other
		// format, MP3, compresses (down to some 8 samples a byte at 8 kbps,
		// and a frame is decoded whole): 64 a byte bounds a runaway decode.
		limit := len(b)
		if f := Sniff(b); f != "wav" && f != "rf64" {
			limit = 64 * max(len(b), 1152/64)
		}
		for {
			n, err := s.Read(buf)
			total += n
			if err == io.EOF {
				break
			}
			if err != nil {
				if errors.Is(err, ErrUnsupportedFormat) {
					break // damaged further on (an MP3 frame go-mp3 cannot read)
				}
				t.Fatalf("Read: %v, not ErrUnsupportedFormat", err)
			}
			if total > limit {
				t.Fatalf("more samples (%d) than the input's %d bytes can hold (%d)", total, len(b), limit)
			}
		}
		_, err = AnalyzeReader(ctx, bytes.NewReader(b), "in.wav", AnalyzeOptions{Decoder: NativeDecoder{}, MaxDuration: time.Second})
		if err != nil && !errors.Is(err, ErrTooLong) && !errors.Is(err, ErrUnsupportedFormat) {
			t.Fatalf("AnalyzeReader: %v, not a dsp sentinel", err)
		}
	})
}

// hasWarning reports whether one of a's warnings begins with prefix.
func hasWarning(a *Analysis, prefix string) bool {
	for _, w := range a.Warnings {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}

// TestAnalyzeTruncatedMP3: an MP3 whose Xing/Info tag counts its frames
// (as LAME writes it) and which holds a third of them (a download cut
// short) is analysed for what it holds, with the truncation warning; the
// whole file, VBR or CBR, has none.
func TestAnalyzeTruncatedMP3(t *testing.T) {
	ctx := context.Background()
	for _, rate := range []string{"-q:a", "-b:a"} {
		q := map[string]string{"-q:a": "2", "-b:a": "128k"}[rate]
		path := ffmpegGen(t, "whole"+rate+".mp3", "-f", "lavfi", "-i", "sine=f=440:d=12:sample_rate=44100", "-ac", "2", "-c:a", "libmp3lame", rate, q)
		whole, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, dec := range []Decoder{NativeDecoder{}, AutoDecoder{}} {
			a, err := AnalyzeReader(ctx, bytes.NewReader(whole), "whole.mp3", AnalyzeOptions{Decoder: dec})
			if err != nil {
				t.Fatalf("%s %T: whole file: %v", rate, dec, err)
			}
			if hasWarning(a, WarnTruncated) || a.Input.Duration < 11.99 {
				t.Errorf("%s %T: whole file of %.3f s: warnings %q", rate, dec, a.Input.Duration, a.Warnings)
			}
			cut := whole[:len(whole)/3]
			a, err = AnalyzeReader(ctx, bytes.NewReader(cut), "cut.mp3", AnalyzeOptions{Decoder: dec})
			if err != nil {
				t.Fatalf("%s %T: cut file: %v", rate, dec, err)
			}
			if !hasWarning(a, WarnTruncated) || a.Input.Duration > 4.5 {
				t.Errorf("%s %T: a third of the file, %.3f s: warnings %q, want the truncation warning", rate, dec, a.Input.Duration, a.Warnings)
			}
		}
	}
}

// TestAnalyzeTruncatedContainer: an MP4 (its index at the start) cut to
// half its bytes decodes what it holds and the analysis says it is
// truncated (it did not: only WAV and MP3 headers were compared); the
// whole files, audio alone or with a picture, get no such warning.
func TestAnalyzeTruncatedContainer(t *testing.T) {
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	ctx := context.Background()
	m4a := ffmpegGen(t, "in.m4a", "-f", "lavfi", "-i", "sine=frequency=440:duration=20", "-c:a", "aac", "-movflags", "+faststart")
	mp4 := ffmpegGen(t, "in.mp4", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=10", "-f", "lavfi", "-i", "sine=frequency=440:duration=10",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "-shortest")
	for _, path := range []string{m4a, mp4} {
		a, err := AnalyzeWith(ctx, AutoDecoder{}, path, nil)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if hasWarning(a, WarnTruncated) {
			t.Errorf("%s, whole: warnings %q", filepath.Base(path), a.Warnings)
		}
	}
	b, err := os.ReadFile(m4a)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.m4a")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := AnalyzeWith(ctx, AutoDecoder{}, cut, nil)
	if err != nil {
		t.Fatalf("cut: %v", err)
	}
	if !hasWarning(a, WarnTruncated) || a.Input.Duration > 15 {
		t.Errorf("cut to half: %.2f s, warnings %q; want about 10 s and one saying the input is truncated", a.Input.Duration, a.Warnings)
	}
}
