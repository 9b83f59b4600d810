// Package testservers starts real servers for tests on 127.0.0.1: a
// PostgreSQL server from Debian's packages and an S3 server (versitygw).
// Each runs in its own temporary directory and stops at the test's cleanup.
//
// A missing binary skips the test, unless AUTOCUT_REQUIRE_SERVERS=1 (CI sets
// it, after installing them), which makes it fail instead.
package testservers

import (
	"net"
	"os"
	"strings"
	"testing"
)

// missing skips or fails a test whose server binary is not installed.
func missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("AUTOCUT_REQUIRE_SERVERS") == "1" {
		t.Fatalf("%s is not installed (AUTOCUT_REQUIRE_SERVERS=1)", what)
	}
	t.Skipf("%s is not installed; scripts/test.sh installs it", what)
}

// freePort returns a loopback port nobody listens on right now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
