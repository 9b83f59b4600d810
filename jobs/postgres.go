package jobs

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// isPostgresURL reports whether a --database value names PostgreSQL.
func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// pgSchema is appSchema for PostgreSQL (64-bit integers and doubles);
// commonSchema follows it.
var pgSchema = []string{
	`CREATE TABLE IF NOT EXISTS autocut_job (
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
		doc         TEXT NOT NULL,
		lease_owner TEXT NOT NULL DEFAULT '',
		lease_until BIGINT NOT NULL DEFAULT 0
	)`,
}

// migrationLock is the advisory lock key that serialises schema migrations
// of nodes starting together ("autocut" in ASCII).
const migrationLock = 0x6175746f637574

// pgQuerier is what *pgxpool.Pool and pgx.Tx share.
type pgQuerier interface {
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

// pgExec adapts pgx to execer.
type pgExec struct {
	q  pgQuerier
	rb *rebinder
}

func (e pgExec) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := e.q.Exec(ctx, e.rb.get(query), args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (e pgExec) Query(ctx context.Context, query string, args ...any) (rows, error) {
	r, err := e.q.Query(ctx, e.rb.get(query), args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (e pgExec) QueryRow(ctx context.Context, query string, args ...any) scanner {
	return e.q.QueryRow(ctx, e.rb.get(query), args...)
}

// pgTx adapts pgx.Tx, River's riverpgxv5 transaction type.
type pgTx struct {
	pool *pgxpool.Pool
	rb   *rebinder
}

func (a pgTx) Begin(ctx context.Context) (pgx.Tx, error)     { return a.pool.Begin(ctx) }
func (a pgTx) Commit(ctx context.Context, tx pgx.Tx) error   { return tx.Commit(ctx) }
func (a pgTx) Rollback(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) }
func (a pgTx) Exec(tx pgx.Tx) execer                         { return pgExec{q: tx, rb: a.rb} }

// openPostgres connects a pool. Without pool_max_conns in the URL the pool
// holds enough connections for the workers, River's producers and
// maintenance, and the API's reads.
func openPostgres(ctx context.Context, url string, workers int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = int32(max(10, 2*workers+6))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL %s: %w", redactURL(url), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL %s: %w", redactURL(url), err)
	}
	return pool, nil
}

// migratePostgres brings River's schema and the app's table up to date
// while holding a session advisory lock, so that nodes starting at the same
// moment migrate one after another instead of racing. (River's migrations
// cannot share one transaction: a later one uses an enum value an earlier
// one adds.)
func migratePostgres(ctx context.Context, pool *pgxpool.Pool) error {
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
	for _, stmt := range append(pgSchema, commonSchema...) {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("app schema: %w", err)
		}
	}
	return nil
}

// newPostgresDatabase opens, migrates and wraps a PostgreSQL database.
func newPostgresDatabase(ctx context.Context, url string, workers int) (*database, *pgxpool.Pool, *rebinder, error) {
	pool, err := openPostgres(ctx, url, workers)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := migratePostgres(ctx, pool); err != nil {
		pool.Close()
		return nil, nil, nil, err
	}
	rb := &rebinder{}
	ex := pgExec{q: pool, rb: rb}
	return &database{
		kind: "postgres", read: ex, write: ex,
		ping:  pool.Ping,
		close: func() error { pool.Close(); return nil },
	}, pool, rb, nil
}

// newPostgresQueue builds the River client over the pool.
func newPostgresQueue(pool *pgxpool.Pool, rb *rebinder, cfg *river.Config) (queue, error) {
	client, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &riverQueue[pgx.Tx]{client: client, tx: pgTx{pool: pool, rb: rb}}, nil
}

// redactURL hides a password in a database URL for messages.
func redactURL(s string) string {
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
