package transcode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/autocut-dev/autocut/dsp"
)

// Stitching two MP3 encodes of one signal into one file (see
// encodeMP3Halves). Encoder A encoded the output from its start, encoder B
// from a point d frames later; both share the frame grid, so B's frame k
// holds the same samples as A's frame k+d. The file is A's frames before a
// stitch frame c, then B's from its frame c-d on, under A's Xing/LAME
// frame rewritten for the whole.
//
// Layer III frames depend on what came before them in two ways:
//   - the bit reservoir: a frame's main data may begin up to 511 bytes
//     before its header, in the main data areas of the frames before it
//     (main_data_begin). B's first frame may reach back into B's frames
//     that are not kept; those bytes are copied into the end of A's last
//     main data areas, which A's own next frame, not kept either, had
//     reserved: this fits when A's frame c reached back at least as far.
//   - the filterbank: a granule's inverse MDCT overlaps the previous one.
//     Both encoders transform the same samples, so the overlap cancels as
//     in either stream, to within quantisation noise, provided the windows
//     on both sides of the stitch are the long ones (a window switch at
//     the stitch would not cancel). The stitch is made where the output is
//     quietest among the candidates, so that noise is the smallest.

// mp3Frame is one Layer III frame of a file: where it starts and its bytes.
type mp3Frame struct {
	off  int64
	data []byte // the whole frame
}

func (f mp3Frame) header() uint32 { return binary.BigEndian.Uint32(f.data) }

func (f mp3Frame) channels() int {
	if (f.header()>>6)&3 == 3 {
		return 1
	}
	return 2
}

// sideAt returns where the frame's side information (MPEG-1 layout)
// starts and its length.
func (f mp3Frame) sideAt() (start, n int) {
	start, n = 4, 32
	if f.header()&(1<<16) == 0 { // protected: a 16-bit CRC follows the header
		start = 6
	}
	if f.channels() == 1 {
		n = 17
	}
	return start, n
}

func (f mp3Frame) side() []byte {
	s, n := f.sideAt()
	return f.data[s : s+n]
}

// mainData returns the frame's main data area (what follows its side
// information), where it and the frames after it keep their main data.
func (f mp3Frame) mainData() []byte {
	s, n := f.sideAt()
	return f.data[s+n:]
}

// mainDataBegin is how many bytes before its header the frame's main data
// begins, in the main data areas of the frames before it.
func (f mp3Frame) mainDataBegin() int {
	s := f.side()
	return int(s[0])<<1 | int(s[1]>>7)
}

// windows reports whether every channel's first granule starts with a long
// window half (a normal or start block) and its second granule ends with
// one (a normal or stop block).
func (f mp3Frame) windows() (startsLong, endsLong bool) {
	s, ch := f.side(), f.channels()
	bit := 9 + 3 + 4*ch // main_data_begin, private bits, scfsi
	if ch == 1 {
		bit = 9 + 5 + 4
	}
	get := func(pos, n int) int {
		v := 0
		for i := 0; i < n; i++ {
			v = v<<1 | int(s[(pos+i)/8]>>(7-(pos+i)%8))&1
		}
		return v
	}
	startsLong, endsLong = true, true
	for gr := 0; gr < 2; gr++ {
		for c := 0; c < ch; c++ {
			at := bit + (gr*ch+c)*59 + 33 // past part2_3_length .. scalefac_compress
			if get(at, 1) == 1 {          // window switching: a block type follows
				bt := get(at+1, 2)
				if gr == 0 && bt != 1 {
					startsLong = false
				}
				if gr == 1 && bt != 3 {
					endsLong = false
				}
			}
		}
	}
	return startsLong, endsLong
}

// mp3File is what stitching needs of an encoded MP3 file.
type mp3File struct {
	path     string
	id3      int64   // length of the ID3v2 tag before the first frame
	info     []byte  // the Xing/Info frame
	frames   int     // audio frames after it
	end      int64   // end of the last frame
	first    int64   // offset of the first audio frame
	offs     []int64 // offset of every audio frame
	near     []mp3Frame
	nearFrom int // audio frame index of near[0]
}

// errNoStitch reports that two encodes could not be stitched: the caller
// encodes in one piece instead.
var errNoStitch = errors.New("mp3 halves: no stitch point")

// stitchHeaderMask selects the header fields every frame of a stitched
// file shares (with its channel count): sync, version, layer, sample rate.
const stitchHeaderMask = 0xFFFE0C00

// scanMP3 walks the frames of the MPEG-1 Layer III file at path (an
// optional ID3v2 tag, a Xing/Info frame, audio frames to the end of the
// file) and keeps the bytes of audio frames [from, to).
func scanMP3(path string, from, to int) (*mp3File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	m := &mp3File{path: path, nearFrom: from}
	var head [10]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errNoStitch, path, err)
	}
	pos := int64(0)
	if string(head[:3]) == "ID3" {
		m.id3 = 10 + (int64(head[6]&0x7f)<<21 | int64(head[7]&0x7f)<<14 | int64(head[8]&0x7f)<<7 | int64(head[9]&0x7f))
		if head[5]&0x10 != 0 {
			m.id3 += 10
		}
		if _, err := r.Discard(int(m.id3 - 10)); err != nil {
			return nil, fmt.Errorf("%w: %s: ID3 tag: %v", errNoStitch, path, err)
		}
		pos = m.id3
	} else {
		r = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(head[:]), f), 256<<10)
	}
	var first uint32
	for idx := -1; ; idx++ { // -1: the Info frame
		var hb [4]byte
		if _, err := io.ReadFull(r, hb[:]); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: %s: frame %d: %v", errNoStitch, path, idx, err)
		}
		v := binary.BigEndian.Uint32(hb[:])
		size, samples, ok := dsp.MP3FrameLen(v)
		if idx == -1 {
			first = v
		}
		if !ok || samples != 1152 || (v^first)&stitchHeaderMask != 0 || (v>>6)&3 == 3 != ((first>>6)&3 == 3) {
			return nil, fmt.Errorf("%w: %s: no MPEG-1 Layer III frame at byte %d", errNoStitch, path, pos)
		}
		keep := idx == -1 || (idx >= from && idx < to)
		if keep {
			fr := mp3Frame{off: pos, data: make([]byte, size)}
			copy(fr.data, hb[:])
			if _, err := io.ReadFull(r, fr.data[4:]); err != nil {
				return nil, fmt.Errorf("%w: %s: frame %d: %v", errNoStitch, path, idx, err)
			}
			if idx == -1 {
				m.info = fr.data
				m.first = pos + int64(size)
			} else {
				m.near = append(m.near, fr)
			}
		} else if _, err := r.Discard(size - 4); err != nil {
			return nil, fmt.Errorf("%w: %s: frame %d is cut short", errNoStitch, path, idx)
		}
		if idx >= 0 {
			m.offs = append(m.offs, pos)
		}
		pos += int64(size)
		m.frames = idx + 1
	}
	m.end = pos
	if m.info == nil || infoLayout(m.info).frames < 0 {
		return nil, fmt.Errorf("%w: %s: no Xing/Info frame", errNoStitch, path)
	}
	if from < 0 || from < to && len(m.near) != to-from {
		return nil, fmt.Errorf("%w: %s: %d frames, the stitch needs %d", errNoStitch, path, m.frames, to)
	}
	return m, nil
}

// frame returns audio frame k, which must lie in near (else ok is false).
func (m *mp3File) frame(k int) (mp3Frame, bool) {
	i := k - m.nearFrom
	if i < 0 || i >= len(m.near) {
		return mp3Frame{}, false
	}
	return m.near[i], true
}

// stitchable reports whether A's frames before c and B's from c-d on join
// into a valid stream: the frames on both sides are there, share their
// header fields, end and start with long windows, and B's reservoir bytes
// fit where A's frame c had its own.
func stitchable(a, b *mp3File, c, d int) bool {
	a0, ok1 := a.frame(c - 1)
	a1, ok2 := a.frame(c)
	b0, ok3 := b.frame(c - d - 1)
	b1, ok4 := b.frame(c - d)
	if !ok1 || !ok2 || !ok3 || !ok4 || (a0.header()^b1.header())&(stitchHeaderMask|1<<16) != 0 || a0.channels() != b1.channels() {
		return false
	}
	_, aEnds := a0.windows()
	aStarts, _ := a1.windows()
	_, bEnds := b0.windows()
	bStarts, _ := b1.windows()
	if !aEnds || !aStarts || !bEnds || !bStarts || a1.mainDataBegin() < b1.mainDataBegin() {
		return false
	}
	// The reservoir bytes must lie in frames both files keep in near.
	need := b1.mainDataBegin()
	for k, rem := c-1, need; rem > 0; k-- {
		f, ok := a.frame(k)
		if !ok {
			return false
		}
		rem -= len(f.mainData())
	}
	for k, rem := c-d-1, need; rem > 0; k-- {
		f, ok := b.frame(k)
		if !ok {
			return false
		}
		rem -= len(f.mainData())
	}
	return true
}

// stitchMP3 writes A's frames [0, c) and B's frames [c-d, end) to w, a new
// file, under A's ID3v2 tag and Xing/Info frame rewritten for the whole:
// frame and byte counts, seek table, and in the LAME tag the padding (B's,
// as the end is B's), music length and CRCs. stitchable(a, b, c, d) must
// hold. It returns the file's length.
func stitchMP3(w *os.File, a, b *mp3File, c, d int) (int64, error) {
	kb := c - d
	if !stitchable(a, b, c, d) {
		return 0, fmt.Errorf("%w: frame %d", errNoStitch, c)
	}
	// B's reservoir bytes before its frame kb.
	b1, _ := b.frame(kb)
	need := b1.mainDataBegin()
	res := make([]byte, need)
	for k, rem := kb-1, need; rem > 0; k-- {
		f, _ := b.frame(k)
		md := f.mainData()
		n := min(rem, len(md))
		copy(res[rem-n:rem], md[len(md)-n:])
		rem -= n
	}
	// A's frames [nearFrom, c), with the end of their main data areas (A's
	// frame c's, not kept) holding B's reservoir bytes instead.
	tail := make([]mp3Frame, c-a.nearFrom)
	for i := range tail {
		f := a.near[i]
		tail[i] = mp3Frame{off: f.off, data: append([]byte(nil), f.data...)}
	}
	for k, rem := c-1, need; rem > 0; k-- {
		md := tail[k-a.nearFrom].mainData()
		n := min(rem, len(md))
		copy(md[len(md)-n:], res[rem-n:rem])
		rem -= n
	}

	cw := &crcWriter{w: w}
	af, err := os.Open(a.path)
	if err != nil {
		return 0, err
	}
	defer af.Close()
	bf, err := os.Open(b.path)
	if err != nil {
		return 0, err
	}
	defer bf.Close()
	if _, err := io.Copy(w, io.NewSectionReader(af, 0, a.first)); err != nil {
		return 0, err
	}
	if _, err := io.Copy(cw, io.NewSectionReader(af, a.first, a.near[0].off-a.first)); err != nil {
		return 0, err
	}
	for _, f := range tail {
		if _, err := cw.Write(f.data); err != nil {
			return 0, err
		}
	}
	if _, err := io.Copy(cw, io.NewSectionReader(bf, b1.off, b.end-b1.off)); err != nil {
		return 0, err
	}
	total := a.offs[c] + (b.end - b1.off)

	// The Xing/Info frame for the whole.
	info := append([]byte(nil), a.info...)
	lay := infoLayout(info)
	frames := c + b.frames - kb
	size := total - a.id3
	binary.BigEndian.PutUint32(info[lay.frames:], uint32(frames))
	if lay.bytes >= 0 {
		binary.BigEndian.PutUint32(info[lay.bytes:], uint32(size))
	}
	if lay.toc >= 0 {
		for i := 0; i < 100; i++ {
			t := i * frames / 100
			off := a.offs[min(t, c)]
			if t > c {
				off += b.offs[t-c+kb] - b1.off
			}
			info[lay.toc+i] = byte(min(255, (off-a.id3)*256/size))
		}
	}
	if l := lay.lame; l >= 0 {
		bl := infoLayout(b.info).lame
		if bl < 0 || info[l+21] != b.info[bl+21] || info[l+22]&0xf0 != b.info[bl+22]&0xf0 {
			return 0, fmt.Errorf("%w: the encoders' delays differ", errNoStitch)
		}
		copy(info[l+21:l+24], b.info[bl+21:bl+24]) // the same delay; B's padding
		binary.BigEndian.PutUint32(info[l+28:], uint32(size))
		binary.BigEndian.PutUint16(info[l+32:], cw.crc)
		binary.BigEndian.PutUint16(info[l+34:], lameTagCRC(info, l))
	}
	if _, err := w.WriteAt(info, a.id3); err != nil {
		return 0, err
	}
	return total, nil
}

// infoFields are the offsets of a Xing/Info frame's fields (-1: absent).
type infoFields struct{ frames, bytes, toc, lame int }

// infoLayout finds the fields of the Xing/Info frame b. frames is -1 when b
// is no Info frame with a frame count. lame is the offset of a LAME (or
// Lavc/Lavf) extension whose CRC, at lame+34, checks.
func infoLayout(b []byte) infoFields {
	lay := infoFields{-1, -1, -1, -1}
	if len(b) < 4 {
		return lay
	}
	s, n := mp3Frame{data: b}.sideAt()
	x := s + n
	if x+8 > len(b) || (string(b[x:x+4]) != "Xing" && string(b[x:x+4]) != "Info") {
		return lay
	}
	flags := binary.BigEndian.Uint32(b[x+4:])
	p := x + 8
	if flags&1 == 0 || p+4 > len(b) {
		return lay
	}
	lay.frames, p = p, p+4
	if flags&2 != 0 {
		lay.bytes, p = p, p+4
	}
	if flags&4 != 0 {
		lay.toc, p = p, p+100
	}
	if flags&8 != 0 {
		p += 4
	}
	if p+36 <= len(b) && len(b) >= 190 && binary.BigEndian.Uint16(b[p+34:]) == lameTagCRC(b, p) {
		lay.lame = p
	}
	if max(lay.bytes, lay.toc+100)+4 > len(b) {
		return infoFields{-1, -1, -1, -1}
	}
	return lay
}

// lameTagCRC returns the CRC of the Info frame b whose LAME tag is at l:
// that of its first 190 bytes with the CRC's own two bytes as zeros (they
// lie past them in stereo, inside them in mono).
func lameTagCRC(b []byte, l int) uint16 {
	c := append([]byte(nil), b[:max(190, l+36)]...)
	c[l+34], c[l+35] = 0, 0
	return crc16(0, c[:190])
}

// crc16Table is the table of CRC-16 with the reflected polynomial 0xA001,
// the one LAME's tag uses for its music and tag CRCs.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i)
		for j := 0; j < 8; j++ {
			if c&1 != 0 {
				c = c>>1 ^ 0xA001
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc16 continues the CRC crc over b.
func crc16(crc uint16, b []byte) uint16 {
	for _, x := range b {
		crc = crc>>8 ^ crc16Table[byte(crc)^x]
	}
	return crc
}

// crcWriter writes to w and keeps the CRC-16 of what it wrote.
type crcWriter struct {
	w   io.Writer
	crc uint16
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc16(c.crc, p[:n])
	return n, err
}
