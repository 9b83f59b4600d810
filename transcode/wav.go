package transcode

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/autocut-dev/autocut/dsp"
)

// wavWriter streams PCM to a WAV file and writes the sizes into the header
// when closed. It reserves a JUNK chunk the size of an RF64 ds64 chunk, so an
// output past 4 GB becomes RF64 in place. (go-audio/wav's encoder wants
// integer buffers and a seekable writer too; our own writer converts from
// float32 on the fly with no per-call allocation.)
type wavWriter struct {
	f      *os.File
	w      *bufio.Writer
	ch     int
	rate   int
	bits   int
	frames int64
	buf    []byte
	rng    uint32 // dither noise state
}

const wavHeaderLen = 12 + 36 + 24 + 8 // RIFF/WAVE + JUNK(28 bytes, room for ds64) + fmt(16) + data header

func newWAVWriter(f *os.File, format dsp.Format, bits int) (*wavWriter, error) {
	w := &wavWriter{f: f, w: bufio.NewWriterSize(f, 1<<16), ch: format.Channels, rate: format.SampleRate, bits: bits, rng: 22222}
	if _, err := w.w.Write(make([]byte, wavHeaderLen)); err != nil {
		return nil, err
	}
	return w, nil
}

// write converts float32 samples to 16- or 24-bit PCM with TPDF dither.
func (w *wavWriter) write(p []float32) error {
	bps := w.bits / 8
	if cap(w.buf) < len(p)*bps {
		w.buf = make([]byte, len(p)*bps)
	}
	b := w.buf[:len(p)*bps]
	scale := math.Exp2(float64(w.bits - 1))
	hi, lo := scale-1, -scale
	for i, v := range p {
		x := float64(v)*scale + w.tpdf()
		x = math.Round(x)
		x = min(max(x, lo), hi)
		iv := int32(x)
		if bps == 2 {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(iv)))
		} else {
			b[3*i], b[3*i+1], b[3*i+2] = byte(iv), byte(iv>>8), byte(iv>>16)
		}
	}
	w.frames += int64(len(p) / w.ch)
	_, err := w.w.Write(b)
	return err
}

// tpdf returns triangular dither of +/-1 LSB.
func (w *wavWriter) tpdf() float64 {
	next := func() float64 {
		w.rng ^= w.rng << 13
		w.rng ^= w.rng >> 17
		w.rng ^= w.rng << 5
		return float64(w.rng) / (1 << 32)
	}
	return next() - next()
}

// finish flushes the samples and writes the header.
func (w *wavWriter) finish() error {
	if err := w.w.Flush(); err != nil {
		return err
	}
	align := w.ch * w.bits / 8
	data := uint64(w.frames) * uint64(align)
	h := make([]byte, 0, wavHeaderLen)
	le32 := func(v uint32) { h = binary.LittleEndian.AppendUint32(h, v) }
	le16 := func(v uint16) { h = binary.LittleEndian.AppendUint16(h, v) }
	le64 := func(v uint64) { h = binary.LittleEndian.AppendUint64(h, v) }
	riff := uint64(wavHeaderLen-8) + data + data&1
	rf64 := riff > math.MaxUint32
	if rf64 {
		h = append(h, "RF64"...)
		le32(0xFFFFFFFF)
		h = append(h, "WAVEds64"...)
		le32(28)
		le64(riff)
		le64(data)
		le64(uint64(w.frames))
		le32(0)
	} else {
		h = append(h, "RIFF"...)
		le32(uint32(riff))
		h = append(h, "WAVEJUNK"...)
		le32(28)
		h = append(h, make([]byte, 28)...)
	}
	h = append(h, "fmt "...)
	le32(16)
	le16(1)
	le16(uint16(w.ch))
	le32(uint32(w.rate))
	le32(uint32(w.rate * align))
	le16(uint16(align))
	le16(uint16(w.bits))
	h = append(h, "data"...)
	if rf64 {
		le32(0xFFFFFFFF)
	} else {
		le32(uint32(data))
	}
	if data&1 == 1 {
		if _, err := w.f.Seek(0, io.SeekEnd); err != nil {
			return err
		}
		if _, err := w.f.Write([]byte{0}); err != nil {
			return err
		}
	}
	if len(h) != wavHeaderLen {
		return fmt.Errorf("wav header is %d bytes, want %d", len(h), wavHeaderLen)
	}
	_, err := w.f.WriteAt(h, 0)
	return err
}
