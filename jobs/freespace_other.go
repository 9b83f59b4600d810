//go:build !unix

package jobs

import "errors"

// freeBytes is not known on this system (the disk is never judged full).
func freeBytes(string) (uint64, error) { return 0, errors.New("free space unknown") }
