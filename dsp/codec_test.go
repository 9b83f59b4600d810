package dsp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func sampleAnalysis(frames int) *Analysis {
	a := &Analysis{
		Input: Info{Name: "in.mov", Type: "video", Format: "mov", Codec: "aac", SampleRate: 48000, Channels: 2,
			Duration: float64(frames) / 100, Frames: int64(frames) * 480, FrameRate: Rational{Num: 30000, Den: 1001},
			VideoFrames: 1234, StartTimecode: 3600},
		Loudness:     Loudness{Integrated: -23.5, Range: 6, TruePeak: -1.2, SamplePeak: -1.5, MomentaryMax: math.Inf(-1), ShortTermMax: -20},
		NoiseFloorDb: -62, SpeechLevelDb: -21, ThresholdDb: math.Inf(-1),
		Envelope: Envelope{FrameSec: 0.01, RMSDb: make([]float32, frames), PeakDb: make([]float32, frames)},
		BlockSec: 0.1, Blocks: make([]float64, frames/10),
	}
	for i := range frames {
		a.Envelope.RMSDb[i] = float32(-120 + i%100)
		a.Envelope.PeakDb[i] = float32(-100 + i%97)
	}
	for i := range a.Blocks {
		a.Blocks[i] = float64(i) * 1e-5
	}
	if frames > 0 {
		a.Envelope.Voice = make([]uint8, frames)
		for i := range a.Envelope.Voice {
			a.Envelope.Voice[i] = uint8(i * 7)
		}
		a.Warnings = []string{"no pauses found: a test"}
		a.Envelope.VoiceHeard = 37
	}
	if frames > 0 {
		a.Envelope.HighPassDb = make([]float32, frames)
		for i := range a.Envelope.HighPassDb {
			a.Envelope.HighPassDb[i] = float32(-119 + i%89)
		}
		a.Envelope.HighPassPeakDb = -2.5
	}
	for i := 0; i < frames; i += 3 {
		a.Envelope.BandFrames = append(a.Envelope.BandFrames, int32(i))
		for k := range BandCount {
			a.Envelope.Bands = append(a.Envelope.Bands, uint8(1+(i+k)%255))
		}
	}
	return a
}

func TestAnalysisCodecRoundTrip(t *testing.T) {
	for _, frames := range []int{0, 1, 12345} {
		a := sampleAnalysis(frames)
		var buf bytes.Buffer
		n, err := a.WriteTo(&buf)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("WriteTo: %d bytes (%d in the buffer), %v", n, buf.Len(), err)
		}
		b, err := a.MarshalBinary()
		if err != nil || !bytes.Equal(b, buf.Bytes()) {
			t.Fatalf("MarshalBinary differs from WriteTo (%v)", err)
		}
		var got Analysis
		if m, err := got.ReadFrom(&buf); err != nil || m != n {
			t.Fatalf("ReadFrom: %d bytes of %d, %v", m, n, err)
		}
		if diff := cmp.Diff(a, &got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%d frames: round trip (-want +got):\n%s", frames, diff)
		}
		var got2 Analysis
		if err := got2.UnmarshalBinary(b); err != nil || !cmp.Equal(a, &got2, cmpopts.EquateEmpty()) {
			t.Errorf("UnmarshalBinary: %v", err)
		}
	}
}

// TestAnalysisCodecReadsStoredBlobs decodes the form the job layer stored
// before the codec moved here (its own copy of every Info field in the
// JSON part): servers keep reading the analyses they stored.
func TestAnalysisCodecReadsStoredBlobs(t *testing.T) {
	hdr := `{"info":{"name":"in.mov","type":"video","format":"mov","codec":"aac","sampleRate":48000,"channels":2,` +
		`"duration":0.02,"bitsPerSample":0,"frames":960,"frameRate":{"num":30000,"den":1001},"videoFrames":1234,"startTimecode":3600},` +
		`"loudness":{"integrated":-23.5,"range":6,"truePeak":-1.2,"samplePeak":-1.5,"momentaryMax":-1.7976931348623157e+308,"shortTermMax":-20},` +
		`"noiseFloorDb":-62,"speechLevelDb":-21,"thresholdDb":-1.7976931348623157e+308}`
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("ACAN")
	binary.Write(&b, le, uint32(1))
	binary.Write(&b, le, uint32(len(hdr)))
	b.WriteString(hdr)
	binary.Write(&b, le, math.Float64bits(0.01))
	binary.Write(&b, le, uint64(2))
	for _, v := range []float32{-120, -119, -100, -99} {
		binary.Write(&b, le, math.Float32bits(v))
	}
	binary.Write(&b, le, math.Float64bits(0.1))
	binary.Write(&b, le, uint64(0))
	var got Analysis
	if err := got.UnmarshalBinary(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	want := sampleAnalysis(2)
	want.Blocks = nil
	want.Envelope.Voice = nil // version 1 had no voice classification
	want.Envelope.VoiceHeard = 0
	want.Envelope.BandFrames, want.Envelope.Bands = nil, nil
	want.Envelope.HighPassDb, want.Envelope.HighPassPeakDb = nil, 0
	want.Warnings = nil
	if diff := cmp.Diff(want, &got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("stored blob (-want +got):\n%s", diff)
	}
}

func TestAnalysisCodecCorrupt(t *testing.T) {
	full, err := sampleAnalysis(500).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	huge := bytes.Clone(full)
	// the envelope length field follows magic, version, json length, json, frameSec
	hl := int(huge[8]) | int(huge[9])<<8 | int(huge[10])<<16 | int(huge[11])<<24
	copy(huge[12+hl+8:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	for name, b := range map[string][]byte{
		"empty":                 nil,
		"magic":                 append([]byte("XXXX"), full[4:]...),
		"truncated":             full[:len(full)-5],
		"header":                full[:20],
		"huge":                  huge,
		"no voice":              full[:len(full)-500],
		"version 6":             append([]byte("ACAN\x06\x00\x00\x00"), full[8:]...),
		"no bands":              full[:len(full)-8-4*500-BandCount],
		"no high-passed levels": full[:len(full)-4],
		"high-passed length": func() []byte {
			b := bytes.Clone(full)
			binary.LittleEndian.PutUint64(b[len(b)-8-4*500:], 499)
			return b
		}(),
		"band order": func() []byte {
			a := sampleAnalysis(500)
			b, _ := a.MarshalBinary()
			// the band frames follow their count, after the voice codes
			at := len(b) - 8 - 4*500 - len(a.Envelope.Bands) - 4*len(a.Envelope.BandFrames)
			binary.LittleEndian.PutUint32(b[at+4:], 0) // the second frame is the first again
			return b
		}(),
		"band past the end": func() []byte {
			a := sampleAnalysis(500)
			b, _ := a.MarshalBinary()
			at := len(b) - 8 - 4*500 - len(a.Envelope.Bands) - 4
			binary.LittleEndian.PutUint32(b[at:], 500)
			return b
		}(),
	} {
		var a Analysis
		if err := a.UnmarshalBinary(b); !errors.Is(err, ErrCorruptAnalysis) {
			t.Errorf("%s: err = %v, want ErrCorruptAnalysis", name, err)
		}
	}
	bad := sampleAnalysis(3)
	bad.Envelope.PeakDb = bad.Envelope.PeakDb[:2]
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("an envelope with fewer peak than RMS frames was encoded")
	}
	bad = sampleAnalysis(3)
	bad.Envelope.Voice = bad.Envelope.Voice[:2]
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("an envelope with fewer voice than RMS frames was encoded")
	}
	bad = sampleAnalysis(30)
	bad.Envelope.Bands = bad.Envelope.Bands[:len(bad.Envelope.Bands)-1]
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("an envelope with a frame's band codes cut short was encoded")
	}
	bad = sampleAnalysis(30)
	bad.Envelope.HighPassDb = bad.Envelope.HighPassDb[:29]
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("an envelope with fewer high-passed than RMS frames was encoded")
	}
	bad = sampleAnalysis(30)
	bad.Envelope.BandFrames[3] = 30
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("an envelope with a band frame past its end was encoded")
	}
}

// TestAnalysisCodecReadsVersion3: an analysis stored before the spectrum
// is read whole, without it (its plans place edges by level and voice).
func TestAnalysisCodecReadsVersion3(t *testing.T) {
	a := sampleAnalysis(50)
	b, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b = b[:len(b)-8-4*len(a.Envelope.HighPassDb)-8-4*len(a.Envelope.BandFrames)-len(a.Envelope.Bands)]
	b[4] = 3
	var got Analysis
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	want := sampleAnalysis(50)
	want.Envelope.BandFrames, want.Envelope.Bands = nil, nil
	want.Envelope.HighPassDb, want.Envelope.HighPassPeakDb = nil, 0
	if diff := cmp.Diff(want, &got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("version 3 (-want +got):\n%s", diff)
	}
}

// TestAnalysisCodecReadsVersion4: an analysis stored before the levels
// after the rumble filter is read whole, without them (its plans take
// their references from the full band).
func TestAnalysisCodecReadsVersion4(t *testing.T) {
	a := sampleAnalysis(50)
	b, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b = b[:len(b)-8-4*len(a.Envelope.HighPassDb)]
	b[4] = 4
	var got Analysis
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	want := sampleAnalysis(50)
	want.Envelope.HighPassDb = nil
	// (the JSON part of this blob still holds the peak; a version 4
	// writer wrote none, and a reader keeps no peak without the levels)
	want.Envelope.HighPassPeakDb = 0
	if diff := cmp.Diff(want, &got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("version 4 (-want +got):\n%s", diff)
	}
}

// FuzzAnalysisUnmarshal: no input makes the decoder panic or allocate
// past its bounds; what it accepts encodes back to a decodable form.
func FuzzAnalysisUnmarshal(f *testing.F) {
	for _, n := range []int{0, 3} {
		b, _ := sampleAnalysis(n).MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Analysis
		if err := a.UnmarshalBinary(b); err != nil {
			return
		}
		again, err := a.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded analysis does not encode: %v", err)
		}
		var b2 Analysis
		if err := b2.UnmarshalBinary(again); err != nil {
			t.Fatalf("re-encoded analysis does not decode: %v", err)
		}
	})
}

// TestAnalysisCodecDropsOldVoice: a version 2 analysis held periodicity
// values, which the planner must not read as speech probabilities.
func TestAnalysisCodecDropsOldVoice(t *testing.T) {
	a := sampleAnalysis(50)
	b, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b[4] = 2
	var got Analysis
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if got.Envelope.Voice != nil || len(got.Envelope.RMSDb) != 50 || len(got.Warnings) != 1 {
		t.Errorf("version 2: voice %d frames, rms %d, warnings %v", len(got.Envelope.Voice), len(got.Envelope.RMSDb), got.Warnings)
	}
}
