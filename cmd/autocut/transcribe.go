package main

import (
	"context"
	"errors"
)

// runTranscribe is a placeholder until its issue lands.
func runTranscribe(ctx context.Context, e env) error {
	return errors.New("not implemented yet")
}
