package main

import (
	"context"
	"errors"
)

// runCut is a placeholder until its issue lands.
func runCut(ctx context.Context, e env) error {
	return errors.New("not implemented yet")
}
