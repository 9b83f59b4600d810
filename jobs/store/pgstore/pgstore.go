// Package pgstore is the jobs database of a cluster: PostgreSQL through
// pgx, with River's riverpgxv5 driver, shared by every node. Open it and
// give it to jobs.Config.Store.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/autocut-dev/autocut/jobs/store"
)

// IsURL reports whether a database setting names PostgreSQL
// (postgres:// or postgresql://).
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Options size the connection pool.
type Options struct {
	// Workers is the node's job concurrency. Without pool_max_conns in the
	// URL the pool holds enough connections for the workers, River's
	// producers and maintenance, and the API's reads: max(10, 2*Workers+6).
	// 0 is the number of cores, as in jobs.Config.
	Workers int
}

// poolSize is the pool's connection limit for a node of workers job slots
// (0: cpus) when the URL sets none.
func poolSize(workers, cpus int) int32 {
	if workers <= 0 {
		workers = cpus
	}
	return int32(max(10, 2*workers+6))
}

// DB is a PostgreSQL jobs database.
type DB struct {
	pool *pgxpool.Pool
	rb   *rebinder
}

var _ store.Store = (*DB)(nil)

// Open connects to the database at url and migrates it (River's schema and
// the job layer's tables) under an advisory lock, so that nodes starting
// together migrate one after another.
func Open(ctx context.Context, url string, o Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = poolSize(o.Workers, runtime.NumCPU())
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL %s: %w", RedactURL(url), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL %s: %w", RedactURL(url), err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &DB{pool: pool, rb: &rebinder{}}, nil
}

// migrationLock is the advisory lock key that serialises schema migrations
// of nodes starting together ("autocut" in ASCII).
const migrationLock = 0x6175746f637574

// jobTable is autocut_job in PostgreSQL's types (64-bit integers, doubles).
const jobTable = `CREATE TABLE IF NOT EXISTS autocut_job (
	id          TEXT PRIMARY KEY,
	owner       TEXT NOT NULL,
	status      TEXT NOT NULL,
	progress    DOUBLE PRECISION NOT NULL DEFAULT 0,
	gen         BIGINT NOT NULL DEFAULT 1,
	version     BIGINT NOT NULL DEFAULT 1,
	river_id    BIGINT NOT NULL DEFAULT 0,
	created_at  BIGINT NOT NULL,
	updated_at  BIGINT NOT NULL,
	original_at BIGINT NOT NULL DEFAULT 0,
	output_at   BIGINT NOT NULL DEFAULT 0,
	doc         TEXT NOT NULL`

// migrate brings River's schema and the job layer's tables up to date
// while holding a session advisory lock. (River's migrations cannot share
// one transaction: a later one uses an enum value an earlier one adds.)
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock)) //nolint:errcheck // the session ends with the connection anyway
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	table := jobTable
	for _, c := range store.AddedColumns() {
		table += ",\n\t" + c.Name + " " + c.PostgresType
	}
	stmts := []string{table + "\n)"}
	for _, c := range store.AddedColumns() { // a table made before the column
		stmts = append(stmts, `ALTER TABLE autocut_job ADD COLUMN IF NOT EXISTS `+c.Name+` `+c.PostgresType)
	}
	for _, stmt := range append(stmts, store.CommonSchema()...) {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("app schema: %w", err)
		}
	}
	return nil
}

// Shared is true: every node of a cluster uses the database.
func (db *DB) Shared() bool { return true }

// Read runs on the pool. A read that fails because its connection broke
// runs once more, on a new connection (see pgExec).
func (db *DB) Read() store.Execer { return pgExec{q: db.pool, rb: db.rb, pool: db.pool, retry: true} }

// Write runs on the pool (see pgExec).
func (db *DB) Write() store.Execer { return pgExec{q: db.pool, rb: db.rb, pool: db.pool} }

// Prepare returns nil: pgx prepares and caches statements itself.
func (db *DB) Prepare(context.Context, string) (store.Stmt, error) { return nil, nil }

// NewQueue builds the River client over the pool.
func (db *DB) NewQueue(cfg *river.Config) (store.Queue, error) {
	client, err := river.NewClient(riverpgxv5.New(db.pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return store.NewQueue[pgx.Tx](client, txAdapter{pool: db.pool, rb: db.rb}), nil
}

// Ping checks the pool.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// Check sees nothing: a PostgreSQL database is checked by Ping.
func (db *DB) Check() error { return nil }

// Close closes the pool.
func (db *DB) Close() error { db.pool.Close(); return nil }

// querier is what *pgxpool.Pool and pgx.Tx share.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// rebinder caches the $n form of each statement.
type rebinder struct{ m sync.Map }

func (r *rebinder) get(q string) string {
	if v, ok := r.m.Load(q); ok {
		return v.(string)
	}
	d := rebindDollar(q)
	r.m.Store(q, d)
	return d
}

// rebindDollar rewrites ? placeholders to PostgreSQL's $1, $2, ... The job
// layer's statements hold no ? inside string literals.
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

// pgExec adapts pgx to store.Execer. A statement that fails because its
// connection broke (brokenConn: the server or the network closed it, as a
// restart or a failover does, and then the pool's other connections too)
// fails with store.ErrConnection, after the pool's connections are closed
// (outside a transaction), so that the next statements get new ones; a
// read (retry) runs once more first, on a new connection.
type pgExec struct {
	q     querier
	rb    *rebinder
	pool  *pgxpool.Pool // nil in a transaction
	retry bool
}

// lastTry is the try (counted from 0) after which a statement whose
// connection broke fails: a read runs twice at most; a write, or a
// transaction's Begin, is on its last try at once (it may have committed).
const lastTry = 1

// failed returns whether a statement that failed with err on try (0: the
// first) runs again (a read, before lastTry), and else the error it
// returns: err, marked store.ErrConnection when its connection broke,
// after the pool's connections are closed.
func (e pgExec) failed(ctx context.Context, try int, err error) (bool, error) {
	if !brokenConn(ctx, err) {
		return false, err
	}
	if e.pool != nil {
		e.pool.Reset()
		if e.retry && try < lastTry {
			return true, err
		}
	}
	return false, fmt.Errorf("%w: %w", store.ErrConnection, err)
}

func (e pgExec) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := e.q.Exec(ctx, e.rb.get(query), args...)
	if _, err := e.failed(ctx, lastTry, err); err != nil { // a write does not run again
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (e pgExec) Query(ctx context.Context, query string, args ...any) (store.Rows, error) {
	for try := 0; ; try++ {
		r, err := e.q.Query(ctx, e.rb.get(query), args...)
		if more, err := e.failed(ctx, try, err); !more {
			if err != nil {
				return nil, err
			}
			return &retryRows{Rows: r, e: e, ctx: ctx, query: query, args: args, try: try}, nil
		}
	}
}

// retryRows are a read's rows that run the read again when its connection
// broke before the first row (pgx may report the break from the rows, not
// from Query), as pgExec runs a read again: once more at most, on a new
// connection. Once a row was read, a break ends the rows (Err).
type retryRows struct {
	store.Rows
	e       pgExec
	ctx     context.Context
	query   string
	args    []any
	try     int
	started bool
	err     error
}

func (r *retryRows) Next() bool {
	for {
		if r.Rows.Next() {
			r.started = true
			return true
		}
		if r.started || r.err != nil {
			return false
		}
		more, err := r.e.failed(r.ctx, r.try, r.Rows.Err())
		if !more {
			r.err = err
			return false
		}
		r.Rows.Close()
		r.try++
		rows, err := r.e.q.Query(r.ctx, r.e.rb.get(r.query), r.args...)
		if err != nil {
			_, r.err = r.e.failed(r.ctx, lastTry, err)
			return false
		}
		r.Rows = rows
	}
}

func (r *retryRows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Rows.Err()
}

func (e pgExec) QueryRow(ctx context.Context, query string, args ...any) store.Scanner {
	return pgRow{ctx: ctx, e: e, query: query, args: args}
}

// pgRow runs a single-row statement when scanned (see pgExec).
type pgRow struct {
	ctx   context.Context
	e     pgExec
	query string
	args  []any
}

func (r pgRow) Scan(dest ...any) error {
	for try := 0; ; try++ {
		err := r.e.q.QueryRow(r.ctx, r.e.rb.get(r.query), r.args...).Scan(dest...)
		if more, err := r.e.failed(r.ctx, try, err); !more {
			return err
		}
	}
}

// brokenConn reports whether err ended a statement because its connection
// broke rather than because of the statement: the connection closed under
// it (EOF, reset, broken pipe, another network error), it could not be
// used, or the server ended the session (SQLSTATE 57P01-57P05, as on
// shutdown). A statement's own error (any other PostgreSQL error, no
// rows, a scan), or the end of its context, is not.
func brokenConn(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, pgx.ErrNoRows) {
		return false
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return strings.HasPrefix(pgErr.Code, "57P")
	}
	var netErr net.Error
	return pgconn.SafeToRetry(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &netErr)
}

// txAdapter adapts pgx.Tx, River's riverpgxv5 transaction type.
type txAdapter struct {
	pool *pgxpool.Pool
	rb   *rebinder
}

func (a txAdapter) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := a.pool.Begin(ctx)
	_, err = pgExec{pool: a.pool}.failed(ctx, lastTry, err)
	return tx, err
}
func (a txAdapter) Commit(ctx context.Context, tx pgx.Tx) error   { return tx.Commit(ctx) }
func (a txAdapter) Rollback(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) }
func (a txAdapter) Exec(tx pgx.Tx) store.Execer                   { return pgExec{q: tx, rb: a.rb} }

// RedactURL hides a password in a database URL for messages.
func RedactURL(s string) string {
	at := strings.LastIndex(s, "@")
	scheme := strings.Index(s, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return s
	}
	cred := s[scheme+3 : at]
	if user, _, ok := strings.Cut(cred, ":"); ok {
		return s[:scheme+3] + user + ":xxxxx" + s[at:]
	}
	return s
}
