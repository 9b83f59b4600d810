// Package sqlitestore is the jobs database of a single process: a SQLite
// file (modernc.org/sqlite, pure Go) in WAL mode, with River's SQLite
// driver. Open it and give it to jobs.Config.Store.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/autocut-dev/autocut/jobs/store"
)

// DB is a SQLite jobs database. It holds two pools of one file: a
// single-connection writer (SQLite has one writer; River's SQLite driver
// asks for one connection) shared by River and the job layer, and a small
// read-only pool so that polling reads never wait behind River's
// maintenance writes (WAL lets readers run beside the writer).
type DB struct {
	write *sql.DB
	read  *sql.DB
	path  string      // the database file, absolute
	file  os.FileInfo // the file opened (Check compares it with what path names now)
}

var _ store.Store = (*DB)(nil)

// Open opens (creating it if need be) and migrates the SQLite database at
// path: River's schema and the job layer's tables.
func Open(ctx context.Context, path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("database path: %w", err)
	}
	u := url.URL{Scheme: "file", Path: abs}
	wq := url.Values{}
	wq.Add("_pragma", "journal_mode(WAL)")
	wq.Add("_pragma", "busy_timeout(10000)")
	wq.Add("_pragma", "synchronous(NORMAL)")
	wq.Add("_txlock", "immediate")
	u.RawQuery = wq.Encode()
	w, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	w.SetMaxOpenConns(1)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	rq := url.Values{}
	rq.Add("_pragma", "busy_timeout(10000)")
	rq.Add("_pragma", "query_only(1)")
	u.RawQuery = rq.Encode()
	r, err := sql.Open("sqlite", u.String())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	db := &DB{write: w, read: r, path: abs}
	if err := migrate(ctx, w); err != nil {
		db.Close()
		return nil, err
	}
	if db.file, err = os.Stat(abs); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	return db, nil
}

// jobTable is autocut_job in SQLite's types.
const jobTable = `CREATE TABLE IF NOT EXISTS autocut_job (
	id          TEXT PRIMARY KEY,
	owner       TEXT NOT NULL,
	status      TEXT NOT NULL,
	progress    REAL NOT NULL DEFAULT 0,
	gen         INTEGER NOT NULL DEFAULT 1,
	version     INTEGER NOT NULL DEFAULT 1,
	river_id    INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	original_at INTEGER NOT NULL DEFAULT 0,
	output_at   INTEGER NOT NULL DEFAULT 0,
	doc         TEXT NOT NULL
)` // the columns added after the first release are added by migrate

// migrate brings River's schema and the job layer's tables up to date.
func migrate(ctx context.Context, db *sql.DB) error {
	migrator, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if _, err := db.ExecContext(ctx, jobTable); err != nil {
		return fmt.Errorf("app schema: %w", err)
	}
	// Columns added after the first release, before the indexes and the rest.
	for _, col := range store.AddedColumns() {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('autocut_job') WHERE name = ?`, col.Name).Scan(&n); err != nil {
			return fmt.Errorf("app schema: %w", err)
		}
		if n == 0 {
			if _, err := db.ExecContext(ctx, `ALTER TABLE autocut_job ADD COLUMN `+col.Name+` `+col.SQLiteType); err != nil {
				return fmt.Errorf("app schema: %w", err)
			}
		}
	}
	for _, stmt := range store.CommonSchema() {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("app schema: %w", err)
		}
	}
	return nil
}

// Shared is false: a SQLite file serves one process.
func (db *DB) Shared() bool { return false }

// Read runs on the read-only pool.
func (db *DB) Read() store.Execer { return sqlExec{db.read} }

// Write runs on the writer.
func (db *DB) Write() store.Execer { return sqlExec{db.write} }

// Prepare prepares a read on the read-only pool (parsing the SQL was 15 %
// of a poll's cost under load).
func (db *DB) Prepare(ctx context.Context, query string) (store.Stmt, error) {
	s, err := db.read.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return sqlStmt{s}, nil
}

// NewQueue builds the River client over the writer.
func (db *DB) NewQueue(cfg *river.Config) (store.Queue, error) {
	client, err := river.NewClient(riversqlite.New(db.write), cfg)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return store.NewQueue[*sql.Tx](client, txAdapter{db.write}), nil
}

// Ping checks the file (Check) and the read pool.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.Check(); err != nil {
		return err
	}
	return db.read.PingContext(ctx)
}

// Check reports a database file that is no longer the one opened (deleted
// or replaced: SQLite would go on writing to the unlinked file, lost at
// the next start) or that cannot be written.
func (db *DB) Check() error {
	st, err := os.Stat(db.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the database file %s is gone (deleted or moved while the server runs): restore it, or restart the server", db.path)
	case err != nil:
		return fmt.Errorf("the database file %s: %w", db.path, err)
	case !os.SameFile(st, db.file):
		return fmt.Errorf("the database file %s is not the file opened (replaced while the server runs): restart the server", db.path)
	}
	if err := writable(db.path); err != nil {
		return fmt.Errorf("the database file %s is read-only: %w", db.path, err)
	}
	return nil
}

// Close closes both pools.
func (db *DB) Close() error {
	err1 := db.read.Close()
	err2 := db.write.Close()
	if err2 != nil {
		return err2
	}
	return err1
}

// txAdapter adapts *sql.Tx, River's SQLite transaction type.
type txAdapter struct{ db *sql.DB }

func (a txAdapter) Begin(ctx context.Context) (*sql.Tx, error)   { return a.db.BeginTx(ctx, nil) }
func (a txAdapter) Commit(_ context.Context, tx *sql.Tx) error   { return tx.Commit() }
func (a txAdapter) Rollback(_ context.Context, tx *sql.Tx) error { return tx.Rollback() }
func (a txAdapter) Exec(tx *sql.Tx) store.Execer                 { return sqlExec{tx} }

// querier is what *sql.DB, *sql.Tx and *sql.Conn share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqlExec adapts database/sql to store.Execer (SQLite takes ? as written).
type sqlExec struct{ q querier }

func (e sqlExec) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := e.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (e sqlExec) Query(ctx context.Context, query string, args ...any) (store.Rows, error) {
	r, err := e.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (e sqlExec) QueryRow(ctx context.Context, query string, args ...any) store.Scanner {
	return e.q.QueryRowContext(ctx, query, args...)
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

type sqlStmt struct{ s *sql.Stmt }

func (s sqlStmt) QueryRow(ctx context.Context, args ...any) store.Scanner {
	return s.s.QueryRowContext(ctx, args...)
}
func (s sqlStmt) Close() error { return s.s.Close() }
