package dsp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"
)

// WAV format tags.
const (
	wavePCM        = 0x0001
	waveFloat      = 0x0003
	waveExtensible = 0xFFFE
)

// maxWAVHeaderChunks bounds how many non-data chunks the reader skips before
// giving up, so a file of endless tiny chunks cannot keep it busy forever.
const maxWAVHeaderChunks = 4096

// WAVReader decodes RIFF, RF64 and BW64 WAVE files as a stream of float32 frames.
//
// It is our own small reader rather than go-audio/wav's decoder, which (as
// measured here) reads IEEE float WAV as integers, cannot read RF64 and
// allocates on every read, making it about 4x slower than this bufio loop on
// the analysis hot path. go-audio/wav remains the writer of choice.
type WAVReader struct {
	r        *bufio.Reader
	info     Info
	format   Format
	tag      int
	bits     int // container bits per sample
	valid    int // valid bits (extensible), for Info
	align    int // bytes per frame
	left     int64
	unknown  bool // data size unknown (streamed or 0xFFFFFFFF): read to EOF
	buf      []byte
	frames   int64 // frames decoded so far
	finished bool
	timeRef  uint64 // BWF time reference, samples since midnight
}

// NewWAVReader reads the header of a WAVE stream from r, up to the start of
// the sample data, and returns a reader of its samples. Bad or unsupported
// headers return an error wrapping ErrUnsupportedFormat.
func NewWAVReader(r io.Reader) (*WAVReader, error) {
	if r == nil {
		return nil, errNilReader("wav")
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	w := &WAVReader{r: br}
	if err := w.readHeader(); err != nil {
		return nil, err
	}
	return w, nil
}

func wavErr(format string, args ...any) error {
	return fmt.Errorf("wav: %s: %w", fmt.Sprintf(format, args...), ErrUnsupportedFormat)
}

func (w *WAVReader) readHeader() error {
	var hdr [12]byte
	n, err := io.ReadFull(w.r, hdr[:])
	if n == 0 {
		return wavErr("empty input")
	}
	if err != nil {
		return wavErr("file is %d bytes, too short for a RIFF header", n)
	}
	id := string(hdr[:4])
	if (id != "RIFF" && id != "RF64" && id != "BW64") || string(hdr[8:12]) != "WAVE" {
		return wavErr("not a WAVE file (starts with %q)", hdr[:12])
	}
	rf64 := id != "RIFF"
	var dataSize64 int64 = -1
	haveFmt := false
	for i := 0; i < maxWAVHeaderChunks; i++ {
		var ch [8]byte
		if _, err := io.ReadFull(w.r, ch[:]); err != nil {
			if !haveFmt {
				return wavErr("no fmt chunk before end of file")
			}
			return wavErr("no data chunk before end of file")
		}
		cid := string(ch[:4])
		size := int64(binary.LittleEndian.Uint32(ch[4:]))
		switch cid {
		case "ds64":
			if size < 24 {
				return wavErr("ds64 chunk of %d bytes", size)
			}
			var d [24]byte
			if _, err := io.ReadFull(w.r, d[:]); err != nil {
				return wavErr("truncated ds64 chunk")
			}
			ds := binary.LittleEndian.Uint64(d[8:])
			if ds <= math.MaxInt64 {
				dataSize64 = int64(ds)
			}
			if err := skip(w.r, size-24+size&1); err != nil {
				return wavErr("truncated ds64 chunk")
			}
		case "fmt ":
			if err := w.readFmt(size); err != nil {
				return err
			}
			haveFmt = true
		case "bext":
			if err := w.readBext(size); err != nil {
				return err
			}
		case "data":
			if !haveFmt {
				return wavErr("data chunk before fmt chunk")
			}
			switch {
			case rf64 && size == 0xFFFFFFFF && dataSize64 >= 0:
				w.left = dataSize64
			case size == 0xFFFFFFFF || size == 0:
				// Streamed writers leave the size unset: read to the end.
				w.unknown = true
			default:
				w.left = size
			}
			if w.timeRef > 0 && w.timeRef < 1<<53 {
				w.info.StartTimecode = float64(w.timeRef) / float64(w.format.SampleRate)
			}
			w.left -= w.left % int64(w.align)
			w.info.Frames = -1
			if !w.unknown {
				w.info.Frames = w.left / int64(w.align)
				w.info.Duration = float64(w.info.Frames) / float64(w.format.SampleRate)
			}
			return nil
		default:
			if err := skip(w.r, size+size&1); err != nil {
				return wavErr("truncated %q chunk", ch[:4])
			}
		}
	}
	return wavErr("more than %d chunks before the data chunk", maxWAVHeaderChunks)
}

// skip discards n bytes without allocating for n.
func skip(r *bufio.Reader, n int64) error {
	if n <= 0 {
		return nil
	}
	d, err := r.Discard(int(min(n, math.MaxInt32)))
	if err != nil {
		return err
	}
	if int64(d) < n {
		return skip(r, n-int64(d))
	}
	return nil
}

func (w *WAVReader) readFmt(size int64) error {
	if size < 16 || size > 1<<16 {
		return wavErr("fmt chunk of %d bytes", size)
	}
	b := make([]byte, size+size&1)
	if _, err := io.ReadFull(w.r, b); err != nil {
		return wavErr("truncated fmt chunk")
	}
	tag := int(binary.LittleEndian.Uint16(b[0:]))
	chans := int(binary.LittleEndian.Uint16(b[2:]))
	rate := int64(binary.LittleEndian.Uint32(b[4:]))
	align := int(binary.LittleEndian.Uint16(b[12:]))
	bits := int(binary.LittleEndian.Uint16(b[14:]))
	valid := bits
	if tag == waveExtensible {
		if size < 40 {
			return wavErr("extensible fmt chunk of %d bytes", size)
		}
		if v := int(binary.LittleEndian.Uint16(b[18:])); v > 0 && v <= bits {
			valid = v
		}
		tag = int(binary.LittleEndian.Uint16(b[24:])) // first two bytes of the subformat GUID
	}
	switch {
	case chans < 1 || chans > 8:
		return wavErr("%d channels (1 to 8 supported)", chans)
	case rate < 1000 || rate > 768000:
		return wavErr("sample rate %d Hz", rate)
	case tag == wavePCM && bits != 8 && bits != 16 && bits != 24 && bits != 32:
		return wavErr("%d-bit PCM", bits)
	case tag == waveFloat && bits != 32 && bits != 64:
		return wavErr("%d-bit float", bits)
	case tag != wavePCM && tag != waveFloat:
		return wavErr("format tag 0x%04x (only PCM and IEEE float are read natively)", tag)
	case align != chans*bits/8:
		return wavErr("block align %d for %d channels of %d bits", align, chans, bits)
	}
	w.tag, w.bits, w.valid, w.align = tag, bits, valid, align
	w.format = Format{SampleRate: int(rate), Channels: chans}
	codec := fmt.Sprintf("pcm_s%dle", bits)
	if tag == waveFloat {
		codec = fmt.Sprintf("pcm_f%dle", bits)
	} else if bits == 8 {
		codec = "pcm_u8"
	}
	w.info = Info{Type: "audio", Format: "wav", Codec: codec, SampleRate: int(rate), Channels: chans,
		BitsPerSample: valid, Frames: -1}
	return nil
}

// readBext reads the BWF time reference (samples since midnight) as the start timecode.
func (w *WAVReader) readBext(size int64) error {
	const off = 338 // Description 256, Originator 32, OriginatorReference 32, Date 10, Time 8
	if size < off+8 {
		if err := skip(w.r, size+size&1); err != nil {
			return wavErr("truncated bext chunk")
		}
		return nil
	}
	if err := skip(w.r, off); err != nil {
		return wavErr("truncated bext chunk")
	}
	var t [8]byte
	if _, err := io.ReadFull(w.r, t[:]); err != nil {
		return wavErr("truncated bext chunk")
	}
	w.timeRef = binary.LittleEndian.Uint64(t[:]) // turned into seconds once the rate is known
	if err := skip(w.r, size-off-8+size&1); err != nil {
		return wavErr("truncated bext chunk")
	}
	return nil
}

// Format returns the stream's rate and channel count.
func (w *WAVReader) Format() Format { return w.format }

// Info describes the input; after the end is reached, Duration and Frames
// are the real decoded ones (a truncated file reports what it holds).
func (w *WAVReader) Info() Info { return w.info }

// Close does nothing; the caller owns the underlying reader.
func (w *WAVReader) Close() error { return nil }

// Read fills p with whole frames converted to float32.
func (w *WAVReader) Read(p []float32) (int, error) {
	if w.finished {
		return 0, io.EOF
	}
	ch := w.format.Channels
	frames := len(p) / ch
	if frames == 0 {
		return 0, nil
	}
	if !w.unknown && int64(frames) > w.left/int64(w.align) {
		frames = int(w.left / int64(w.align))
	}
	if frames == 0 {
		return 0, w.finish()
	}
	need := frames * w.align
	if cap(w.buf) < need {
		w.buf = make([]byte, need)
	}
	b := w.buf[:need]
	got, err := io.ReadFull(w.r, b)
	got -= got % w.align
	if got == 0 {
		if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, fmt.Errorf("wav: read: %w", err)
		}
		return 0, w.finish()
	}
	n := got / w.align * ch
	w.convert(p[:n], b[:got])
	w.left -= int64(got)
	w.frames += int64(got / w.align)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return n, fmt.Errorf("wav: read: %w", err)
	}
	if err != nil {
		w.left = 0
		w.unknown = false
	}
	return n, nil
}

// Skip passes over the next n frames without converting them (Skipper).
func (w *WAVReader) Skip(n int64) (int64, error) {
	if w.finished || n <= 0 {
		return 0, nil
	}
	if !w.unknown {
		n = min(n, w.left/int64(w.align))
	}
	got, err := w.r.Discard(int(min(n*int64(w.align), math.MaxInt)))
	got -= got % w.align
	w.left -= int64(got)
	w.frames += int64(got / w.align)
	if err != nil && err != io.EOF {
		return int64(got / w.align), fmt.Errorf("wav: read: %w", err)
	}
	return int64(got / w.align), nil
}

// finish records the real decoded length and reports io.EOF.
func (w *WAVReader) finish() error {
	w.finished = true
	w.info.Frames = w.frames
	w.info.Duration = float64(w.frames) / float64(w.format.SampleRate)
	return io.EOF
}

// pcm16Go sets dst[i] = src[i] / 32768 (len(dst) >= len(src)); the
// amd64 kernel (pcm16AVX2) gives the same floats, 16 at a time.
func pcm16Go(dst []float32, src []int16) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float32(v) * (1.0 / 32768)
	}
}

// convert turns little-endian samples into float32 in [-1, 1].
func (w *WAVReader) convert(p []float32, b []byte) {
	switch {
	case w.tag == waveFloat && w.bits == 32:
		for i := range p {
			p[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case w.tag == waveFloat:
		for i := range p {
			p[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case w.bits == 16 && littleEndian() && len(b) > 0:
		// The bytes are the int16 samples: read them as such.
		pcm16ToFloat(p, unsafe.Slice((*int16)(unsafe.Pointer(&b[0])), len(p)))
	case w.bits == 16:
		for i := range p {
			p[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) * (1.0 / 32768)
		}
	case w.bits == 24:
		for i := range p {
			v := int32(uint32(b[3*i])<<8|uint32(b[3*i+1])<<16|uint32(b[3*i+2])<<24) >> 8
			p[i] = float32(v) * (1.0 / 8388608)
		}
	case w.bits == 32:
		for i := range p {
			p[i] = float32(float64(int32(binary.LittleEndian.Uint32(b[4*i:]))) * (1.0 / 2147483648))
		}
	case w.bits == 8:
		for i := range p {
			p[i] = float32(int(b[i])-128) * (1.0 / 128)
		}
	}
}
