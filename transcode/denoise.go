package transcode

import (
	"context"
	"errors"

	"github.com/autocut-dev/autocut/dsp"
)

// newDenoiser is the spectral-gating stage (not yet written).
func newDenoiser(ctx context.Context, inputPath string, a *dsp.Analysis, src dsp.Source) (dsp.Source, error) {
	return nil, errors.New("denoise is not available yet")
}
