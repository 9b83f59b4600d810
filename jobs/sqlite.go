package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// sqliteTx adapts *sql.Tx, River's SQLite transaction type.
type sqliteTx struct{ db *sql.DB }

func (a sqliteTx) Begin(ctx context.Context) (*sql.Tx, error)   { return a.db.BeginTx(ctx, nil) }
func (a sqliteTx) Commit(_ context.Context, tx *sql.Tx) error   { return tx.Commit() }
func (a sqliteTx) Rollback(_ context.Context, tx *sql.Tx) error { return tx.Rollback() }
func (a sqliteTx) Exec(tx *sql.Tx) execer                       { return sqlExec{tx} }

// sqliteDB holds the two pools of one SQLite file: a single-connection
// writer (SQLite has one writer; River's SQLite driver asks for one
// connection) shared by River and the app, and a small read-only pool so
// that polling GETs never wait behind River's maintenance writes (WAL lets
// readers run beside the writer).
type sqliteDB struct {
	write *sql.DB
	read  *sql.DB
}

func openSQLite(ctx context.Context, path string) (*sqliteDB, error) {
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
	return &sqliteDB{write: w, read: r}, nil
}

// database wraps the pools for the job layer. GET job, what clients poll,
// goes through a statement prepared once (parsing the SQL was 15% of a
// poll's cost under load).
func (s *sqliteDB) database(ctx context.Context) *database {
	d := &database{
		kind: "sqlite", read: sqlExec{s.read}, write: sqlExec{s.write},
		ping:  s.read.PingContext,
		close: s.Close,
	}
	stmt, err := s.read.PrepareContext(ctx, `SELECT `+recordCols+` FROM autocut_job WHERE id = ? AND owner = ?`)
	if err == nil {
		d.close = func() error { stmt.Close(); return s.Close() }
		d.getJob = func(ctx context.Context, id, owner string) (*record, error) {
			return scanRecord(stmt.QueryRowContext(ctx, id, owner))
		}
	}
	return d
}

func (s *sqliteDB) Close() error {
	err1 := s.read.Close()
	err2 := s.write.Close()
	if err2 != nil {
		return err2
	}
	return err1
}

// migrateSQLite brings River's schema and the app's tables up to date.
func migrateSQLite(ctx context.Context, db *sql.DB) error {
	migrator, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	for _, stmt := range appSchema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("app schema: %w", err)
		}
	}
	// Columns added after the first release, before the indexes and the rest.
	for _, col := range []struct{ name, def string }{
		{"lease_owner", "TEXT NOT NULL DEFAULT ''"},
		{"lease_until", "INTEGER NOT NULL DEFAULT 0"},
	} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('autocut_job') WHERE name = ?`, col.name).Scan(&n); err != nil {
			return fmt.Errorf("app schema: %w", err)
		}
		if n == 0 {
			if _, err := db.ExecContext(ctx, `ALTER TABLE autocut_job ADD COLUMN `+col.name+` `+col.def); err != nil {
				return fmt.Errorf("app schema: %w", err)
			}
		}
	}
	for _, stmt := range commonSchema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("app schema: %w", err)
		}
	}
	return nil
}

// newSQLiteQueue builds the River client over the writer pool.
func newSQLiteQueue(db *sql.DB, cfg *river.Config) (queue, error) {
	client, err := river.NewClient(riversqlite.New(db), cfg)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &riverQueue[*sql.Tx]{client: client, tx: sqliteTx{db: db}}, nil
}
