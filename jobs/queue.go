package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// txAdapter is what the job layer needs of a driver's transaction type TTx:
// begin/commit/rollback and a way to run the app's statements on it. SQLite
// uses *sql.Tx (sqlite.go), PostgreSQL pgx.Tx (postgres.go).
type txAdapter[TTx any] interface {
	Begin(ctx context.Context) (TTx, error)
	Commit(ctx context.Context, tx TTx) error
	Rollback(ctx context.Context, tx TTx) error
	Exec(tx TTx) execer
}

// enqueueFunc inserts a River job inside the current transaction and returns its id.
type enqueueFunc func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, error)

// queue is the driver-independent face of the River client.
type queue interface {
	// inTx runs fn in one transaction: app statements and River inserts commit together.
	inTx(ctx context.Context, fn func(ex execer, enqueue enqueueFunc) error) error
	// job returns a River job's row; nil when River no longer has it.
	job(ctx context.Context, id int64) (*rivertype.JobRow, error)
	// cancel asks River to cancel a job (queued jobs never run; running ones are
	// stopped by the worker's own cancel polling).
	cancel(ctx context.Context, id int64) error
	start(ctx context.Context) error
	stop(ctx context.Context) error
	stopAndCancel(ctx context.Context) error
}

// riverQueue implements queue for any River driver transaction type.
type riverQueue[TTx any] struct {
	client *river.Client[TTx]
	tx     txAdapter[TTx]
}

func (q *riverQueue[TTx]) inTx(ctx context.Context, fn func(ex execer, enqueue enqueueFunc) error) (err error) {
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

func (q *riverQueue[TTx]) job(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	row, err := q.client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil, nil
	}
	return row, err
}

func (q *riverQueue[TTx]) cancel(ctx context.Context, id int64) error {
	_, err := q.client.JobCancel(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil
	}
	return err
}

func (q *riverQueue[TTx]) start(ctx context.Context) error { return q.client.Start(ctx) }
func (q *riverQueue[TTx]) stop(ctx context.Context) error  { return q.client.Stop(ctx) }
func (q *riverQueue[TTx]) stopAndCancel(ctx context.Context) error {
	return q.client.StopAndCancel(ctx)
}
