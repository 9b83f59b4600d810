package jobs

import (
	"context"
	"io"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
)

// DefaultEngine returns the engine built on the dsp, plan and transcode packages.
func DefaultEngine() Engine { return libEngine{} }

type libEngine struct{}

func (libEngine) Sniff(head []byte) string { return dsp.Sniff(head) }

// Analyze analyses r with dsp.AnalyzeReader: the decoders' Info carries
// a video's frame rate, frame size and start timecode (ffprobe's), which the timelines
// and the video render need.
func (libEngine) Analyze(ctx context.Context, r io.Reader, name string, maxDuration time.Duration, progress dsp.Progress) (*dsp.Analysis, error) {
	return dsp.AnalyzeReader(ctx, r, name, dsp.AnalyzeOptions{MaxDuration: maxDuration, Progress: progress})
}

func (libEngine) Plan(a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error) {
	return plan.Make(a, p, extra)
}

func (libEngine) Preset(name string) (plan.Params, apiv1.Export, error) {
	pr, err := plan.LookupPreset(name)
	if err != nil {
		return plan.Params{}, apiv1.Export{}, err
	}
	return pr.Params, apiv1.Export{Format: transcode.DefaultFormat, Normalize: pr.Normalize, Denoise: pr.Denoise, Rumble: pr.Rumble, CutFillers: true}, nil
}

func (libEngine) Validate(p plan.Params) error { return p.Validate() }

func (libEngine) Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e apiv1.Export, out string, progress dsp.Progress) (*Rendered, error) {
	r, err := transcode.Render(ctx, path, a, p, transcode.Options{Format: e.Format, Normalize: e.Normalize, Denoise: e.Denoise, Rumble: e.Rumble}, out, progress)
	if err != nil {
		return nil, err
	}
	return &Rendered{Format: r.Format, Duration: r.Duration, Size: r.Size}, nil
}

func (libEngine) OutputName(inputName, format string) string {
	return transcode.OutputName(inputName, format)
}
