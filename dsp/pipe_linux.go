package dsp

import (
	"os"
	"syscall"
)

// samplePipeSize is the kernel buffer asked for the pipe ffmpeg writes
// samples into: 1 MiB (the unprivileged maximum) instead of 64 KiB wakes
// the two sides a sixteenth as often.
const samplePipeSize = 1 << 20

// samplePipe returns a pipe for ffmpeg's samples. Its read end is in
// blocking mode: the one goroutine reading it blocks in read(2) instead of
// parking in the runtime's poller after every 64 KiB.
func samplePipe() (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	// F_SETPIPE_SZ; a refusal (a lower pipe-max-size) leaves the default.
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[0]), 1031, samplePipeSize)
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
