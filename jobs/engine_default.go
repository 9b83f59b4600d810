package jobs

import (
	"context"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
)

// DefaultEngine returns the engine built on the dsp, plan and transcode packages.
func DefaultEngine() Engine { return libEngine{} }

type libEngine struct{}

func (libEngine) Sniff(head []byte) string { return dsp.Sniff(head) }

func (libEngine) Probe(ctx context.Context, path string) (dsp.Info, error) {
	return dsp.Probe(ctx, path)
}

// Analyze decodes and analyses path; for video it also keeps the probed
// frame rate, frame size and timecode, which the audio decoders do not know.
func (libEngine) Analyze(ctx context.Context, path string, progress dsp.Progress) (*dsp.Analysis, error) {
	a, err := dsp.AnalyzeFile(ctx, path, progress)
	if err != nil {
		return nil, err
	}
	if a.Input.Type == "video" || a.Input.FrameRate.Num == 0 {
		if info, perr := dsp.Probe(ctx, path); perr == nil && info.Type == "video" {
			a.Input.Type, a.Input.FrameRate, a.Input.VideoFrames = info.Type, info.FrameRate, info.VideoFrames
			a.Input.Width, a.Input.Height = info.Width, info.Height
			if a.Input.StartTimecode == 0 {
				a.Input.StartTimecode = info.StartTimecode
			}
		}
	}
	return a, nil
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
