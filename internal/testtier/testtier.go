// Package testtier tells the test tiers apart. `go test ./...` is the
// fast tier, run after every change; the slow tier (accuracy sweeps over
// the corpora, hour-long media, soak tests) runs only when AUTOCUT_SLOW=1,
// as scripts/test.sh (and so CI) always sets it.
package testtier

import (
	"os"
	"testing"
)

// Var is the environment variable that turns the slow tier on.
const Var = "AUTOCUT_SLOW"

// On reports whether the slow tier runs.
func On() bool { return os.Getenv(Var) == "1" }

// Slow skips tb unless the slow tier runs; what says what the test does
// (and so why it is slow).
func Slow(tb testing.TB, what string) {
	tb.Helper()
	if !On() {
		tb.Skipf("slow tier (%s): set %s=1", what, Var)
	}
}
