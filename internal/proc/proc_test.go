//go:build linux

package proc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCancelStopsAWrapperAndItsChild: a tool that is a shell script whose
// child holds the output pipe and never ends is stopped with that child,
// and Wait returns, when the context ends.
func TestCancelStopsAWrapperAndItsChild(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "tool")
	pidFile := filepath.Join(dir, "child.pid")
	body := "#!/bin/sh\nsleep 300 &\necho $! > " + pidFile + "\nwait\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	_ = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid []byte
	for i := 0; i < 200 && len(pid) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
		pid, _ = os.ReadFile(pidFile)
	}
	if len(pid) == 0 {
		t.Fatal("the script's child did not start")
	}
	cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(waitDelay + 3*time.Second):
		t.Fatal("Wait did not return after the context ended")
	}
	proc := filepath.Join("/proc", string(pid[:len(pid)-1]))
	for i := 0; i < 100; i++ {
		if st, err := os.ReadFile(filepath.Join(proc, "stat")); err != nil || isZombie(st) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the script's child %s still runs", pid[:len(pid)-1])
}

// isZombie reports whether a /proc/PID/stat line is a dead process's.
func isZombie(stat []byte) bool {
	for i := len(stat) - 1; i > 0; i-- {
		if stat[i] == ')' && i+2 < len(stat) {
			return stat[i+2] == 'Z'
		}
	}
	return false
}
