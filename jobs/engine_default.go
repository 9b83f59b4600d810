package jobs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// Render streams a WAV export straight to w (transcode.RenderTo: the
// header's sizes come from the plan); the other formats are rendered into
// a file in dir (transcode.Render: MP3 with its Xing/LAME tag, VBR for
// mp3, and M4A/MP4 with their index at the front, which downloads that
// seek want) and copied to w.
func (libEngine) Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e apiv1.Export, w io.Writer, dir string, progress dsp.Progress) (*Rendered, error) {
	o := transcode.Options{Format: e.Format, Normalize: e.Normalize, Denoise: e.Denoise, Rumble: e.Rumble}
	if transcode.ContainerOf(e.Format) == "wav" {
		r, err := transcode.RenderTo(ctx, path, a, p, o, w, progress)
		if err != nil {
			return nil, err
		}
		return &Rendered{Format: r.Format, Duration: r.Duration, Size: r.Size}, nil
	}
	out := filepath.Join(dir, "out"+transcode.Ext(e.Format))
	r, err := transcode.Render(ctx, path, a, p, o, out, progress)
	if err != nil {
		return nil, err
	}
	defer os.Remove(out)
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return nil, fmt.Errorf("copy the rendered file: %w", err)
	}
	return &Rendered{Format: r.Format, Duration: r.Duration, Size: r.Size}, nil
}

func (libEngine) OutputName(inputName, format string) string {
	return transcode.OutputName(inputName, format)
}
