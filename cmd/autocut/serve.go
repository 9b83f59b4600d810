package main

import (
	"context"
	"errors"
)

// runServe is a placeholder until its issue lands.
func runServe(ctx context.Context, e env) error {
	return errors.New("not implemented yet")
}
