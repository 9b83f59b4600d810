// Package tail shortens a child process's stderr for error messages.
package tail

import "strings"

// Lines returns the last n lines of s (surrounding blank space trimmed),
// joined by " | ".
func Lines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
