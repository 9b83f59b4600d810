package dsp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// The binary form of an Analysis (MarshalBinary, WriteTo), so that a
// stored analysis can be planned again without decoding the input:
//
//	"ACAN" version(u32=4) jsonLen(u32) json(scalars, Info, warnings, voiceHeard)
//	frameSec(f64) n(u64) rms[n](f32) peak[n](f32)
//	blockSec(f64) m(u64) blocks[m](f64)
//	v(u64) voice[v](u8)          (versions 2 to 4; v is 0 or n)
//	k(u64) bandFrames[k](u32) bands[k*BandCount](u8)   (versions 4 and 5; k at most n, frames ascending)
//	h(u64) highPass[h](f32)      (version 5; h is 0 or n; the JSON holds highPassPeakDb)
//
// Versions 1 and 2 are still read without their voice classification
// (version 1 had none; version 2 held periodicity, not the network's
// speech probability that Voice holds now): a plan made from them decides
// pauses by level alone. Version 3 is read without the spectrum: its
// plans place edges as before it. Version 4 is read without the levels
// after the rumble filter: its plans take their references from the full
// band, as before them.
//
// little-endian throughout; -Inf levels are written as -MaxFloat64 in the
// JSON part. An hour of input is about 4.5 MB, and up to 7 MB more where the
// voice network classified every frame (a noisy bed: their spectrum).
const analysisMagic = "ACAN"

// codecVersion is the version WriteTo writes; ReadFrom reads 1 to it.
const codecVersion = 5

// ErrCorruptAnalysis reports bytes that are not an analysis written by
// MarshalBinary or WriteTo.
var ErrCorruptAnalysis = errors.New("corrupt stored analysis")

// maxStoredFrames bounds allocations from a stored length: far above a
// 3-hour input's 1.08 M envelope frames.
const maxStoredFrames = 1 << 26

// analysisHeader is the JSON part of the binary form.
type analysisHeader struct {
	Info          Info     `json:"info"`
	Loudness      Loudness `json:"loudness"`
	NoiseFloorDb  float64  `json:"noiseFloorDb"`
	SpeechLevelDb float64  `json:"speechLevelDb"`
	ThresholdDb   float64  `json:"thresholdDb"`
	Warnings      []string `json:"warnings,omitempty"`
	VoiceHeard    int      `json:"voiceHeard,omitempty"`     // Envelope.VoiceHeard (0 in analyses stored before it)
	HighPassPeak  float64  `json:"highPassPeakDb,omitempty"` // Envelope.HighPassPeakDb (version 5)
}

// levels returns the header's levels that may be -Inf.
func (h *analysisHeader) levels() []*float64 {
	return []*float64{&h.Loudness.Integrated, &h.Loudness.Range, &h.Loudness.TruePeak,
		&h.Loudness.SamplePeak, &h.Loudness.MomentaryMax, &h.Loudness.ShortTermMax,
		&h.NoiseFloorDb, &h.SpeechLevelDb, &h.ThresholdDb, &h.HighPassPeak}
}

// MarshalBinary encodes a (encoding.BinaryMarshaler); WriteTo streams the same bytes.
func (a *Analysis) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	if _, err := a.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes what MarshalBinary or WriteTo wrote into a
// (encoding.BinaryUnmarshaler); errors wrap ErrCorruptAnalysis.
func (a *Analysis) UnmarshalBinary(b []byte) error {
	_, err := a.ReadFrom(bytes.NewReader(b))
	return err
}

// WriteTo writes a's binary form to w (io.WriterTo), without building it
// in memory.
func (a *Analysis) WriteTo(w io.Writer) (int64, error) {
	n := len(a.Envelope.RMSDb)
	if len(a.Envelope.PeakDb) != n {
		return 0, fmt.Errorf("encode analysis: envelope has %d RMS and %d peak frames", n, len(a.Envelope.PeakDb))
	}
	if v := len(a.Envelope.Voice); v != 0 && v != n {
		return 0, fmt.Errorf("encode analysis: envelope has %d RMS and %d voice frames", n, v)
	}
	if err := checkBands(a.Envelope.BandFrames, a.Envelope.Bands, n); err != nil {
		return 0, fmt.Errorf("encode analysis: %w", err)
	}
	if v := len(a.Envelope.HighPassDb); v != 0 && v != n {
		return 0, fmt.Errorf("encode analysis: envelope has %d RMS and %d high-passed frames", n, v)
	}
	h := analysisHeader{Info: a.Input, Loudness: a.Loudness, NoiseFloorDb: a.NoiseFloorDb,
		SpeechLevelDb: a.SpeechLevelDb, ThresholdDb: a.ThresholdDb, Warnings: a.Warnings, VoiceHeard: a.Envelope.VoiceHeard,
		HighPassPeak: a.Envelope.HighPassPeakDb}
	for _, p := range h.levels() {
		if math.IsInf(*p, -1) || math.IsNaN(*p) {
			*p = -math.MaxFloat64
		}
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return 0, fmt.Errorf("encode analysis: %w", err)
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	le := binary.LittleEndian
	var buf [8]byte
	put32 := func(v uint32) { le.PutUint32(buf[:4], v); bw.Write(buf[:4]) }
	put64 := func(v uint64) { le.PutUint64(buf[:], v); bw.Write(buf[:]) }
	bw.WriteString(analysisMagic)
	put32(codecVersion)
	put32(uint32(len(hdr)))
	bw.Write(hdr)
	put64(math.Float64bits(a.Envelope.FrameSec))
	put64(uint64(n))
	for _, v := range a.Envelope.RMSDb {
		put32(math.Float32bits(v))
	}
	for _, v := range a.Envelope.PeakDb {
		put32(math.Float32bits(v))
	}
	put64(math.Float64bits(a.BlockSec))
	put64(uint64(len(a.Blocks)))
	for _, v := range a.Blocks {
		put64(math.Float64bits(v))
	}
	put64(uint64(len(a.Envelope.Voice)))
	bw.Write(a.Envelope.Voice)
	put64(uint64(len(a.Envelope.BandFrames)))
	for _, f := range a.Envelope.BandFrames {
		put32(uint32(f))
	}
	bw.Write(a.Envelope.Bands)
	put64(uint64(len(a.Envelope.HighPassDb)))
	for _, v := range a.Envelope.HighPassDb {
		put32(math.Float32bits(v))
	}
	err = bw.Flush() // (bufio keeps the first write error)
	return cw.n, err
}

// ReadFrom replaces a with the analysis r holds (io.ReaderFrom), as
// WriteTo wrote it; errors wrap ErrCorruptAnalysis. It reads through a
// buffer, so it may read past the analysis's end.
func (a *Analysis) ReadFrom(r io.Reader) (int64, error) {
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	le := binary.LittleEndian
	var buf [8]byte
	fail := func(what string, err error) (int64, error) {
		return cr.n.Load(), fmt.Errorf("%w: %s: %v", ErrCorruptAnalysis, what, err)
	}
	if _, err := io.ReadFull(br, buf[:8]); err != nil {
		return fail("header", err)
	}
	version := le.Uint32(buf[4:8])
	if string(buf[:4]) != analysisMagic || version < 1 || version > codecVersion {
		return fail("header", fmt.Errorf("magic %q", buf[:8]))
	}
	read64 := func() (uint64, error) {
		_, err := io.ReadFull(br, buf[:8])
		return le.Uint64(buf[:8]), err
	}
	if _, err := io.ReadFull(br, buf[:4]); err != nil {
		return fail("header", err)
	}
	hl := le.Uint32(buf[:4])
	if hl > 1<<20 {
		return fail("header", fmt.Errorf("length %d", hl))
	}
	hdr := make([]byte, hl)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return fail("header", err)
	}
	var h analysisHeader
	if err := json.Unmarshal(hdr, &h); err != nil {
		return fail("header", err)
	}
	for _, p := range h.levels() {
		if *p == -math.MaxFloat64 {
			*p = math.Inf(-1)
		}
	}
	out := Analysis{Input: h.Info, Loudness: h.Loudness, NoiseFloorDb: h.NoiseFloorDb, SpeechLevelDb: h.SpeechLevelDb,
		ThresholdDb: h.ThresholdDb, Warnings: h.Warnings}
	fs, err := read64()
	if err != nil {
		return fail("envelope", err)
	}
	out.Envelope.FrameSec = math.Float64frombits(fs)
	n, err := read64()
	if err != nil || n > maxStoredFrames {
		return fail("envelope", fmt.Errorf("length %d (%v)", n, err))
	}
	raw := make([]byte, 4*n)
	out.Envelope.RMSDb = make([]float32, n)
	out.Envelope.PeakDb = make([]float32, n)
	for _, dst := range [][]float32{out.Envelope.RMSDb, out.Envelope.PeakDb} {
		if _, err := io.ReadFull(br, raw); err != nil {
			return fail("envelope", err)
		}
		for i := range dst {
			dst[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
		}
	}
	bs, err := read64()
	if err != nil {
		return fail("blocks", err)
	}
	out.BlockSec = math.Float64frombits(bs)
	m, err := read64()
	if err != nil || m > maxStoredFrames {
		return fail("blocks", fmt.Errorf("length %d (%v)", m, err))
	}
	raw = make([]byte, 8*m)
	if _, err := io.ReadFull(br, raw); err != nil {
		return fail("blocks", err)
	}
	out.Blocks = make([]float64, m)
	for i := range out.Blocks {
		out.Blocks[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
	}
	if version >= 2 {
		v, err := read64()
		if err != nil || (v != 0 && v != n) {
			return fail("voice", fmt.Errorf("length %d of %d frames (%v)", v, n, err))
		}
		if v > 0 {
			out.Envelope.Voice = make([]uint8, v)
			if _, err := io.ReadFull(br, out.Envelope.Voice); err != nil {
				return fail("voice", err)
			}
		}
		if version < 3 {
			out.Envelope.Voice = nil // another classifier's values
		}
		if out.Envelope.Voice != nil {
			out.Envelope.VoiceHeard = max(h.VoiceHeard, 0)
		}
	}
	if version >= 4 {
		k, err := read64()
		if err != nil || k > n {
			return fail("bands", fmt.Errorf("length %d of %d frames (%v)", k, n, err))
		}
		if k > 0 {
			raw = make([]byte, 4*k)
			if _, err := io.ReadFull(br, raw); err != nil {
				return fail("bands", err)
			}
			frames := make([]int32, k)
			for i := range frames {
				frames[i] = int32(le.Uint32(raw[4*i:]))
			}
			bands := make([]uint8, k*BandCount)
			if _, err := io.ReadFull(br, bands); err != nil {
				return fail("bands", err)
			}
			if err := checkBands(frames, bands, int(n)); err != nil {
				return fail("bands", err)
			}
			out.Envelope.BandFrames, out.Envelope.Bands = frames, bands
		}
	}
	if version >= 5 {
		v, err := read64()
		if err != nil || (v != 0 && v != n) {
			return fail("high-passed levels", fmt.Errorf("length %d of %d frames (%v)", v, n, err))
		}
		if v > 0 {
			raw = make([]byte, 4*v)
			if _, err := io.ReadFull(br, raw); err != nil {
				return fail("high-passed levels", err)
			}
			out.Envelope.HighPassDb = make([]float32, v)
			for i := range out.Envelope.HighPassDb {
				out.Envelope.HighPassDb[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
			}
			out.Envelope.HighPassPeakDb = h.HighPassPeak
		}
	}
	*a = out
	return cr.n.Load(), nil
}

// checkBands reports spectrum lists that do not fit an envelope of n
// frames (Envelope.BandFrames and Bands).
func checkBands(frames []int32, bands []uint8, n int) error {
	if len(bands) != len(frames)*BandCount {
		return fmt.Errorf("%d band codes for %d frames", len(bands), len(frames))
	}
	for i, f := range frames {
		if f < 0 || int(f) >= n || i > 0 && f <= frames[i-1] {
			return fmt.Errorf("band frame %d (%d of %d frames) out of order", f, i, n)
		}
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
