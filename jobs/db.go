package jobs

import (
	"context"

	"github.com/autocut-dev/autocut/jobs/store"
)

// The job layer's statements run through the store's small interfaces;
// these are their names here.
type (
	execer      = store.Execer
	scanner     = store.Scanner
	enqueueFunc = store.EnqueueFunc
)

var isNoRows = store.IsNoRows

// database is the job layer's view of its store: where reads and writes
// go outside transactions, and GET job through a statement prepared once
// when the driver offers that.
type database struct {
	st     store.Store
	read   execer
	write  execer
	getJob store.Stmt // nil: getRecord
}

func newDatabase(ctx context.Context, st store.Store) *database {
	d := &database{st: st, read: st.Read(), write: st.Write()}
	if stmt, err := st.Prepare(ctx, `SELECT `+recordCols+` FROM autocut_job WHERE id = ? AND owner = ?`); err == nil && stmt != nil {
		d.getJob = stmt
	}
	return d
}

// close closes the prepared statement and the store.
func (d *database) close() error {
	if d.getJob != nil {
		d.getJob.Close()
	}
	return d.st.Close()
}
