package dsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ffmpegGen runs ffmpeg to make a test file.
func ffmpegGen(t testing.TB, out string, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), out)
	cmd := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-y"}, args...), path)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	return path
}

// decodeAll reads a whole stream (test inputs are short).
func decodeAll(t testing.TB, s Stream) []float32 {
	t.Helper()
	var all []float32
	buf := make([]float32, 1000*s.Format().Channels)
	for {
		n, err := s.Read(buf)
		all = append(all, buf[:n]...)
		if err == io.EOF {
			return all
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// onset returns the time of the first sample whose magnitude exceeds level.
func onset(x []float32, ch, rate int, level float32) float64 {
	for i, v := range x {
		if v > level || v < -level {
			return float64(i/ch) / float64(rate)
		}
	}
	return -1
}

func TestDecodersAgreeOnTimingAndLength(t *testing.T) {
	ctx := context.Background()
	tone := []string{"-f", "lavfi", "-i", "sine=f=1000:d=2", "-af", "adelay=1000:all=1,apad=pad_dur=0.5"}
	cases := []struct {
		name, file string
		args       []string
		channels   int
	}{
		{"mp3 mono vbr", "mono.mp3", []string{"-ac", "1", "-ar", "44100", "-c:a", "libmp3lame", "-q:a", "2"}, 1},
		{"mp3 stereo cbr", "stereo.mp3", []string{"-ac", "2", "-ar", "44100", "-c:a", "libmp3lame", "-b:a", "192k"}, 2},
		{"mp3 48k stereo", "s48.mp3", []string{"-ac", "2", "-ar", "48000", "-c:a", "libmp3lame", "-b:a", "320k"}, 2},
		{"mp3 22k mono (MPEG 2)", "m22.mp3", []string{"-ac", "1", "-ar", "22050", "-c:a", "libmp3lame", "-b:a", "64k"}, 1},
		{"wav s16", "a.wav", []string{"-ac", "2", "-ar", "44100", "-c:a", "pcm_s16le"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := ffmpegGen(t, c.file, append(append([]string{}, tone...), c.args...)...)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Each decoder from the file (by path) and from a plain stream.
			var got [4]struct {
				onset, dur float64
				ch         int
			}
			for i, dec := range []Decoder{NativeDecoder{}, FFmpegDecoder{}, NativeDecoder{}, FFmpegDecoder{}} {
				var s Stream
				if i < 2 {
					s, err = openFile(ctx, dec, path)
				} else {
					s, err = dec.Decode(ctx, streamOnly(data), c.file)
				}
				if err != nil {
					t.Fatal(err)
				}
				x := decodeAll(t, s)
				f := s.Format()
				got[i].onset = onset(x, f.Channels, f.SampleRate, 0.05)
				got[i].dur = s.Info().Duration
				got[i].ch = f.Channels
				if s.Info().Name != c.file {
					t.Errorf("%T: name %q", dec, s.Info().Name)
				}
				s.Close()
			}
			t.Logf("native onset %.4f s dur %.4f s ch %d | ffmpeg onset %.4f s dur %.4f s ch %d",
				got[0].onset, got[0].dur, got[0].ch, got[1].onset, got[1].dur, got[1].ch)
			for i, g := range got {
				if g.ch != c.channels {
					t.Errorf("decode %d: channels %d, want %d", i, g.ch, c.channels)
				}
				if d := math.Abs(g.onset - got[0].onset); d > 0.001 {
					t.Errorf("decode %d: onsets differ by %.4f s", i, d)
				}
				if d := math.Abs(g.dur - got[0].dur); d > 0.001 {
					t.Errorf("decode %d: durations differ by %.4f s", i, d)
				}
			}
			if d := math.Abs(got[0].onset - 1.0); d > 0.002 {
				t.Errorf("native onset %.4f s, want 1.000", got[0].onset)
			}
		})
	}
}

func TestAutoDecoderContainers(t *testing.T) {
	ctx := context.Background()
	tone := []string{"-f", "lavfi", "-i", "sine=f=440:d=1.5"}
	for _, c := range []struct {
		file, format, codec string
		args                []string
	}{
		{"a.flac", "flac", "flac", nil},
		{"a.ogg", "ogg", "vorbis", []string{"-c:a", "libvorbis"}},
		{"a.opus", "ogg", "opus", []string{"-c:a", "libopus", "-ar", "48000"}},
		{"a.m4a", "mp4", "aac", []string{"-c:a", "aac"}},
		{"a.mka", "matroska", "flac", []string{"-c:a", "flac"}},
		{"fast.m4a", "mp4", "aac", []string{"-c:a", "aac", "-movflags", "+faststart"}},
		{"a.ts", "mpegts", "mp2", []string{"-c:a", "mp2", "-f", "mpegts"}},
		{"a.aiff", "aiff", "pcm_s16be", nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := ffmpegGen(t, c.file, append(append([]string{}, tone...), c.args...)...)
			// A misleading extension must not matter: content decides.
			lying := path + ".wav"
			if err := os.Rename(path, lying); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(lying)
			if err != nil {
				t.Fatal(err)
			}
			for _, fromStream := range []bool{false, true} {
				var s Stream
				if fromStream {
					s, err = Decode(ctx, streamOnly(data), c.file)
				} else {
					s, err = Open(ctx, lying)
				}
				if fromStream && NeedsSeek(data) {
					// An MP4 whose index follows its media: only from a file.
					if !errors.Is(err, ErrNotStreamable) {
						t.Errorf("stream of %s: %v, want ErrNotStreamable", c.file, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("stream %v: %v", fromStream, err)
				}
				decodeAll(t, s)
				s.Close()
				info := s.Info()
				if info.Format != c.format || info.Codec != c.codec || info.Type != "audio" {
					t.Errorf("stream %v: info %+v, want format %s codec %s", fromStream, info, c.format, c.codec)
				}
				if math.Abs(info.Duration-1.5) > 0.03 {
					t.Errorf("stream %v: duration %.4f, want 1.5", fromStream, info.Duration)
				}
			}
		})
	}
}

// streamOnly hides everything of a byte slice but Read: what a decoder
// gets from a network body or a pipe.
func streamOnly(b []byte) io.Reader { return struct{ io.Reader }{bytes.NewReader(b)} }

// TestNeedsSeek: an MP4 is streamable when its moov box precedes mdat.
func TestNeedsSeek(t *testing.T) {
	tone := []string{"-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac"}
	for _, c := range []struct {
		name string
		args []string
		want bool
	}{
		{"end.m4a", nil, true},
		{"fast.m4a", []string{"-movflags", "+faststart"}, false},
		{"frag.mp4", []string{"-movflags", "+frag_keyframe+empty_moov"}, false},
		{"end.mov", []string{"-f", "mov"}, true},
		{"a.flac", []string{"-c:a", "flac"}, false},
	} {
		head, err := os.ReadFile(ffmpegGen(t, c.name, append(append([]string{}, tone...), c.args...)...))
		if err != nil {
			t.Fatal(err)
		}
		if got := NeedsSeek(head[:min(len(head), 64<<10)]); got != c.want {
			t.Errorf("%s (%s): NeedsSeek %v, want %v", c.name, Sniff(head), got, c.want)
		}
	}
	// Truncated or odd box headers are answered conservatively.
	for _, b := range [][]byte{
		[]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), // ends after ftyp
		[]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\x00\x00mdat"),
		[]byte("\x00\x00\x00\x04ftypisom"),
	} {
		if !NeedsSeek(b) {
			t.Errorf("NeedsSeek(%q) = false", b)
		}
	}
}

// TestSniffLen: sniffLen bytes of a real MPEG-TS stream are enough to
// name it (two sync bytes 188 apart), and no fewer than 189 could be.
func TestSniffLen(t *testing.T) {
	if sniffLen < 189 {
		t.Fatalf("sniffLen %d < 189", sniffLen)
	}
	ts, err := os.ReadFile(ffmpegGen(t, "a.ts", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "mp2", "-f", "mpegts"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Sniff(ts[:sniffLen]); got != "mpegts" {
		t.Errorf("Sniff(first %d bytes of a TS) = %q", sniffLen, got)
	}
	if got := Sniff(ts[:188]); got == "mpegts" {
		t.Errorf("188 bytes named a TS: the check is not the two-packet one")
	}
}

func TestProbeVideo(t *testing.T) {
	path := ffmpegGen(t, "v.mp4", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30000/1001:duration=2",
		"-f", "lavfi", "-i", "sine=f=440:d=2", "-timecode", "01:00:00;00", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	info, err := Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Type != "video" || info.FrameRate != (Rational{30000, 1001}) {
		t.Errorf("type %q rate %v, want video 30000/1001", info.Type, info.FrameRate)
	}
	if math.Abs(info.StartTimecode-3600) > 0.1 {
		t.Errorf("start timecode %.3f s, want about 3600 (01:00:00;00 drop-frame)", info.StartTimecode)
	}
}

// TestVideoFrameSize: the probe and the analysis report the frame size a
// player shows: 640x360, a portrait 1080x1920 stream, and a 640x360 stream
// stored with a 90-degree display rotation (as phones record portrait),
// which plays as 360x640. Audio-only inputs have no size.
func TestVideoFrameSize(t *testing.T) {
	ctx := context.Background()
	gen := func(name, size string) string {
		return ffmpegGen(t, name, "-f", "lavfi", "-i", "testsrc2=size="+size+":rate=25:duration=1",
			"-f", "lavfi", "-i", "sine=f=440:d=1", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	}
	small := gen("small.mp4", "640x360")
	rotated := filepath.Join(t.TempDir(), "rotated.mp4")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-i", small, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	for _, c := range []struct {
		name string
		path string
		w, h int
	}{
		{"640x360", small, 640, 360},
		{"portrait 1080x1920", gen("tall.mp4", "1080x1920"), 1080, 1920},
		{"640x360 rotated 90", rotated, 360, 640},
		{"audio only", ffmpegGen(t, "a.m4a", "-f", "lavfi", "-i", "sine=d=1"), 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			info, err := Probe(ctx, c.path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := AnalyzeFile(ctx, c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if info.Width != c.w || info.Height != c.h || a.Input.Width != c.w || a.Input.Height != c.h {
				t.Errorf("probe %dx%d, analysis %dx%d, want %dx%d", info.Width, info.Height, a.Input.Width, a.Input.Height, c.w, c.h)
			}
			b, _ := json.Marshal(a.Input)
			if want := fmt.Sprintf(`"width":%d,"height":%d`, c.w, c.h); c.w > 0 && !strings.Contains(string(b), want) {
				t.Errorf("analysis JSON %s lacks %s", b, want)
			} else if c.w == 0 && strings.Contains(string(b), "width") {
				t.Errorf("audio-only analysis JSON %s has a width", b)
			}
		})
	}
	if !rotatedQuarter("", []probeSideData{{Rotation: -90}}) || !rotatedQuarter("270", nil) || rotatedQuarter("180", nil) || rotatedQuarter("", []probeSideData{{Rotation: 180}}) {
		t.Errorf("rotatedQuarter: quarter turns are ±90 and 270 degrees only")
	}
}

func TestDecodeErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"empty.wav", nil},
		{"text.mp3", []byte("hello, this is not audio at all\n")},
		{"png.wav", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		{"riff-short.wav", []byte("RIFF\x10\x00\x00\x00WAVE")},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, dec := range []Decoder{AutoDecoder{}, NativeDecoder{}} {
				if _, err := openFile(ctx, dec, write(c.name, c.data)); !errors.Is(err, ErrUnsupportedFormat) {
					t.Errorf("%T: err %v, want ErrUnsupportedFormat", dec, err)
				}
				if _, err := dec.Decode(ctx, streamOnly(c.data), c.name); !errors.Is(err, ErrUnsupportedFormat) {
					t.Errorf("%T from a stream: err %v, want ErrUnsupportedFormat", dec, err)
				}
			}
		})
	}
	// A video with no audio stream.
	noAudio := ffmpegGen(t, "silent.mp4", "-f", "lavfi", "-i", "testsrc2=size=64x64:duration=1", "-c:v", "libx264", "-preset", "ultrafast")
	if _, err := Open(ctx, noAudio); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("video without audio: %v, want ErrUnsupportedFormat", err)
	}
	// ffmpeg missing.
	wavPath := ffmpegGen(t, "x.flac", "-f", "lavfi", "-i", "sine=d=0.2")
	if _, err := (FFmpegDecoder{FFmpeg: "/nonexistent/ffmpeg", FFprobe: "/nonexistent/ffprobe"}).Open(ctx, wavPath); !errors.Is(err, ErrFFmpegMissing) {
		t.Errorf("missing ffmpeg: %v, want ErrFFmpegMissing", err)
	}
}

// TestReadErrorIsNotFormat: an input that fails mid-stream gives its own
// error, not ErrUnsupportedFormat; the native MP3 decoder called a reader's
// error a damaged stream ("disk on fire: unsupported format"), which the
// server answers as a 415, and ffmpeg's decoder kept only its text.
func TestReadErrorIsNotFormat(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args []string
		dec  Decoder
	}{
		{"x.wav", []string{"-f", "lavfi", "-i", "sine=d=10", "-c:a", "pcm_s16le"}, NativeDecoder{}},
		{"x.mp3", []string{"-f", "lavfi", "-i", "sine=d=10", "-c:a", "libmp3lame", "-q:a", "2"}, NativeDecoder{}},
		// 2.6 MB: past the MiB ffprobe reads before ffmpeg is fed.
		{"y.wav", []string{"-f", "lavfi", "-i", "sine=d=30", "-c:a", "pcm_s16le"}, FFmpegDecoder{}},
	} {
		b, err := os.ReadFile(ffmpegGen(t, c.name, c.args...))
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []int{100, len(b) / 3, len(b) / 2} { // in the sniffed head, then mid-stream
			r := &failingReader{r: bytes.NewReader(b), left: at}
			_, err := AnalyzeReader(ctx, r, c.name, AnalyzeOptions{Decoder: c.dec})
			if !errors.Is(err, errDisk) || errors.Is(err, ErrUnsupportedFormat) {
				t.Errorf("%s (%T) failing after %d bytes: %v, want errDisk and not ErrUnsupportedFormat", c.name, c.dec, at, err)
			}
		}
	}
}

// failingReader reads left bytes of r, then fails with errDisk.
type failingReader struct {
	r    io.Reader
	left int
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, errDisk
	}
	n, err := f.r.Read(p[:min(len(p), f.left)])
	f.left -= n
	return n, err
}

// TestNilInput: a nil reader or source is an error naming it, not a panic.
func TestNilInput(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"AnalyzeReader", func() error { _, err := AnalyzeReader(ctx, nil, "x", AnalyzeOptions{}); return err }},
		{"AnalyzeReader, native", func() error {
			_, err := AnalyzeReader(ctx, nil, "x", AnalyzeOptions{Decoder: NativeDecoder{}})
			return err
		}},
		{"Decode", func() error { _, err := Decode(ctx, nil, "x"); return err }},
		{"NativeDecoder", func() error { _, err := NativeDecoder{}.Decode(ctx, nil, "x"); return err }},
		{"FFmpegDecoder", func() error { _, err := FFmpegDecoder{}.Decode(ctx, nil, "x"); return err }},
		{"NewWAVReader", func() error { _, err := NewWAVReader(nil); return err }},
		{"Analyze", func() error { _, err := Analyze(ctx, nil, Info{Name: "x"}, nil); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.f(); err == nil || !strings.Contains(err.Error(), "nil") {
				t.Errorf("err %v, want one naming the nil input", err)
			}
		})
	}
}

func TestFFmpegCancel(t *testing.T) {
	path := ffmpegGen(t, "long.flac", "-f", "lavfi", "-i", "sine=d=120")
	ctx, cancel := context.WithCancel(context.Background())
	s, err := FFmpegDecoder{}.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, 1024)
	if _, err := s.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	var rerr error
	for i := 0; i < 100000 && rerr == nil; i++ {
		_, rerr = s.Read(buf)
	}
	if rerr == nil || rerr == io.EOF {
		t.Fatalf("read after cancel: %v, want a cancellation error", rerr)
	}
	s.Close()
}

func ExampleSniff() {
	fmt.Println(Sniff([]byte("RIFF\x24\x00\x00\x00WAVEfmt ")), Sniff([]byte("fLaC\x00")), Sniff([]byte("nothing")) == "")
	// Output: wav flac true
}

func TestNativeAndFFmpegMeasureTheSame(t *testing.T) {
	ctx := context.Background()
	src := []string{"-f", "lavfi", "-i", "anoisesrc=color=pink:seed=9:amplitude=0.3:d=20", "-af", "volume='if(lt(mod(t,4),3),1,0.05)':eval=frame"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"stereo.mp3", []string{"-ac", "2", "-ar", "44100", "-c:a", "libmp3lame", "-q:a", "2"}},
		{"mono.mp3", []string{"-ac", "1", "-ar", "48000", "-c:a", "libmp3lame", "-b:a", "128k"}},
		{"s24.wav", []string{"-ac", "2", "-ar", "48000", "-c:a", "pcm_s24le"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := ffmpegGen(t, c.name, append(append([]string{}, src...), c.args...)...)
			n, err := AnalyzeWith(ctx, NativeDecoder{}, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			f, err := AnalyzeWith(ctx, FFmpegDecoder{}, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("native I %.4f LUFS TP %.3f dur %.4f | ffmpeg I %.4f LUFS TP %.3f dur %.4f",
				n.Loudness.Integrated, n.Loudness.TruePeak, n.Input.Duration, f.Loudness.Integrated, f.Loudness.TruePeak, f.Input.Duration)
			if d := math.Abs(n.Loudness.Integrated - f.Loudness.Integrated); d > 0.02 {
				t.Errorf("integrated loudness differs by %.4f LU", d)
			}
			if d := math.Abs(n.Input.Duration - f.Input.Duration); d > 0.001 {
				t.Errorf("durations differ by %.4f s", d)
			}
			if n.Input.Channels != f.Input.Channels {
				t.Errorf("channels %d vs %d", n.Input.Channels, f.Input.Channels)
			}
		})
	}
}

// BenchmarkDecodeMP3 decodes a 10-minute 44.1 kHz stereo MP3 with go-mp3
// (native) and through the ffmpeg pipe.
func BenchmarkDecodeMP3(b *testing.B) {
	path := ffmpegGen(b, "ten.mp3", "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.3:d=600", "-ac", "2", "-ar", "44100", "-c:a", "libmp3lame", "-q:a", "2")
	for _, dec := range []Decoder{NativeDecoder{}, FFmpegDecoder{}} {
		b.Run(fmt.Sprintf("%T", dec)[4:], func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]float32, 8192)
			for b.Loop() {
				s, err := openFile(context.Background(), dec, path)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := s.Read(buf); err != nil {
						break
					}
				}
				s.Close()
			}
			b.ReportMetric(600*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
		})
	}
}

// TestVideoAudioAlignedToFirstFrame: a video's decoded audio starts at its
// first frame, whichever stream the file starts with, so that a time in
// the analysis is the same time in the picture (the render picks frames
// counted from the first). The audio holds a tone from 1 s on; the
// containers shift it (or the picture) as recorders and muxers do.
func TestVideoAudioAlignedToFirstFrame(t *testing.T) {
	audio := []string{"-f", "lavfi", "-i", "sine=f=1000:d=1.5,adelay=1000:all=1"}
	video := []string{"-f", "lavfi", "-i", "color=black:size=64x64:rate=25:duration=4"}
	x264 := []string{"-c:v", "libx264", "-preset", "ultrafast"}
	mux := func(name string, audioAt, videoAt string, enc ...string) string {
		var args []string
		if videoAt != "" {
			args = append(args, "-itsoffset", videoAt)
		}
		args = append(args, video...)
		if audioAt != "" {
			args = append(args, "-itsoffset", audioAt)
		}
		args = append(append(args, audio...), "-map", "0:v", "-map", "1:a")
		return ffmpegGen(t, name, append(append(args, x264...), enc...)...)
	}
	aac := []string{"-c:a", "aac", "-movflags", "+faststart"}
	opus := []string{"-c:a", "libopus"}
	for _, c := range []struct {
		name string
		path string
		want float64 // the tone's onset after the first frame, s
		tol  float64
	}{
		{"mp4, audio with the picture", mux("a.mp4", "", "", aac...), 1.0, 0.003},
		{"mp4, audio 1 s late", mux("b.mp4", "1.0", "", aac...), 2.0, 0.003},
		{"mp4, audio 50 ms late", mux("c.mp4", "0.05", "", aac...), 1.05, 0.003},
		// Matroska keeps each stream's first timestamp (in ms); the Opus
		// encoder's delay puts the audio 7 ms before it and the picture
		// 7 ms after.
		{"mkv, audio with the picture", mux("e.mkv", "", "", opus...), 0.993, 0.002},
		{"mkv, audio 0.5 s late", mux("f.mkv", "0.5", "", opus...), 1.493, 0.002},
		{"mkv, picture 0.5 s late", mux("d.mkv", "", "0.5", opus...), 0.473, 0.002},
		{"m4a, no picture", ffmpegGen(t, "g.m4a", append(audio, aac...)...), 1.0, 0.003},
	} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []struct {
			how string
			r   io.Reader
		}{{"file", f}, {"stream", streamOnly(b)}} {
			s, err := FFmpegDecoder{}.Decode(context.Background(), in.r, filepath.Base(c.path))
			if err != nil {
				t.Fatalf("%s (%s): %v", c.name, in.how, err)
			}
			x := decodeAll(t, s)
			s.Close()
			got := onset(x, s.Format().Channels, s.Format().SampleRate, 0.05)
			t.Logf("%s (%s): the tone starts %.4f s after the first frame", c.name, in.how, got)
			if math.Abs(got-c.want) > c.tol {
				t.Errorf("%s (%s): the tone starts %.4f s after the first frame, want %.3f", c.name, in.how, got, c.want)
			}
		}
		f.Close()
	}
}

// TestVideoFramesArePictureLength: a video's length in frames is its
// picture's, not its audio's: 2199 frames at 29.97 and 1834 at 25 with
// audio two frames longer (2201 and 1836 frames' worth), in MP4 (which
// states the count) and Matroska (which states the stream's duration), by
// the probe and after the analysis's full decode. The timelines declared
// the audio's length as the video asset's.
func TestVideoFramesArePictureLength(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		rate          string
		frames, audio int
		fps           float64
	}{
		{"30000/1001", 2199, 2201, 30000.0 / 1001},
		{"25", 1834, 1836, 25},
	} {
		for _, ext := range []string{"mp4", "mkv"} {
			t.Run(c.rate+"."+ext, func(t *testing.T) {
				sec := strconv.FormatFloat(float64(c.audio)/c.fps, 'f', 6, 64)
				acodec := "aac"
				if ext == "mkv" {
					acodec = "pcm_s16le"
				}
				path := ffmpegGen(t, "v."+ext, "-f", "lavfi", "-i", "testsrc=size=32x18:rate="+c.rate, "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000",
					"-t", sec, "-filter_complex", "[0:v]trim=end_frame="+strconv.Itoa(c.frames)+"[v]", "-map", "[v]", "-map", "1:a",
					"-c:v", "libx264", "-preset", "ultrafast", "-c:a", acodec)
				info, err := Probe(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				if info.VideoFrames != int64(c.frames) {
					t.Errorf("probe: %d video frames, want %d (audio %.3f s = %.1f frames)", info.VideoFrames, c.frames, info.Duration, info.Duration*c.fps)
				}
				a, err := AnalyzeFile(ctx, path, nil)
				if err != nil {
					t.Fatal(err)
				}
				if a.Input.VideoFrames != int64(c.frames) {
					t.Errorf("analysis: %d video frames, want %d", a.Input.VideoFrames, c.frames)
				}
				if got := a.Input.Duration * c.fps; got < float64(c.frames)+1 {
					t.Errorf("the decoded audio is %.2f frames long: the test wants it longer than the picture", got)
				}
			})
		}
	}
}
