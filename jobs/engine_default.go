package jobs

import (
	"context"
	"errors"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// DefaultEngine returns the engine built on the dsp, plan and transcode packages.
func DefaultEngine() Engine { return libEngine{} }

type libEngine struct{}

var errNotLinked = errors.New("jobs: media engine not linked yet")

func (libEngine) Sniff(head []byte) string { return "" }
func (libEngine) Probe(ctx context.Context, path string) (dsp.Info, error) {
	return dsp.Info{}, errNotLinked
}
func (libEngine) Analyze(ctx context.Context, path string, progress dsp.Progress) (*dsp.Analysis, error) {
	return nil, errNotLinked
}
func (libEngine) Plan(a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error) {
	return nil, errNotLinked
}
func (libEngine) Preset(name string) (plan.Params, Export, error) {
	return plan.Params{}, Export{}, errNotLinked
}
func (libEngine) Validate(p plan.Params) error { return errNotLinked }
func (libEngine) Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e Export, out string, progress dsp.Progress) (*Rendered, error) {
	return nil, errNotLinked
}
func (libEngine) OutputName(inputName, format string) string { return inputName }
