package main

import (
	"context"
	"errors"
)

// runAnalyze is a placeholder until the dsp issue lands.
func runAnalyze(ctx context.Context, e env) error {
	return errors.New("not implemented yet")
}
