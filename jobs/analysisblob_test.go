package jobs

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/autocut-dev/autocut/dsp"
)

func sampleAnalysis(frames int) *dsp.Analysis {
	a := &dsp.Analysis{
		Input: dsp.Info{Name: "in.mov", Type: "video", Format: "mov", Codec: "aac", SampleRate: 48000, Channels: 2,
			Duration: float64(frames) / 100, Frames: int64(frames) * 480, FrameRate: dsp.Rational{Num: 30000, Den: 1001},
			VideoFrames: 1234, StartTimecode: 3600},
		Loudness:     dsp.Loudness{Integrated: -23.5, Range: 6, TruePeak: -1.2, SamplePeak: -1.5, MomentaryMax: math.Inf(-1), ShortTermMax: -20},
		NoiseFloorDb: -62, SpeechLevelDb: -21, ThresholdDb: math.Inf(-1),
		Envelope: dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, frames), PeakDb: make([]float32, frames)},
		BlockSec: 0.1, Blocks: make([]float64, frames/10),
	}
	for i := range frames {
		a.Envelope.RMSDb[i] = float32(-120 + i%100)
		a.Envelope.PeakDb[i] = float32(-100 + i%97)
	}
	for i := range a.Blocks {
		a.Blocks[i] = float64(i) * 1e-5
	}
	return a
}

func TestAnalysisCodecRoundTrip(t *testing.T) {
	for _, frames := range []int{0, 1, 12345} {
		a := sampleAnalysis(frames)
		var buf bytes.Buffer
		if err := encodeAnalysis(&buf, a); err != nil {
			t.Fatal(err)
		}
		got, err := decodeAnalysis(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%d frames: round trip (-want +got):\n%s", frames, diff)
		}
		// Fields hidden from JSON survive too.
		if got.Input.FrameRate != a.Input.FrameRate || got.Input.StartTimecode != 3600 || got.Input.Frames != a.Input.Frames {
			t.Errorf("hidden Info fields lost: %+v", got.Input)
		}
	}
}

func TestAnalysisCodecCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := encodeAnalysis(&buf, sampleAnalysis(500)); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	huge := bytes.Clone(full)
	// the envelope length field follows magic, version, json length, json, frameSec
	hl := int(huge[8]) | int(huge[9])<<8 | int(huge[10])<<16 | int(huge[11])<<24
	copy(huge[12+hl+8:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("XXXX"), full[4:]...),
		"truncated": full[:len(full)-5],
		"header":    full[:20],
		"huge":      huge,
	} {
		if _, err := decodeAnalysis(bytes.NewReader(b)); !errors.Is(err, errCorruptAnalysis) {
			t.Errorf("%s: err = %v, want errCorruptAnalysis", name, err)
		}
	}
}

func TestDownsample(t *testing.T) {
	src := []float32{-60, -10, -50, -40, -30, -70, -20}
	tests := []struct {
		points int
		fs     float64
		want   []float32
	}{
		{7, 0.01, src},
		{100, 0.01, src},
		{3, 0.03, []float32{-10, -30, -20}},
		{1, 0.07, []float32{-10}},
		{2, 0.04, []float32{-10, -20}},
	}
	for _, tc := range tests {
		fs, got := downsample(0.01, src, tc.points)
		if math.Abs(fs-tc.fs) > 1e-12 {
			t.Errorf("points %d: frameSec %v want %v", tc.points, fs, tc.fs)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("points %d (-want +got):\n%s", tc.points, diff)
		}
	}
	if _, got := downsample(0.01, nil, 10); len(got) != 0 {
		t.Errorf("empty: %v", got)
	}
}

func TestCursor(t *testing.T) {
	r := &record{ID: "job_abc", CreatedAt: fromNanos(1700000000123456789)}
	n, id, err := decodeCursor(encodeCursor(r))
	if err != nil || n != 1700000000123456789 || id != "job_abc" {
		t.Fatalf("round trip: %d %q %v", n, id, err)
	}
	for _, bad := range []string{"x", "!!!", "MTIz", "bm90LmE"} {
		if _, _, err := decodeCursor(bad); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}
