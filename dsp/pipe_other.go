//go:build !linux

package dsp

import "os"

// samplePipe returns a pipe for ffmpeg's samples.
func samplePipe() (r, w *os.File, err error) { return os.Pipe() }
