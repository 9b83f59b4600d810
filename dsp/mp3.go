package dsp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	gomp3 "github.com/hajimehoshi/go-mp3"
)

// mp3Decoder529 is the MP3 decoder delay in samples that LAME's encoder delay
// does not include (the synthesis filterbank's 528 + 1).
const mp3Decoder529 = 529

// mp3Header is what the first frames of an MP3 tell about the stream.
type mp3Header struct {
	sampleRate     int
	channels       int
	samplesPerFrm  int
	frames         int64 // from the Xing/Info tag; 0 when absent
	encDelay       int   // from the LAME tag
	padding        int
	hasInfoFrame   bool
	lameTag        bool // the Info frame carries a LAME (or Lavc/Lavf) extension
	firstFrameSize int
	offset         int // byte offset of the first frame
	version        int // MPEG version index: 0 = 2.5, 2 = 2, 3 = 1
}

// mp3 sample rates by version index (0 = MPEG 2.5, 2 = MPEG 2, 3 = MPEG 1).
var mp3Rates = [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}

// layer III bitrates in kbit/s: MPEG 1, MPEG 2/2.5.
var mp3Bitrates = [2][16]int{
	{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0},
	{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},
}

// parseMP3Header finds the first frame after any ID3v2 tag in head and reads
// its channel mode and, when the frame is a Xing/Info frame, the LAME gapless
// fields. head is the first bytes of the file.
func parseMP3Header(head []byte) (mp3Header, error) {
	var h mp3Header
	off := 0
	if len(head) >= 10 && string(head[:3]) == "ID3" {
		size := int(head[6]&0x7f)<<21 | int(head[7]&0x7f)<<14 | int(head[8]&0x7f)<<7 | int(head[9]&0x7f)
		off = 10 + size
		if head[5]&0x10 != 0 {
			off += 10
		}
	}
	// Find the first plausible frame header (tolerate a little junk).
	for ; off+4 <= len(head); off++ {
		if isMP3FrameHeader(binary.BigEndian.Uint32(head[off:])) {
			break
		}
	}
	if off+4 > len(head) {
		return h, fmt.Errorf("mp3: no frame header in the first %d bytes: %w", len(head), ErrUnsupportedFormat)
	}
	v := binary.BigEndian.Uint32(head[off:])
	version := int(v>>19) & 3
	h.offset, h.version = off, version
	h.sampleRate = mp3Rates[version][(v>>10)&3]
	mono := (v>>6)&3 == 3
	h.channels = 2
	if mono {
		h.channels = 1
	}
	mpeg1 := version == 3
	h.samplesPerFrm = 576
	if mpeg1 {
		h.samplesPerFrm = 1152
	}
	h.firstFrameSize, _ = mp3FrameSize(v, h)
	side := 32
	switch {
	case mpeg1 && mono:
		side = 17
	case !mpeg1 && mono:
		side = 9
	case !mpeg1:
		side = 17
	}
	x := off + 4 + side
	if x+8 > len(head) {
		return h, nil
	}
	tag := string(head[x : x+4])
	if tag != "Xing" && tag != "Info" {
		return h, nil
	}
	h.hasInfoFrame = true
	flags := binary.BigEndian.Uint32(head[x+4:])
	p := x + 8
	if flags&1 != 0 && p+4 <= len(head) {
		h.frames = int64(binary.BigEndian.Uint32(head[p:]))
		p += 4
	}
	if flags&2 != 0 {
		p += 4
	}
	if flags&4 != 0 {
		p += 100
	}
	if flags&8 != 0 {
		p += 4
	}
	// LAME extension: 9-byte encoder string, then delay/padding at +21.
	if p+24 <= len(head) && (string(head[p:p+4]) == "LAME" || string(head[p:p+4]) == "Lavc" || string(head[p:p+4]) == "Lavf") {
		d := head[p+21:]
		h.lameTag = true
		h.encDelay = int(d[0])<<4 | int(d[1])>>4
		h.padding = int(d[1]&0x0f)<<8 | int(d[2])
	}
	return h, nil
}

// mp3Stream decodes MP3 with github.com/hajimehoshi/go-mp3 and mends two of
// its habits: it always yields 16-bit stereo (a mono file is read back as
// one channel, or it would measure 3 dB too loud), and it does not trim the
// encoder delay and padding recorded in the LAME tag (so every timestamp
// would be about 51 ms late at 44.1 kHz).
type mp3Stream struct {
	dec    *gomp3.Decoder
	info   Info
	format Format
	skip   int64 // frames still to drop at the start
	left   int64 // frames still to deliver; -1 when unknown
	buf    *[]byte
	frames int64
	done   bool
	closer io.Closer
	// path is the file decoded, when known (Analyze may decode its second
	// half apart); touched: Read was called.
	path    string
	touched bool
	src     *readErr // the input, for its read error
}

// readErr passes reads on and keeps the first error other than the end
// of the input (io.EOF, io.ErrUnexpectedEOF) they return: go-mp3 passes its input's error up as a bare value, which
// would otherwise be taken for a damaged stream (ErrUnsupportedFormat).
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) && e.err == nil {
		e.err = err
	}
	return n, err
}

var mp3BufPool = sync.Pool{New: func() any { b := make([]byte, 4*4096); return &b }}

// newMP3Stream reads the MP3 header from r and starts decoding.
func newMP3Stream(r io.Reader) (*mp3Stream, error) {
	src := &readErr{r: r}
	br := bufio.NewReaderSize(src, 1<<16)
	head, _ := br.Peek(1 << 16)
	if src.err != nil {
		return nil, fmt.Errorf("mp3: read: %w", src.err)
	}
	h, err := parseMP3Header(head)
	if err != nil {
		return nil, err
	}
	var dec *gomp3.Decoder
	err = mp3Call(func() (err error) { dec, err = gomp3.NewDecoder(br); return err })
	switch {
	case err == nil:
	case src.err != nil:
		return nil, fmt.Errorf("mp3: read: %w", src.err)
	case errors.Is(err, ErrUnsupportedFormat):
		return nil, err
	default:
		return nil, fmt.Errorf("mp3: %v: %w", err, ErrUnsupportedFormat)
	}
	s := &mp3Stream{dec: dec, left: -1, buf: mp3BufPool.Get().(*[]byte), src: src}
	s.format = Format{SampleRate: dec.SampleRate(), Channels: h.channels}
	s.info = Info{Type: "audio", Format: "mp3", Codec: "mp3", SampleRate: s.format.SampleRate, Channels: h.channels, Frames: -1}
	if h.hasInfoFrame {
		// go-mp3 decodes the Info frame as a frame of silence; drop it too.
		s.skip = int64(h.samplesPerFrm + h.encDelay + mp3Decoder529)
		if h.frames > 0 {
			s.left = h.frames*int64(h.samplesPerFrm) - int64(h.encDelay) - int64(h.padding)
			if s.left < 0 {
				s.left = 0
			}
			s.info.Frames = s.left
			s.info.Duration = float64(s.left) / float64(s.format.SampleRate)
		}
	}
	return s, nil
}

func (s *mp3Stream) Format() Format { return s.format }

// Info describes the input; after the end, Duration is the real decoded one.
func (s *mp3Stream) Info() Info { return s.info }

// Close returns the buffer to the pool and closes the file.
func (s *mp3Stream) Close() error {
	if s.buf != nil {
		mp3BufPool.Put(s.buf)
		s.buf = nil
	}
	if s.closer != nil {
		err := s.closer.Close()
		s.closer = nil
		return err
	}
	return nil
}

// mp3Call runs fn, a call into the MP3 decoder, and turns a panic of the
// decoder (go-mp3 indexes past its tables on some malformed frames) into
// ErrUnsupportedFormat.
func mp3Call(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mp3: malformed frame (decoder: %v): %w", p, ErrUnsupportedFormat)
		}
	}()
	return fn()
}

// Read fills p with whole frames.
func (s *mp3Stream) Read(p []float32) (int, error) {
	s.touched = true
	if s.done || s.buf == nil {
		return 0, io.EOF
	}
	ch := s.format.Channels
	want := len(p) / ch
	if s.left >= 0 && int64(want) > s.left {
		want = int(s.left)
	}
	if want == 0 {
		return 0, s.finish()
	}
	buf := *s.buf
	n := 0
	for n == 0 {
		max := min(want, len(buf)/4)
		var got int
		err := mp3Call(func() (err error) { got, err = io.ReadAtLeast(s.dec, buf[:4*max], 4); return err })
		got -= got % 4
		frames := got / 4
		start := 0
		if s.skip > 0 {
			d := int(min(int64(frames), s.skip))
			s.skip -= int64(d)
			start = d
		}
		for i := start; i < frames; i++ {
			l := float32(int16(binary.LittleEndian.Uint16(buf[4*i:]))) * (1.0 / 32768)
			if ch == 1 {
				p[n] = l
				n++
				continue
			}
			p[n] = l
			p[n+1] = float32(int16(binary.LittleEndian.Uint16(buf[4*i+2:]))) * (1.0 / 32768)
			n += 2
		}
		if err != nil {
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				s.account(n / ch)
				if n == 0 {
					return 0, s.finish()
				}
				s.done = true
				s.info.Frames = s.frames
				s.info.Duration = float64(s.frames) / float64(s.format.SampleRate)
				return n, nil
			}
			switch {
			case s.src != nil && s.src.err != nil:
				err = s.src.err // the input failed, not the stream
			case !errors.Is(err, ErrUnsupportedFormat):
				// go-mp3 stops at a frame it cannot read (another layer,
				// a damaged header): the input is damaged there.
				err = fmt.Errorf("%v: %w", err, ErrUnsupportedFormat)
			}
			return n, fmt.Errorf("mp3: decode at %.3f s: %w", float64(s.frames)/float64(s.format.SampleRate), err)
		}
	}
	s.account(n / ch)
	return n, nil
}

func (s *mp3Stream) account(frames int) {
	s.frames += int64(frames)
	if s.left >= 0 {
		s.left -= int64(frames)
	}
}

func (s *mp3Stream) finish() error {
	s.done = true
	s.info.Frames = s.frames
	s.info.Duration = float64(s.frames) / float64(s.format.SampleRate)
	return io.EOF
}

// MP3GaplessDuration reads the Xing/Info and LAME tags from the first bytes
// of an MP3 file and returns its exact playing time (frames times samples
// per frame, minus encoder delay and padding), which container durations
// (ffprobe's among them) overstate. ok is false without a Xing frame count.
func MP3GaplessDuration(head []byte) (seconds float64, ok bool) {
	h, err := parseMP3Header(head)
	if err != nil || h.frames <= 0 || h.sampleRate <= 0 {
		return 0, false
	}
	n, _ := mp3GaplessFrames(head)
	return float64(n) / float64(h.sampleRate), true
}

// mp3GaplessFrames is the exact number of sample frames of an MP3 whose
// first bytes are head, from its Xing frame count and LAME delay and
// padding (ok false without a frame count).
func mp3GaplessFrames(head []byte) (int64, bool) {
	h, err := parseMP3Header(head)
	if err != nil || h.frames <= 0 || h.sampleRate <= 0 {
		return 0, false
	}
	return max(h.frames*int64(h.samplesPerFrm)-int64(h.encDelay)-int64(h.padding), 0), true
}
