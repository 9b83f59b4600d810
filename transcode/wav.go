package transcode

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// wavWriter streams PCM to a WAV file whose length is known in advance: the
// header, with its exact sizes, goes first, so the writer never seeks and the
// output may be a pipe. A file past 4 GB is RF64 (with its ds64 chunk); a
// smaller one reserves the same bytes as a JUNK chunk, as EBU Tech 3306
// advises. (go-audio/wav's encoder wants integer buffers and a seekable
// writer; ours converts from float32 on the fly with no per-call
// allocation.)
type wavWriter struct {
	w      *bufio.Writer
	ch     int
	bits   int
	frames int64 // frames written
	total  int64 // frames declared in the header
	buf    []byte
	rng    uint32 // dither noise state
}

const wavHeaderLen = 12 + 36 + 24 + 8 // RIFF/WAVE + JUNK or ds64 (28 bytes) + fmt(16) + data header

func newWAVWriter(w io.Writer, format dsp.Format, bits int, frames int64) (*wavWriter, error) {
	h, err := wavHeader(format, bits, frames)
	if err != nil {
		return nil, err
	}
	ww := newWAVData(w, format, bits, frames, 0)
	if _, err := ww.w.Write(h); err != nil {
		return nil, err
	}
	return ww, nil
}

// wavDither0 is the dither noise's state at the first sample.
const wavDither0 = 22222

// newWAVData returns a writer of frames frames of WAV data (no header) that
// starts at frame from of the file's data: its dither goes on from there as
// one writer of the whole data's would (ditherAt).
func newWAVData(w io.Writer, format dsp.Format, bits int, frames, from int64) *wavWriter {
	return &wavWriter{w: bufio.NewWriterSize(w, 1<<16), ch: format.Channels, bits: bits, total: frames,
		rng: ditherAt(wavDither0, from*int64(format.Channels))}
}

// ditherAt returns the dither state n draws after state x. A draw is a
// linear map of the 32 bits (xorshift32), so n draws are its n-th power,
// computed by squaring.
func ditherAt(x uint32, n int64) uint32 {
	step := func(v uint32) uint32 {
		v ^= v << 13
		v ^= v >> 17
		v ^= v << 5
		return v
	}
	type mat [32]uint32 // column j: the image of bit j
	apply := func(m *mat, v uint32) uint32 {
		var r uint32
		for j := 0; v != 0; j, v = j+1, v>>1 {
			if v&1 != 0 {
				r ^= m[j]
			}
		}
		return r
	}
	var m mat
	for j := range m {
		m[j] = step(1 << j)
	}
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			x = apply(&m, x)
		}
		var sq mat
		for j := range sq {
			sq[j] = apply(&m, m[j])
		}
		m = sq
	}
	return x
}

// wavHeader returns the header of a PCM WAV file of frames frames.
func wavHeader(format dsp.Format, bits int, frames int64) ([]byte, error) {
	align := format.Channels * bits / 8
	data := uint64(frames) * uint64(align)
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
		le64(uint64(frames))
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
	le16(uint16(format.Channels))
	le32(uint32(format.SampleRate))
	le32(uint32(format.SampleRate * align))
	le16(uint16(align))
	le16(uint16(bits))
	h = append(h, "data"...)
	if rf64 {
		le32(0xFFFFFFFF)
	} else {
		le32(uint32(data))
	}
	if len(h) != wavHeaderLen {
		return nil, fmt.Errorf("wav header is %d bytes, want %d", len(h), wavHeaderLen)
	}
	return h, nil
}

// write converts float32 samples to 16- or 24-bit PCM with TPDF dither.
// Samples past the declared length are dropped.
func (w *wavWriter) write(p []float32) error {
	if room := (w.total - w.frames) * int64(w.ch); int64(len(p)) > room {
		p = p[:room]
	}
	bps := w.bits / 8
	if cap(w.buf) < len(p)*bps {
		w.buf = make([]byte, len(p)*bps)
	}
	b := w.buf[:len(p)*bps]
	scale := math.Exp2(float64(w.bits - 1))
	hi, lo := scale-1, -scale
	rng := w.rng
	for i, v := range p {
		// TPDF dither of +/-1 LSB: the difference of two uniform 16-bit
		// halves of one xorshift32 draw.
		rng ^= rng << 13 // (ditherAt jumps ahead of these steps)
		rng ^= rng >> 17
		rng ^= rng << 5
		d := float64(int32(rng&0xffff)-int32(rng>>16)) * (1.0 / 65536)
		x := math.Floor(float64(v)*scale + d + 0.5)
		x = min(max(x, lo), hi)
		iv := int32(x)
		if bps == 2 {
			b[2*i], b[2*i+1] = byte(iv), byte(iv>>8)
		} else {
			b[3*i], b[3*i+1], b[3*i+2] = byte(iv), byte(iv>>8), byte(iv>>16)
		}
	}
	w.rng = rng
	w.frames += int64(len(p) / w.ch)
	_, err := w.w.Write(b)
	return err
}

// finish pads the data with silence up to the declared length (and to an
// even size) and flushes.
func (w *wavWriter) finish() error {
	align := int64(w.ch * w.bits / 8)
	pad := (w.total - w.frames) * align
	if (w.total*align)&1 == 1 {
		pad++
	}
	zero := make([]byte, min(pad, 1<<16))
	for pad > 0 {
		n := min(pad, int64(len(zero)))
		if _, err := w.w.Write(zero[:n]); err != nil {
			return err
		}
		pad -= n
	}
	w.frames = w.total
	return w.w.Flush()
}
