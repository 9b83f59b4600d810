// Package proc starts the external tools autocut calls (ffmpeg, ffprobe,
// speech recognisers) so that ending their context ends them for good.
package proc

import (
	"context"
	"os/exec"
	"time"
)

// waitDelay bounds how long Wait waits, once the context is done, for the
// tool's output pipes to close: a tool run through a wrapper script may
// leave a child holding them.
const waitDelay = 2 * time.Second

// Command is exec.CommandContext, but when ctx ends the tool is stopped
// with every process it started (its process group, on Unix), and Wait
// returns within waitDelay even if something still holds its output pipes.
// Without this, cancelling an ffmpeg that is a wrapper script kills only
// the script: the real ffmpeg lives on, blocked writing to a pipe nobody
// reads, and Wait waits for it forever.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	return cmd
}
