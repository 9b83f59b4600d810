package jobs

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
)

// execer runs the app's own statements, inside a transaction or not. The
// statements are written once with ? placeholders; each driver adapts them
// (PostgreSQL rewrites them to $n).
type execer interface {
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (rows, error)
	QueryRow(ctx context.Context, query string, args ...any) scanner
}

// rows iterates over a query's result.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// scanner is one row (sql.Row, pgx.Row, or the current row of rows).
type scanner interface{ Scan(dest ...any) error }

// database is the app's view of a jobs database: where reads and writes go
// outside transactions, and how to check and close it.
type database struct {
	kind  string // "sqlite" or "postgres"
	read  execer // polling reads (SQLite: a read-only pool beside the writer)
	write execer // writes outside a transaction
	ping  func(ctx context.Context) error
	close func() error
	// getJob loads a job by id and owner through a statement prepared once
	// (nil: use getRecord; pgx caches prepared statements itself).
	getJob func(ctx context.Context, id, owner string) (*record, error)
}

// sqlQuerier is what *sql.DB, *sql.Tx and *sql.Conn share.
type sqlQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqlExec adapts database/sql to execer (SQLite takes ? as written).
type sqlExec struct{ q sqlQuerier }

func (e sqlExec) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := e.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (e sqlExec) Query(ctx context.Context, query string, args ...any) (rows, error) {
	r, err := e.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (e sqlExec) QueryRow(ctx context.Context, query string, args ...any) scanner {
	return e.q.QueryRowContext(ctx, query, args...)
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// isNoRows reports an empty single-row result of either driver (pgx's
// ErrNoRows wraps sql.ErrNoRows).
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// rebindDollar rewrites ? placeholders to PostgreSQL's $1, $2, ... The app's
// statements hold no ? inside string literals.
func rebindDollar(q string) string {
	n := strings.Count(q, "?")
	if n == 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 2*n)
	i := 0
	for _, c := range q {
		if c == '?' {
			i++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(i))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
