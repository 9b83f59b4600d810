package jobs

import (
	"slices"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcribe"
)

// The job layer works with the library's types (plan.Plan,
// transcribe.Transcript) and shows them through apiv1's, which have the
// same JSON (wire_test.go checks it).

func wireParams(p plan.Params) apiv1.Params {
	out := apiv1.Params{MinSilenceSec: p.MinSilenceSec, KeepSilenceMs: p.KeepSilenceMs, MinSpeechMs: p.MinSpeechMs, Crosstalk: p.Crosstalk}
	if out.Crosstalk == "" {
		out.Crosstalk = plan.CrosstalkKeep
	}
	if p.ThresholdDb != nil {
		th := *p.ThresholdDb
		out.ThresholdDb = &th
	}
	return out
}

func wirePlan(p *plan.Plan) *apiv1.Plan {
	if p == nil {
		return nil
	}
	out := &apiv1.Plan{
		Stats:        apiv1.Stats(p.Stats),
		ThresholdDb:  p.ThresholdDb,
		NoiseFloorDb: p.NoiseFloorDb,
		Params:       wireParams(p.Params),
	}
	if p.Cuts != nil { // nil stays null in JSON
		out.Cuts = make([]apiv1.Cut, len(p.Cuts))
		for i, c := range p.Cuts {
			out.Cuts[i] = apiv1.Cut(c)
		}
	}
	if p.Keep != nil {
		out.Keep = make([]apiv1.Range, len(p.Keep))
		for i, k := range p.Keep {
			out.Keep[i] = apiv1.Range(k)
		}
	}
	return out
}

func wireTranscript(t *transcribe.Transcript) *apiv1.Transcript {
	if t == nil {
		return nil
	}
	out := &apiv1.Transcript{Status: t.Status, Language: t.Language, Engine: t.Engine, Warning: t.Warning}
	if t.AutoCutConfidence != nil {
		v := *t.AutoCutConfidence
		out.AutoCutConfidence = &v
	}
	if t.Words != nil {
		out.Words = make([]apiv1.Word, len(t.Words))
		for i, w := range t.Words {
			out.Words[i] = apiv1.Word(w)
		}
	}
	if t.Fillers != nil {
		out.Fillers = make([]apiv1.Filler, len(t.Fillers))
		for i, f := range t.Fillers {
			out.Fillers[i] = apiv1.Filler(f)
		}
	}
	return out
}

// job is the API view of a record (URLs left to the HTTP adapter).
func (r *record) job() *apiv1.Job {
	j := &apiv1.Job{
		ID: r.ID, Status: r.Status, Progress: r.Progress,
		Input: r.Input, Preset: r.Preset, Params: wireParams(r.Params), Export: r.Export,
		Transcribe: r.Transcribe, Language: r.Language, AutoExport: r.AutoExport,
		Plan: wirePlan(r.Plan), Warnings: slices.Clone(r.Warnings), Transcript: wireTranscript(r.Transcript), Error: r.Error,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		TracksMode: r.TracksMode, Tracks: wireTracks(r.Tracks),
	}
	if r.Input.Duration != nil {
		d := *r.Input.Duration
		j.Input.Duration = &d
	}
	if r.Output != nil {
		o := *r.Output
		j.Output = &o
	}
	if r.Error != nil {
		e := *r.Error
		// Records failed before ClientMessage hold the raw error text (server
		// paths, ffmpeg output): codes with a fixed message show it.
		if msg, ok := fixedMessage(e.Code); ok {
			e.Message = msg
		}
		j.Error = &e
	}
	return j
}
