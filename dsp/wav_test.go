package dsp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// wavSpec describes a WAVE file the tests build byte by byte.
type wavSpec struct {
	container  string // "RIFF", "RF64", "BW64"
	tag        int
	extensible bool
	bits       int
	channels   int
	rate       int
	frames     int
	extra      [][2]string // chunks before fmt/data: id, body
	dataSize   int64       // -1: honest; otherwise written as is
	truncate   int         // bytes cut from the end
	bextRef    uint64
}

// sampleAt is the test signal: a per-channel ramp that stays inside [-1, 1).
func sampleAt(i, c int) float64 { return math.Sin(float64(i)*0.05+float64(c)) * 0.75 }

func buildWAV(s wavSpec) []byte {
	align := s.channels * s.bits / 8
	var data bytes.Buffer
	for i := 0; i < s.frames; i++ {
		for c := 0; c < s.channels; c++ {
			v := sampleAt(i, c)
			switch {
			case s.tag == waveFloat && s.bits == 32:
				binary.Write(&data, binary.LittleEndian, float32(v))
			case s.tag == waveFloat:
				binary.Write(&data, binary.LittleEndian, v)
			case s.bits == 8:
				data.WriteByte(byte(int(math.Round(v*127)) + 128))
			case s.bits == 16:
				binary.Write(&data, binary.LittleEndian, int16(math.Round(v*32767)))
			case s.bits == 24:
				x := int32(math.Round(v * 8388607))
				data.Write([]byte{byte(x), byte(x >> 8), byte(x >> 16)})
			case s.bits == 32:
				binary.Write(&data, binary.LittleEndian, int32(math.Round(v*2147483647)))
			}
		}
	}
	var b bytes.Buffer
	chunk := func(id string, body []byte) {
		b.WriteString(id)
		binary.Write(&b, binary.LittleEndian, uint32(len(body)))
		b.Write(body)
		if len(body)%2 == 1 {
			b.WriteByte(0)
		}
	}
	b.WriteString(s.container)
	binary.Write(&b, binary.LittleEndian, uint32(0xFFFFFFFF)) // patched below for RIFF
	b.WriteString("WAVE")
	if s.container != "RIFF" {
		ds := make([]byte, 28)
		binary.LittleEndian.PutUint64(ds[8:], uint64(data.Len()))
		binary.LittleEndian.PutUint64(ds[16:], uint64(s.frames))
		chunk("ds64", ds)
	}
	for _, e := range s.extra {
		chunk(e[0], []byte(e[1]))
	}
	if s.bextRef > 0 {
		bext := make([]byte, 602)
		binary.LittleEndian.PutUint64(bext[338:], s.bextRef)
		chunk("bext", bext)
	}
	var f bytes.Buffer
	tag := s.tag
	if s.extensible {
		tag = waveExtensible
	}
	binary.Write(&f, binary.LittleEndian, uint16(tag))
	binary.Write(&f, binary.LittleEndian, uint16(s.channels))
	binary.Write(&f, binary.LittleEndian, uint32(s.rate))
	binary.Write(&f, binary.LittleEndian, uint32(s.rate*align))
	binary.Write(&f, binary.LittleEndian, uint16(align))
	binary.Write(&f, binary.LittleEndian, uint16(s.bits))
	if s.extensible {
		binary.Write(&f, binary.LittleEndian, uint16(22))
		binary.Write(&f, binary.LittleEndian, uint16(s.bits))
		binary.Write(&f, binary.LittleEndian, uint32(3))
		guid := []byte{0, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71}
		binary.LittleEndian.PutUint16(guid, uint16(s.tag))
		f.Write(guid)
	}
	chunk("fmt ", f.Bytes())
	b.WriteString("data")
	size := uint32(data.Len())
	if s.container != "RIFF" {
		size = 0xFFFFFFFF
	}
	if s.dataSize >= 0 {
		size = uint32(s.dataSize)
	}
	binary.Write(&b, binary.LittleEndian, size)
	b.Write(data.Bytes())
	out := b.Bytes()
	if s.container == "RIFF" {
		binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	}
	return out[:len(out)-s.truncate]
}

func TestWAVVariants(t *testing.T) {
	base := wavSpec{container: "RIFF", tag: wavePCM, bits: 16, channels: 2, rate: 44100, frames: 1000, dataSize: -1}
	with := func(f func(*wavSpec)) wavSpec { s := base; f(&s); return s }
	cases := []struct {
		name       string
		spec       wavSpec
		wantFrames int
		tol        float64
	}{
		{"pcm16 stereo", base, 1000, 2.0 / 32768},
		{"pcm8 mono", with(func(s *wavSpec) { s.bits, s.channels = 8, 1 }), 1000, 1.0 / 100},
		{"pcm24 6ch", with(func(s *wavSpec) { s.bits, s.channels = 24, 6 }), 1000, 1e-6},
		{"pcm32 8ch", with(func(s *wavSpec) { s.bits, s.channels = 32, 8 }), 1000, 1e-6},
		{"float32", with(func(s *wavSpec) { s.tag, s.bits = waveFloat, 32 }), 1000, 1e-7},
		{"float64", with(func(s *wavSpec) { s.tag, s.bits = waveFloat, 64 }), 1000, 1e-7},
		{"extensible float32", with(func(s *wavSpec) { s.tag, s.bits, s.extensible = waveFloat, 32, true }), 1000, 1e-7},
		{"extensible pcm24", with(func(s *wavSpec) { s.bits, s.extensible = 24, true }), 1000, 1e-6},
		{"rf64", with(func(s *wavSpec) { s.container = "RF64" }), 1000, 2.0 / 32768},
		{"bw64", with(func(s *wavSpec) { s.container = "BW64"; s.bits = 24 }), 1000, 1e-6},
		{"odd junk and list chunks", with(func(s *wavSpec) { s.extra = [][2]string{{"JUNK", "abc"}, {"LIST", "INFOISFT\x05\x00\x00\x00Lavf\x00"}} }), 1000, 2.0 / 32768},
		{"truncated data", with(func(s *wavSpec) { s.truncate = 4*100 + 3 }), 899, 2.0 / 32768},
		{"data size larger than file", with(func(s *wavSpec) { s.dataSize = 1 << 30 }), 1000, 2.0 / 32768},
		{"data size unset (streamed)", with(func(s *wavSpec) { s.dataSize = 0 }), 1000, 2.0 / 32768},
		{"data size 0xFFFFFFFF", with(func(s *wavSpec) { s.dataSize = 0xFFFFFFFF }), 1000, 2.0 / 32768},
		{"bext time reference", with(func(s *wavSpec) { s.bextRef = 44100 * 3600 }), 1000, 2.0 / 32768},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := NewWAVReader(bytes.NewReader(buildWAV(c.spec)))
			if err != nil {
				t.Fatal(err)
			}
			if w.Format() != (Format{c.spec.rate, c.spec.channels}) {
				t.Fatalf("format %+v", w.Format())
			}
			buf := make([]float32, 77*c.spec.channels) // odd size: reads straddle
			i := 0
			for {
				n, err := w.Read(buf)
				for k := 0; k < n; k++ {
					fr, ch := i/c.spec.channels, i%c.spec.channels
					if d := math.Abs(float64(buf[k]) - sampleAt(fr, ch)); d > c.tol {
						t.Fatalf("sample %d ch %d: got %v want %v", fr, ch, buf[k], sampleAt(fr, ch))
					}
					i++
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := i / c.spec.channels; got != c.wantFrames {
				t.Errorf("decoded %d frames, want %d", got, c.wantFrames)
			}
			info := w.Info()
			if info.Frames != int64(c.wantFrames) || math.Abs(info.Duration-float64(c.wantFrames)/float64(c.spec.rate)) > 1e-9 {
				t.Errorf("info after decode: frames %d duration %v", info.Frames, info.Duration)
			}
			if c.spec.bextRef > 0 && info.StartTimecode != 3600 {
				t.Errorf("start timecode %v, want 3600", info.StartTimecode)
			}
		})
	}
}

func TestWAVBadHeaders(t *testing.T) {
	good := buildWAV(wavSpec{container: "RIFF", tag: wavePCM, bits: 16, channels: 2, rate: 44100, frames: 10, dataSize: -1})
	fmtAt := bytes.Index(good, []byte("fmt ")) + 8
	patch := func(off int, v uint16) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint16(b[fmtAt+off:], v)
		return b
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"wrong magic", []byte("RIFX\x00\x00\x00\x00WAVEfmt ")},
		{"no fmt", []byte("RIFF\x04\x00\x00\x00WAVE")},
		{"zero channels", patch(2, 0)},
		{"nine channels", patch(2, 9)},
		{"zero rate", func() []byte { b := bytes.Clone(good); binary.LittleEndian.PutUint32(b[fmtAt+4:], 0); return b }()},
		{"bad align", patch(12, 3)},
		{"12-bit pcm", patch(14, 12)},
		{"adpcm", patch(0, 2)},
		{"huge fmt chunk", func() []byte {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b[fmtAt-4:], 0x7FFFFFF0)
			return b
		}()},
		{"huge junk chunk then EOF", []byte("RIFF\x00\x00\x00\x00WAVEJUNK\xF0\xFF\xFF\x7F")},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewWAVReader(bytes.NewReader(c.data))
			if !errors.Is(err, ErrUnsupportedFormat) {
				t.Errorf("err %v, want ErrUnsupportedFormat", err)
			}
		})
	}
}

func FuzzWAV(f *testing.F) {
	f.Add(buildWAV(wavSpec{container: "RIFF", tag: wavePCM, bits: 16, channels: 2, rate: 44100, frames: 20, dataSize: -1}))
	f.Add(buildWAV(wavSpec{container: "RF64", tag: waveFloat, bits: 32, channels: 1, rate: 48000, frames: 20, dataSize: -1}))
	f.Add(buildWAV(wavSpec{container: "RIFF", tag: wavePCM, bits: 24, extensible: true, channels: 6, rate: 48000, frames: 5, dataSize: 0, bextRef: 99}))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := NewWAVReader(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrUnsupportedFormat) {
				t.Fatalf("error not typed: %v", err)
			}
			return
		}
		buf := make([]float32, 64*w.Format().Channels)
		total := 0
		for {
			n, err := w.Read(buf)
			total += n
			if n%w.Format().Channels != 0 {
				t.Fatalf("partial frame: %d samples", n)
			}
			if err != nil {
				break
			}
			if total > len(b) {
				t.Fatalf("more samples (%d) than input bytes (%d)", total, len(b))
			}
		}
	})
}

func FuzzMP3(f *testing.F) {
	f.Add([]byte("ID3\x03\x00\x00\x00\x00\x00\x00\xFF\xFB\x90\x00"))
	f.Add([]byte{0xFF, 0xFB, 0x90, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00})
	f.Add(append([]byte{0xFF, 0xF3, 0x40, 0xC4}, make([]byte, 200)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := newMP3Stream(bytes.NewReader(b))
		if err != nil {
			return
		}
		defer s.Close()
		buf := make([]float32, 1024)
		for i := 0; i < 10000; i++ {
			if _, err := s.Read(buf); err != nil {
				return
			}
		}
	})
}

func BenchmarkWAVRead(b *testing.B) {
	const sec = 60
	data := buildWAV(wavSpec{container: "RIFF", tag: wavePCM, bits: 16, channels: 2, rate: 44100, frames: 44100 * sec, dataSize: -1})
	buf := make([]float32, 4096*2)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWAVReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := w.Read(buf); err != nil {
				break
			}
		}
	}
	b.ReportMetric(sec*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
}

// TestWAVSkip: Skip then Read gives the frames a reader that read through
// gives, and Skip stops at the end (truncated and streamed files too).
func TestWAVSkip(t *testing.T) {
	base := wavSpec{container: "RIFF", tag: wavePCM, bits: 24, channels: 2, rate: 8000, frames: 1000, dataSize: -1}
	for _, c := range []struct {
		name     string
		spec     wavSpec
		skip     int64
		wantSkip int64
	}{
		{"middle", base, 333, 333},
		{"all", base, 1000, 1000},
		{"past the end", base, 5000, 1000},
		{"truncated", func() wavSpec { s := base; s.truncate = 6*100 + 2; return s }(), 950, 899},
		{"streamed", func() wavSpec { s := base; s.dataSize = 0; return s }(), 400, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := buildWAV(c.spec)
			all, err := NewWAVReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			want := decodeAll(t, all)
			w, err := NewWAVReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Skip(w, c.skip)
			if err != nil || got != c.wantSkip {
				t.Fatalf("Skip(%d) = %d, %v; want %d", c.skip, got, err, c.wantSkip)
			}
			rest := decodeAll(t, w)
			if d := cmp.Diff(want[min(int(c.skip), len(want)/2)*2:], rest, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("after Skip (-read through +skipped):\n%.300s", d)
			}
			if w.Info().Frames != int64(len(want)/2) {
				t.Errorf("Info().Frames %d, want %d", w.Info().Frames, len(want)/2)
			}
		})
	}
}

// TestPCM16Kernel: the 16-bit conversion gives the Go loop's floats to the
// bit, at every length around the kernel's block and for every value.
func TestPCM16Kernel(t *testing.T) {
	src := make([]int16, 1<<16+37)
	for i := range src {
		src[i] = int16(i*7919 + i>>3) // every value, in a scrambled order
	}
	src[0], src[1], src[2] = -32768, 32767, 0
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 1000, len(src)} {
		got := make([]float32, n+1)
		want := make([]float32, n+1)
		got[n], want[n] = 42, 42 // past the end: untouched
		pcm16ToFloat(got, src[:n])
		pcm16Go(want, src[:n])
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n %d: sample %d (%d): %g, want %g", n, i, src[i], got[i], want[i])
			}
		}
	}
}
