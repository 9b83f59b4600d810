package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestRebindDollar(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT 1`: `SELECT 1`,
		`UPDATE autocut_job SET gen = ? WHERE id = ? AND gen = ?`: `UPDATE autocut_job SET gen = $1 WHERE id = $2 AND gen = $3`,
		`INSERT INTO t (a, b) VALUES (?,?)`:                       `INSERT INTO t (a, b) VALUES ($1,$2)`,
	} {
		if got := rebindDollar(in); got != want {
			t.Errorf("rebindDollar(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://autocut:s3cret@db:5432/autocut": "postgres://autocut:xxxxx@db:5432/autocut",
		"postgres://autocut@db/autocut":             "postgres://autocut@db/autocut",
		"postgres://db/autocut":                     "postgres://db/autocut",
		"postgresql://u:p@ss@h/d":                   "postgresql://u:xxxxx@h/d",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	if !IsURL("postgres://h/d") || !IsURL("postgresql://h/d") || IsURL("/var/lib/autocut.db") || IsURL("sqlite://x.db") {
		t.Error("IsURL")
	}
}

// TestPoolSize: without pool_max_conns the pool covers the node's job
// slots, and the default slots (--workers 0) are the cores.
func TestPoolSize(t *testing.T) {
	for _, c := range []struct {
		workers, cpus int
		want          int32
	}{
		{0, 1, 10}, {1, 8, 10}, {2, 8, 10}, {8, 2, 22}, {0, 8, 22}, {0, 32, 70},
	} {
		if got := poolSize(c.workers, c.cpus); got != c.want {
			t.Errorf("poolSize(%d workers, %d cores) = %d, want %d", c.workers, c.cpus, got, c.want)
		}
	}
}

// TestBrokenConn: what counts as a connection that broke under a
// statement (it may work again on a new one) and what is the statement's
// own error.
func TestBrokenConn(t *testing.T) {
	ctx := context.Background()
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"unexpected EOF", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{"EOF", fmt.Errorf("receive message: %w", io.EOF), true},
		{"connection reset", fmt.Errorf("read: %w", reset), true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{"cannot connect now", &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{"unique violation", &pgconn.PgError{Code: "23505", Message: "duplicate key value"}, false},
		{"statement timeout", &pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}, false},
		{"no rows", pgx.ErrNoRows, false},
		{"scan", errors.New("can't scan into dest[0]: cannot scan text into *int64"), false},
	} {
		if got := brokenConn(ctx, c.err); got != c.want {
			t.Errorf("%s: brokenConn(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if brokenConn(done, fmt.Errorf("read: %w", reset)) {
		t.Error("an error after the statement's context ended counts as a broken connection")
	}
}
