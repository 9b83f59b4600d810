//go:build unix

package sqlitestore

import "golang.org/x/sys/unix"

// writable reports whether this process may write the file at path (its
// mode for this user, a read-only mount).
func writable(path string) error { return unix.Access(path, unix.W_OK) }
