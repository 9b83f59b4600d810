// Package store is the seam between the job layer (package jobs) and its
// databases, as River's riverdriver is River's: the job layer writes its
// statements once, with ? placeholders, against the small Execer
// interface, and runs River through Queue; each database is a sub-package
// that opens, migrates and adapts one (sqlitestore: one process, a SQLite
// file; pgstore: a cluster, PostgreSQL). Only the program that uses a
// database links its driver.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Store is a migrated jobs database: River's tables and the job layer's.
type Store interface {
	// Shared reports whether several processes may use the database at
	// once (a cluster); one that is not serves a single process.
	Shared() bool
	// Read runs the polling reads (SQLite: a read-only pool beside the writer).
	Read() Execer
	// Write runs writes outside a transaction.
	Write() Execer
	// Prepare prepares a read once, for the hottest statement (GET of a
	// job); nil, nil when the driver caches statements itself.
	Prepare(ctx context.Context, query string) (Stmt, error)
	// NewQueue builds the River client over the database.
	NewQueue(cfg *river.Config) (Queue, error)
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Check reports what the driver can tell is wrong without a round
	// trip, cheaply enough for every request: a SQLite file deleted,
	// replaced or read-only under the running process (writes would go
	// to a file nobody opens again, or fail). nil when it sees nothing.
	Check() error
	// Close closes the database.
	Close() error
}

// Execer runs the job layer's statements, in a transaction or not. They
// are written once with ? placeholders; a driver adapts them.
type Execer interface {
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Scanner
}

// Rows iterates over a query's result.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Scanner is one row (sql.Row, pgx.Row, or the current row of Rows).
type Scanner interface{ Scan(dest ...any) error }

// Stmt is a prepared single-row read.
type Stmt interface {
	QueryRow(ctx context.Context, args ...any) Scanner
	Close() error
}

// ErrConnection marks a statement that failed because its connection to
// the database broke (the server restarted, a failover, the network),
// not because of the statement: it may well work when tried again.
var ErrConnection = errors.New("database connection lost")

// IsNoRows reports an empty single-row result of any driver (pgx's
// ErrNoRows wraps sql.ErrNoRows).
func IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// EnqueueFunc inserts a River job inside the current transaction and
// returns its id.
type EnqueueFunc func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, error)

// Queue is the face of the River client the job layer uses, whatever the
// driver's transaction type.
type Queue interface {
	// InTx runs fn in one transaction: the job layer's statements and
	// River's inserts commit together.
	InTx(ctx context.Context, fn func(ex Execer, enqueue EnqueueFunc) error) error
	// Job returns a River job's row; nil when River no longer has it.
	Job(ctx context.Context, id int64) (*rivertype.JobRow, error)
	// Cancel asks River to cancel a job (a queued job never runs).
	Cancel(ctx context.Context, id int64) error
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
}

// TxAdapter is what a driver gives NewQueue of its transaction type TTx:
// begin, commit, rollback, and the job layer's statements on a transaction.
type TxAdapter[TTx any] interface {
	Begin(ctx context.Context) (TTx, error)
	Commit(ctx context.Context, tx TTx) error
	Rollback(ctx context.Context, tx TTx) error
	Exec(tx TTx) Execer
}

// NewQueue makes a Queue of a River client over a driver whose
// transactions are TTx.
func NewQueue[TTx any](client *river.Client[TTx], tx TxAdapter[TTx]) Queue {
	return &riverQueue[TTx]{client: client, tx: tx}
}

// riverQueue implements Queue for any River driver transaction type.
type riverQueue[TTx any] struct {
	client *river.Client[TTx]
	tx     TxAdapter[TTx]
}

func (q *riverQueue[TTx]) InTx(ctx context.Context, fn func(ex Execer, enqueue EnqueueFunc) error) (err error) {
	tx, err := q.tx.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() {
		if err != nil {
			_ = q.tx.Rollback(context.WithoutCancel(ctx), tx)
		}
	}()
	enqueue := func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
		res, err := q.client.InsertTx(ctx, tx, args, opts)
		if err != nil {
			return 0, fmt.Errorf("enqueue %s: %w", args.Kind(), err)
		}
		return res.Job.ID, nil
	}
	if err = fn(q.tx.Exec(tx), enqueue); err != nil {
		return err
	}
	if err = q.tx.Commit(ctx, tx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (q *riverQueue[TTx]) Job(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	row, err := q.client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil, nil
	}
	return row, err
}

func (q *riverQueue[TTx]) Cancel(ctx context.Context, id int64) error {
	_, err := q.client.JobCancel(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil
	}
	return err
}

func (q *riverQueue[TTx]) Start(ctx context.Context) error { return q.client.Start(ctx) }
func (q *riverQueue[TTx]) Stop(ctx context.Context) error  { return q.client.Stop(ctx) }
func (q *riverQueue[TTx]) StopAndCancel(ctx context.Context) error {
	return q.client.StopAndCancel(ctx)
}
