package jobs

import (
	"context"
	"io"
	"time"

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
	// Analyze decodes the media r yields (its format sniffed from the first
	// bytes; name names it) and analyses it in one streaming pass. An input
	// longer than maxDuration stops it with dsp.ErrTooLong as soon as that
	// is known. r is a file (decoders may seek in it by path) or a stream
	// read once; a stream's Size() int64 method gives its length in bytes.
	Analyze(ctx context.Context, r io.Reader, name string, maxDuration time.Duration, progress dsp.Progress) (*dsp.Analysis, error)
	// Plan makes the cut plan from an analysis (plan.ErrNothingToKeep when nothing is kept).
	Plan(a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error)
	// Preset returns a preset's params and export defaults ("" is the default
	// preset; plan.ErrInvalidParams for an unknown name).
	Preset(name string) (plan.Params, apiv1.Export, error)
	// Validate checks params (plan.ErrInvalidParams naming the field).
	Validate(p plan.Params) error
	// Render writes the cut file for plan p of the original at path to w,
	// front to back. It may render into a temporary file in dir first
	// (formats whose encoder seeks in its output) and copy that to w.
	Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e apiv1.Export, w io.Writer, dir string, progress dsp.Progress) (*Rendered, error)
	// OutputName is the rendered file's name for an input name and export format.
	OutputName(inputName, format string) string
}

// Rendered describes what Engine.Render wrote.
type Rendered struct {
	Format   string  // container: "mp3", "wav", "m4a", "mp4"
	Duration float64 // seconds, measured on the written file
	Size     int64   // bytes
}
