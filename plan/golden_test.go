package plan

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// segment is a stretch of an envelope spec: sec seconds at db dBFS RMS, or
// explicit frame levels.
type segment struct {
	Sec    float64   `json:"sec,omitempty"`
	Db     float64   `json:"db,omitempty"`
	Frames []float32 `json:"frames,omitempty"`
}

// goldenInput is a plan/testdata/*.in.json file: an envelope spec, the
// analysis figures, params and extra cuts.
type goldenInput struct {
	About         string    `json:"about"`
	Segments      []segment `json:"segments"`
	PeakOverRMSDb *float64  `json:"peakOverRmsDb,omitempty"` // default 3
	Duration      float64   `json:"duration,omitempty"`      // default frames x 10 ms
	NoiseFloorDb  *float64  `json:"noiseFloorDb,omitempty"`  // default -80
	SpeechLevelDb *float64  `json:"speechLevelDb,omitempty"` // default -20
	ThresholdDb   *float64  `json:"thresholdDb,omitempty"`   // the analysis's starting threshold (dsp.EstimateLevels'), default -50; dsp.PauseThreshold makes the pause threshold of it
	Params        Params    `json:"params"`
	Extra         []Cut     `json:"extra,omitempty"`
}

// goldenOutput is the expected result, plan/testdata/*.golden.json.
type goldenOutput struct {
	About string `json:"about"`
	Error string `json:"error,omitempty"`
	Plan  *Plan  `json:"plan"`
}

func orDefault(p *float64, d float64) float64 {
	if p == nil {
		return d
	}
	return *p
}

// analysisOf builds the analysis an input describes.
func (in goldenInput) analysis() *dsp.Analysis {
	var rms []float32
	for _, s := range in.Segments {
		if s.Frames != nil {
			rms = append(rms, s.Frames...)
			continue
		}
		for k := int(math.Round(s.Sec / dsp.EnvelopeFrameSec)); k > 0; k-- {
			rms = append(rms, float32(s.Db))
		}
	}
	over := float32(orDefault(in.PeakOverRMSDb, 3))
	peak := make([]float32, len(rms))
	samplePeak := dsp.FloorDb
	for i, v := range rms {
		peak[i] = min(v+over, 0)
		samplePeak = max(samplePeak, float64(peak[i]))
	}
	dur := in.Duration
	if dur == 0 {
		dur = float64(len(rms)) * dsp.EnvelopeFrameSec
	}
	// The analysis's pause threshold, as dsp works it out from its
	// starting threshold (thresholdDb, the 35 % rule's) and the envelope.
	lvl := dsp.Levels{NoiseFloorDb: orDefault(in.NoiseFloorDb, -80), SpeechLevelDb: orDefault(in.SpeechLevelDb, -20), ThresholdDb: orDefault(in.ThresholdDb, -50)}
	thr, _ := dsp.PauseThreshold(dsp.SmoothedLevels(rms), lvl, false)
	return &dsp.Analysis{
		Input:         dsp.Info{Duration: dur},
		Loudness:      dsp.Loudness{SamplePeak: samplePeak},
		NoiseFloorDb:  lvl.NoiseFloorDb,
		SpeechLevelDb: lvl.SpeechLevelDb,
		ThresholdDb:   thr,
		Envelope:      dsp.Envelope{FrameSec: dsp.EnvelopeFrameSec, RMSDb: rms, PeakDb: peak},
	}
}

// checkInvariants fails t when the plan's cuts and keeps are not sorted,
// disjoint and covering [0, duration] exactly, or its stats disagree.
func checkInvariants(t *testing.T, name string, p *Plan) {
	t.Helper()
	type iv struct {
		s, e float64
		cut  bool
	}
	for _, c := range p.Cuts {
		if c.Reason != ReasonSilence && c.Reason != ReasonShortSpeech && c.Reason != ReasonFiller && c.Reason != ReasonNoise {
			t.Errorf("%s: cut reason %q", name, c.Reason)
		}
	}
	for i := 1; i < len(p.Cuts); i++ {
		if p.Cuts[i].Start < p.Cuts[i-1].End {
			t.Errorf("%s: cuts %d and %d overlap or are unsorted", name, i-1, i)
		}
	}
	for i := 1; i < len(p.Keep); i++ {
		if p.Keep[i].Start <= p.Keep[i-1].End {
			t.Errorf("%s: keeps %d and %d touch, overlap or are unsorted", name, i-1, i)
		}
	}
	pos, ci, ki, final := 0.0, 0, 0, 0.0
	for ci < len(p.Cuts) || ki < len(p.Keep) {
		var x iv
		if ki >= len(p.Keep) || (ci < len(p.Cuts) && p.Cuts[ci].Start <= p.Keep[ki].Start) {
			x = iv{p.Cuts[ci].Start, p.Cuts[ci].End, true}
			ci++
		} else {
			x = iv{p.Keep[ki].Start, p.Keep[ki].End, false}
			final += x.e - x.s
			ki++
		}
		if math.Abs(x.s-pos) > 1e-9 || x.e <= x.s {
			t.Fatalf("%s: interval [%v, %v] after %v: cuts and keeps do not tile [0, duration]", name, x.s, x.e, pos)
		}
		pos = x.e
	}
	if math.Abs(pos-p.Stats.OriginalSec) > 1e-9 {
		t.Errorf("%s: tiles end at %v, duration %v", name, pos, p.Stats.OriginalSec)
	}
	if math.Abs(final-p.Stats.FinalSec) > 2e-6 || math.Abs(p.Stats.OriginalSec-p.Stats.FinalSec-p.Stats.SavedSec) > 2e-6 || p.Stats.CutsCount != len(p.Cuts) {
		t.Errorf("%s: stats %+v disagree with keeps (final %v) or cuts (%d)", name, p.Stats, final, len(p.Cuts))
	}
}

// TestGolden runs every plan/testdata/*.in.json through Make and compares
// with its .golden.json (rewritten with -update). The goldens are the
// planner's specification: review them by eye.
func TestGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "*.in.json"))
	if err != nil || len(ins) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, path := range ins {
		name := strings.TrimSuffix(filepath.Base(path), ".in.json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var in goldenInput
			dec := json.NewDecoder(strings.NewReader(string(b)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			pl, err := Make(in.analysis(), in.Params, in.Extra)
			got := goldenOutput{About: in.About, Plan: pl}
			if err != nil {
				got.Error = err.Error()
			}
			if pl != nil {
				checkInvariants(t, name, pl)
			}
			gb, _ := json.MarshalIndent(got, "", "  ")
			gb = append(gb, '\n')
			gpath := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(gpath, gb, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gpath)
			if err != nil {
				t.Fatalf("%v (run go test ./plan -run Golden -update)", err)
			}
			var w, g goldenOutput
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(gb, &g); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(w, g); d != "" {
				t.Errorf("%s differs from the golden file (-want +got):\n%s", name, d)
			}
		})
	}
}

// TestKeepHint checks that what ErrNothingToKeep's message names keeps
// something: the threshold it names, the minSpeechMs under the longest
// sound, the plan without the extra cuts.
func TestKeepHint(t *testing.T) {
	load := func(name string) goldenInput {
		b, err := os.ReadFile(filepath.Join("testdata", name+".in.json"))
		if err != nil {
			t.Fatal(err)
		}
		var in goldenInput
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		return in
	}
	tests := []struct {
		name, says string
		fix        func(in *goldenInput, msg string)
	}{
		{"threshold-over-speech", "thresholdDb ", func(in *goldenInput, msg string) {
			var h float64
			if _, err := fmt.Sscanf(msg[strings.Index(msg, "thresholdDb "):], "thresholdDb %g", &h); err != nil {
				t.Fatalf("%q: %v", msg, err)
			}
			in.Params.ThresholdDb = &h
		}},
		{"min-speech-all-short", "minSpeechMs ", func(in *goldenInput, msg string) {
			var ms float64
			if _, err := fmt.Sscanf(msg[strings.Index(msg, "the longest lasts "):], "the longest lasts %g ms", &ms); err != nil {
				t.Fatalf("%q: %v", msg, err)
			}
			in.Params.MinSpeechMs = ms
		}},
		{"extra-covers-all", "cuts given", func(in *goldenInput, msg string) { in.Extra = nil }},
	}
	for _, tc := range tests {
		in := load(tc.name)
		_, err := Make(in.analysis(), in.Params, in.Extra)
		if !errors.Is(err, ErrNothingToKeep) || !strings.Contains(err.Error(), tc.says) {
			t.Fatalf("%s: %v, want ErrNothingToKeep naming %q", tc.name, err, tc.says)
		}
		tc.fix(&in, err.Error())
		if pl, err := Make(in.analysis(), in.Params, in.Extra); err != nil || len(pl.Keep) == 0 {
			t.Errorf("%s: with what %q names: %v", tc.name, tc.says, err)
		}
	}
}

// TestInvariantsRandom plans random envelopes with random params and
// extra cuts and checks the tiling invariants on each.
func TestInvariantsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 300; k++ {
		n := 1 + r.IntN(3000)
		rms := make([]float32, n)
		lv := -60.0
		for i := range rms {
			if r.Float64() < 0.02 {
				lv = -90 + 80*r.Float64()
			}
			rms[i] = float32(lv + 6*r.NormFloat64())
		}
		a := &dsp.Analysis{
			Input:         dsp.Info{Duration: float64(n)*0.01 - 0.01*r.Float64()},
			NoiseFloorDb:  -70 + 20*r.Float64(),
			SpeechLevelDb: -20,
			ThresholdDb:   -60 + 30*r.Float64(),
			Envelope:      dsp.Envelope{FrameSec: 0.01, RMSDb: rms},
		}
		p := Params{MinSilenceSec: 0.2 + 2*r.Float64(), KeepSilenceMs: 600 * r.Float64(), MinSpeechMs: 400 * r.Float64()}
		if r.IntN(2) == 0 {
			th := -70 + 60*r.Float64()
			p.ThresholdDb = &th
		}
		var extra []Cut
		for j := r.IntN(4); j > 0; j-- {
			s := r.Float64() * a.Input.Duration
			extra = append(extra, Cut{Start: s, End: s + r.Float64()*2})
		}
		pl, err := Make(a, p, extra)
		if err != nil && !errors.Is(err, ErrNothingToKeep) {
			t.Fatalf("case %d: %v", k, err)
		}
		checkInvariants(t, "random", pl)
		if err := pl.Params.Validate(); err != nil {
			t.Fatalf("case %d: the plan's effective params do not validate: %v", k, err)
		}
		if (err != nil) != (len(pl.Keep) == 0) {
			t.Fatalf("case %d: error %v with %d keeps", k, err, len(pl.Keep))
		}
	}
}

// FuzzMake plans envelopes and params built from arbitrary bytes: Make
// must never panic, and its plans must tile [0, duration].
func FuzzMake(f *testing.F) {
	f.Add([]byte{10, 200, 30, 40, 250, 0, 0, 0, 90}, 0.6, 250.0, 120.0, -40.0, 1.0)
	f.Add([]byte{}, 0.2, 0.0, 0.0, -70.0, 0.0)
	f.Fuzz(func(t *testing.T, lv []byte, minSil, keep, minSp, thr, dur float64) {
		rms := make([]float32, len(lv))
		for i, b := range lv {
			rms[i] = -120 + float32(b)/2
		}
		if dur > 0 && !math.IsInf(dur, 0) {
			// The envelope's span less a part of its last frame (dur's
			// fraction): Make refuses a duration the envelope does not cover.
			dur = float64(len(lv))*0.01 - 0.01*(dur-math.Floor(dur))
		}
		a := &dsp.Analysis{Input: dsp.Info{Duration: dur}, ThresholdDb: thr, NoiseFloorDb: thr - 10, SpeechLevelDb: thr + 20,
			Envelope: dsp.Envelope{FrameSec: 0.01, RMSDb: rms}}
		p := Params{MinSilenceSec: minSil, KeepSilenceMs: keep, MinSpeechMs: minSp}
		if len(lv)%2 == 0 {
			p.ThresholdDb = &thr
		}
		pl, err := Make(a, p, []Cut{{Start: dur / 3, End: dur / 2}})
		if err != nil && !errors.Is(err, ErrNothingToKeep) {
			if !errors.Is(err, ErrInvalidParams) && !errors.Is(err, ErrBadAnalysis) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		checkInvariants(t, "fuzz", pl)
	})
}
