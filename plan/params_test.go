package plan

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/dsp"
)

func TestValidate(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	ok := Params{MinSilenceSec: 0.6, KeepSilenceMs: 250, MinSpeechMs: 120}
	with := func(mod func(*Params)) Params { p := ok; mod(&p); return p }
	tests := []struct {
		name string
		p    Params
		want string // "" for valid; else text the error must hold
	}{
		{"valid, automatic threshold", ok, ""},
		{"bounds inclusive low", Params{ThresholdDb: f(-70), MinSilenceSec: 0.2, KeepSilenceMs: 0, MinSpeechMs: 0}, ""},
		{"bounds inclusive high", Params{ThresholdDb: f(-10), MinSilenceSec: 10, KeepSilenceMs: 2000, MinSpeechMs: 2000}, ""},
		{"threshold too low", with(func(p *Params) { p.ThresholdDb = f(-70.01) }), "thresholdDb is -70.01, allowed -70 to -10"},
		{"threshold too high", with(func(p *Params) { p.ThresholdDb = f(0) }), "thresholdDb is 0, allowed -70 to -10"},
		{"threshold NaN", with(func(p *Params) { p.ThresholdDb = f(math.NaN()) }), "thresholdDb is NaN"},
		{"minSilence zero (unset)", with(func(p *Params) { p.MinSilenceSec = 0 }), "minSilenceSec is 0, allowed 0.2 to 10"},
		{"minSilence too long", with(func(p *Params) { p.MinSilenceSec = 50 }), "minSilenceSec is 50, allowed 0.2 to 10"},
		{"minSilence +Inf", with(func(p *Params) { p.MinSilenceSec = math.Inf(1) }), "minSilenceSec is +Inf"},
		{"keepSilence negative", with(func(p *Params) { p.KeepSilenceMs = -1 }), "keepSilenceMs is -1, allowed 0 to 2000"},
		{"keepSilence too long", with(func(p *Params) { p.KeepSilenceMs = 2000.5 }), "keepSilenceMs is 2000.5, allowed 0 to 2000"},
		{"minSpeech too long", with(func(p *Params) { p.MinSpeechMs = 2001 }), "minSpeechMs is 2001, allowed 0 to 2000"},
		{"minSpeech -Inf", with(func(p *Params) { p.MinSpeechMs = math.Inf(-1) }), "minSpeechMs is -Inf"},
		{"crosstalk cut", with(func(p *Params) { p.Crosstalk = CrosstalkCut }), ""},
		{"crosstalk keep", with(func(p *Params) { p.Crosstalk = CrosstalkKeep }), ""},
		{"crosstalk unknown", with(func(p *Params) { p.Crosstalk = "drop" }), `crosstalk is "drop", allowed keep, cut`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want ErrInvalidParams saying %q", err, tc.want)
			}
		})
	}
}

func TestPresets(t *testing.T) {
	want := map[string]Params{
		"podcast":   {MinSilenceSec: 0.6, KeepSilenceMs: 250, MinSpeechMs: 120},
		"youtube":   {MinSilenceSec: 0.35, KeepSilenceMs: 120, MinSpeechMs: 150},
		"cours":     {MinSilenceSec: 1.2, KeepSilenceMs: 500, MinSpeechMs: 100},
		"interview": {MinSilenceSec: 0.9, KeepSilenceMs: 350, MinSpeechMs: 150},
		"radical":   {MinSilenceSec: 0.2, KeepSilenceMs: 60, MinSpeechMs: 250},
	}
	ps := Presets()
	if len(ps) != len(want) {
		t.Fatalf("%d presets, want %d", len(ps), len(want))
	}
	for _, p := range ps {
		if err := p.Params.Validate(); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
		if p.Params != want[p.Name] {
			t.Errorf("preset %s params %+v, want %+v", p.Name, p.Params, want[p.Name])
		}
		if p.Normalize != NormalizePodcast && p.Normalize != NormalizeYouTube {
			t.Errorf("preset %s normalize %q", p.Name, p.Normalize)
		}
		got, err := LookupPreset(strings.ToUpper(p.Name))
		if err != nil || got.Name != p.Name {
			t.Errorf("LookupPreset(%q) = %v, %v", strings.ToUpper(p.Name), got.Name, err)
		}
	}
	if d := DefaultPreset(); d.Name != "podcast" || d.Normalize != NormalizePodcast || !d.Rumble || d.Denoise {
		t.Errorf("DefaultPreset = %+v", d)
	}
	if d, err := LookupPreset(""); err != nil || d.Name != DefaultPresetName {
		t.Errorf(`LookupPreset("") = %v, %v`, d.Name, err)
	}
	if _, err := LookupPreset("loud"); !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), "podcast, youtube, cours, interview, radical") {
		t.Errorf(`LookupPreset("loud") = %v`, err)
	}
}

func TestMakeBadInput(t *testing.T) {
	good := &dsp.Analysis{Input: dsp.Info{Duration: 1}, Envelope: dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, 100)}}
	p := DefaultPreset().Params
	tests := []struct {
		name  string
		a     *dsp.Analysis
		p     Params
		extra []Cut
		want  error
	}{
		{"nil analysis", nil, p, nil, ErrBadAnalysis},
		{"bad params", good, Params{}, nil, ErrInvalidParams},
		{"no frame length", &dsp.Analysis{Envelope: dsp.Envelope{RMSDb: make([]float32, 3)}}, p, nil, ErrBadAnalysis},
		{"NaN frame length", &dsp.Analysis{Envelope: dsp.Envelope{FrameSec: math.NaN(), RMSDb: make([]float32, 3)}}, p, nil, ErrBadAnalysis},
		{"peak length differs", &dsp.Analysis{Envelope: dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, 3), PeakDb: make([]float32, 2)}}, p, nil, ErrBadAnalysis},
		{"extra cut reversed", good, p, []Cut{{Start: 0.5, End: 0.2}}, ErrInvalidParams},
		{"extra cut NaN", good, p, []Cut{{Start: math.NaN(), End: 0.2}}, ErrInvalidParams},
		{"empty envelope", &dsp.Analysis{Envelope: dsp.Envelope{FrameSec: 0.01}}, p, nil, ErrNothingToKeep},
		{"NaN threshold", withLevels(good, math.NaN(), -60, -20), p, nil, ErrBadAnalysis},
		{"NaN speech level", withLevels(good, -45, -60, math.NaN()), p, nil, ErrBadAnalysis},
		{"NaN noise floor", withLevels(good, -45, math.NaN(), -20), p, nil, ErrBadAnalysis},
		{"NaN threshold, given threshold", withLevels(good, math.NaN(), -60, -20), withThreshold(p, -40), nil, ErrBadAnalysis},
		{"whole", good, p, nil, nil},
		{"last frame partial", withDuration(good, 0.995), p, nil, nil},
		{"input far longer than its envelope", withDuration(good, 60), p, nil, ErrBadAnalysis},
		{"input shorter than its envelope", withDuration(good, 0.5), p, nil, ErrBadAnalysis},
		{"frames of a second", &dsp.Analysis{Input: dsp.Info{Duration: 3}, Envelope: dsp.Envelope{FrameSec: 1, RMSDb: make([]float32, 3)}}, p, nil, ErrBadAnalysis},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := Make(tc.a, tc.p, tc.extra)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) {
					t.Fatalf("Make = %v, want %v", err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Make did not return in 10 s")
			}
		})
	}
}

// withLevels returns a copy of a with the given threshold, noise floor
// and speech level (dBFS).
func withLevels(a *dsp.Analysis, thr, floor, speech float64) *dsp.Analysis {
	b := *a
	b.ThresholdDb, b.NoiseFloorDb, b.SpeechLevelDb = thr, floor, speech
	return &b
}

// withThreshold returns p with a given threshold (dBFS).
func withThreshold(p Params, thr float64) Params {
	p.ThresholdDb = &thr
	return p
}

// TestParamsJSONKeepsCrosstalk: the job layer stores params as JSON and
// re-plans from them later, so the user's crosstalk choice must survive.
func TestParamsJSONKeepsCrosstalk(t *testing.T) {
	pr, err := LookupPreset("podcast")
	if err != nil {
		t.Fatal(err)
	}
	pr.Params.Crosstalk = CrosstalkCut
	b, err := json.Marshal(pr.Params)
	if err != nil {
		t.Fatal(err)
	}
	var back Params
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Crosstalk != pr.Params.Crosstalk || back.Crosstalk != CrosstalkCut {
		t.Errorf("crosstalk %q after a JSON round trip, want %q", back.Crosstalk, pr.Params.Crosstalk)
	}
}

// withDuration is a copy of a whose input lasts d seconds.
func withDuration(a *dsp.Analysis, d float64) *dsp.Analysis {
	c := *a
	c.Input.Duration = d
	return &c
}

// TestWarnings: the analysis's warning that it found no pause goes where
// the plan cuts a pause all the same; every other warning stays, and the
// analysis's slice is left as it was.
func TestWarnings(t *testing.T) {
	w := []string{dsp.WarnTruncated + ": less than its header", dsp.WarnNoPauses + ": the level never stays under"}
	silence := &Plan{Cuts: []Cut{{Start: 1, End: 2, Reason: ReasonSilence}}}
	filler := &Plan{Cuts: []Cut{{Start: 1, End: 2, Reason: ReasonFiller}}}
	for _, tc := range []struct {
		name string
		p    *Plan
		want []string
	}{
		{"no plan", nil, w},
		{"a silence cut", silence, w[:1]},
		{"only a filler cut", filler, w},
	} {
		if d := cmp.Diff(tc.want, Warnings(w, tc.p)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	if len(w) != 2 || !strings.HasPrefix(w[1], dsp.WarnNoPauses) {
		t.Errorf("the analysis's warnings changed: %q", w)
	}
}
