package jobs

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// The stored analysis is a compact binary blob, so that re-planning (PATCH,
// preview) never decodes the input again:
//
//	"ACAN" version(u32=1) jsonLen(u32) json(Analysis scalars + full Info)
//	frameSec(f64) n(u64) rms[n](f32) peak[n](f32)
//	blockSec(f64) m(u64) blocks[m](f64)
//
// little-endian throughout. A 1-hour input is about 3 MB.
const analysisMagic = "ACAN"

var errCorruptAnalysis = errors.New("corrupt stored analysis")

type analysisHeader struct {
	Info          *infoRecord  `json:"info"`
	Loudness      dsp.Loudness `json:"loudness"`
	NoiseFloorDb  float64      `json:"noiseFloorDb"`
	SpeechLevelDb float64      `json:"speechLevelDb"`
	ThresholdDb   float64      `json:"thresholdDb"`
}

// jsonFloat survives JSON for -Inf loudness values.
func encodeAnalysis(w io.Writer, a *dsp.Analysis) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	h := analysisHeader{Info: newInfoRecord(a.Input), Loudness: a.Loudness, NoiseFloorDb: a.NoiseFloorDb,
		SpeechLevelDb: a.SpeechLevelDb, ThresholdDb: a.ThresholdDb}
	hdr, err := json.Marshal(finiteLoudness(h))
	if err != nil {
		return fmt.Errorf("encode analysis: %w", err)
	}
	le := binary.LittleEndian
	var buf [8]byte
	put32 := func(v uint32) { le.PutUint32(buf[:4], v); bw.Write(buf[:4]) }
	put64 := func(v uint64) { le.PutUint64(buf[:], v); bw.Write(buf[:]) }
	bw.WriteString(analysisMagic)
	put32(1)
	put32(uint32(len(hdr)))
	bw.Write(hdr)
	put64(math.Float64bits(a.Envelope.FrameSec))
	n := len(a.Envelope.RMSDb)
	if len(a.Envelope.PeakDb) != n {
		return fmt.Errorf("encode analysis: envelope has %d RMS and %d peak frames", n, len(a.Envelope.PeakDb))
	}
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
	return bw.Flush()
}

// finiteLoudness maps -Inf (silent programme) to a sentinel JSON can carry.
func finiteLoudness(h analysisHeader) analysisHeader {
	for _, p := range []*float64{&h.Loudness.Integrated, &h.Loudness.Range, &h.Loudness.TruePeak,
		&h.Loudness.SamplePeak, &h.Loudness.MomentaryMax, &h.Loudness.ShortTermMax,
		&h.NoiseFloorDb, &h.SpeechLevelDb, &h.ThresholdDb} {
		if math.IsInf(*p, -1) || math.IsNaN(*p) {
			*p = -math.MaxFloat64
		}
	}
	return h
}

func restoreLoudness(h *analysisHeader) {
	for _, p := range []*float64{&h.Loudness.Integrated, &h.Loudness.Range, &h.Loudness.TruePeak,
		&h.Loudness.SamplePeak, &h.Loudness.MomentaryMax, &h.Loudness.ShortTermMax,
		&h.NoiseFloorDb, &h.SpeechLevelDb, &h.ThresholdDb} {
		if *p == -math.MaxFloat64 {
			*p = math.Inf(-1)
		}
	}
}

// maxStoredFrames bounds allocations from a stored length: far above a
// 3-hour input's 1.08 M envelope frames.
const maxStoredFrames = 1 << 26

func decodeAnalysis(r io.Reader) (*dsp.Analysis, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	le := binary.LittleEndian
	var buf [8]byte
	fail := func(what string, err error) (*dsp.Analysis, error) {
		return nil, fmt.Errorf("%w: %s: %v", errCorruptAnalysis, what, err)
	}
	if _, err := io.ReadFull(br, buf[:8]); err != nil {
		return fail("header", err)
	}
	if string(buf[:4]) != analysisMagic || le.Uint32(buf[4:8]) != 1 {
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
	restoreLoudness(&h)
	a := &dsp.Analysis{Loudness: h.Loudness, NoiseFloorDb: h.NoiseFloorDb, SpeechLevelDb: h.SpeechLevelDb, ThresholdDb: h.ThresholdDb}
	if h.Info != nil {
		a.Input = h.Info.info()
	}
	fs, err := read64()
	if err != nil {
		return fail("envelope", err)
	}
	a.Envelope.FrameSec = math.Float64frombits(fs)
	n, err := read64()
	if err != nil || n > maxStoredFrames {
		return fail("envelope", fmt.Errorf("length %d (%v)", n, err))
	}
	raw := make([]byte, 4*n)
	a.Envelope.RMSDb = make([]float32, n)
	a.Envelope.PeakDb = make([]float32, n)
	for _, dst := range [][]float32{a.Envelope.RMSDb, a.Envelope.PeakDb} {
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
	a.BlockSec = math.Float64frombits(bs)
	m, err := read64()
	if err != nil || m > maxStoredFrames {
		return fail("blocks", fmt.Errorf("length %d (%v)", m, err))
	}
	raw = make([]byte, 8*m)
	if _, err := io.ReadFull(br, raw); err != nil {
		return fail("blocks", err)
	}
	a.Blocks = make([]float64, m)
	for i := range a.Blocks {
		a.Blocks[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
	}
	return a, nil
}
