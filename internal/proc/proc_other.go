//go:build !unix

package proc

import "os/exec"

// ownGroup leaves cmd as it is: Cancel kills the tool only.
func ownGroup(cmd *exec.Cmd) {}
