package dsp

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestAnalysisJSONGolden pins the JSON names other tools read: input
// (with frames, and frameRate, videoFrames, startTimecode when known),
// loudness {integrated, range, truePeak, samplePeak, momentaryMax,
// shortTermMax}, noiseFloorDb, speechLevelDb, thresholdDb, envelope
// {frameSec, frames}; -inf (silence) is written as null.
func TestAnalysisJSONGolden(t *testing.T) {
	tests := []struct {
		name string
		src  Source
	}{
		{"tone", newSynth(48000, 2, tone{2, 1000, lv(inf)}, tone{5, 1000, lv(-20)}, tone{1, 1000, lv(-40)})},
		{"silence", newSynth(16000, 1, tone{1, 1000, lv(inf)})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info := Info{Name: tc.name + ".wav", Type: "audio", Format: "wav", Codec: "pcm_f32le", BitsPerSample: 32, Frames: -1}
			a, err := Analyze(t.Context(), tc.src, info, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Round to 0.01 so the file pins names and values, not the last
			// bits of floating point (other CPUs fuse multiply-adds).
			r := func(v *float64) { *v = math.Round(*v*100) / 100 }
			l := &a.Loudness
			for _, v := range []*float64{&l.Integrated, &l.Range, &l.TruePeak, &l.SamplePeak, &l.MomentaryMax, &l.ShortTermMax, &a.NoiseFloorDb, &a.SpeechLevelDb, &a.ThresholdDb} {
				r(v)
			}
			b, err := json.MarshalIndent(a, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "analysis-"+tc.name+".json", append(b, '\n'))
		})
	}
}

func TestLoudnessJSONRoundTrip(t *testing.T) {
	tests := []Loudness{
		{Integrated: -23, Range: 5.5, TruePeak: -1, SamplePeak: -1.5, MomentaryMax: -18, ShortTermMax: -20},
		{Integrated: math.Inf(-1), Range: 0, TruePeak: math.Inf(-1), SamplePeak: math.Inf(-1), MomentaryMax: math.Inf(-1), ShortTermMax: math.Inf(-1)},
	}
	for _, l := range tests {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatalf("marshal %+v: %v", l, err)
		}
		var got Loudness
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if d := cmp.Diff(l, got); d != "" {
			t.Errorf("round trip through %s (-want +got):\n%s", b, d)
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./dsp -run %s -update)", err, t.Name())
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}
