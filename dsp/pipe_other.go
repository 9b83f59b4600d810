//go:build !linux

package dsp

import "os"

// pipeWait does nothing here: reads take what the pipe holds.
func pipeWait(r *os.File, want int) {}

// samplePipe returns a pipe for ffmpeg's samples.
func samplePipe() (r, w *os.File, err error) { return os.Pipe() }
