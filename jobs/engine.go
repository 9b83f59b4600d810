package jobs

import (
	"context"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// Engine is the media work a job runs: sniffing, analysis, planning and
// rendering. The default engine uses the dsp, plan and transcode packages;
// tests wrap it (for example to count decodes).
type Engine interface {
	// Sniff names the container of a file from its first bytes, "" when unknown.
	Sniff(head []byte) string
	// Probe reads what is known about a media file without decoding it.
	Probe(ctx context.Context, path string) (dsp.Info, error)
	// Analyze decodes and analyses the media file at path in one streaming pass.
	Analyze(ctx context.Context, path string, progress dsp.Progress) (*dsp.Analysis, error)
	// Plan makes the cut plan from an analysis (plan.ErrNothingToKeep when nothing is kept).
	Plan(a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error)
	// Preset returns a preset's params and export defaults ("" is the default
	// preset; plan.ErrInvalidParams for an unknown name).
	Preset(name string) (plan.Params, apiv1.Export, error)
	// Validate checks params (plan.ErrInvalidParams naming the field).
	Validate(p plan.Params) error
	// Render writes the cut file for plan p to out.
	Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e apiv1.Export, out string, progress dsp.Progress) (*Rendered, error)
	// OutputName is the rendered file's name for an input name and export format.
	OutputName(inputName, format string) string
}

// Rendered describes a file written by Engine.Render.
type Rendered struct {
	Format   string  // container: "mp3", "wav", "m4a", "mp4"
	Duration float64 // seconds, measured on the written file
	Size     int64   // bytes
}
