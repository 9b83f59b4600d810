package dsp

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// hasFMA reports whether math.FMA is a single hardware instruction here;
// elsewhere Go emulates it in software, far slower than a multiply and an
// add, and the analyzer keeps to the plain recursions.
func hasFMA() bool {
	switch runtime.GOARCH {
	case "amd64":
		return cpu.X86.HasFMA
	case "arm64", "ppc64", "ppc64le", "s390x", "riscv64", "loong64":
		return true
	}
	return false
}
