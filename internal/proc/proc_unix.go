//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, which Cancel kills.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		// The group first (the tool's children), then the tool itself,
		// whose error Wait reports.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return cmd.Process.Kill()
	}
}
