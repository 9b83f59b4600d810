package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/autocut-dev/autocut/dsp"
)

// Manager is the job layer: it implements Service over River, an app-owned
// jobs table and blob storage.
type Manager struct {
	cfg      Config
	log      *slog.Logger
	engine   Engine
	db       *sqliteDB
	getOnce  sync.Once
	getStmt  *sql.Stmt // GET job, prepared on first use
	q        queue
	bucket   *blob.Bucket
	mediaDir string // the fileblob root, so workers read originals in place
	scratch  string // temporary files of running work
	transSem chan struct{}
	cache    *analysisCache
	metrics  *metrics

	mu      sync.Mutex
	started bool
	stopped bool
}

var _ Service = (*Manager)(nil)

// Open prepares the data directory: it migrates the database, opens blob
// storage and builds the queue. Call Start to run workers.
func Open(ctx context.Context, cfg Config) (*Manager, error) {
	cfg = cfg.withDefaults()
	m := &Manager{
		cfg:      cfg,
		log:      cfg.Logger.With("component", "jobs"),
		engine:   cfg.Engine,
		mediaDir: filepath.Join(cfg.DataDir, "media"),
		scratch:  filepath.Join(cfg.DataDir, "scratch"),
		transSem: make(chan struct{}, 1),
		cache:    newAnalysisCache(8),
		metrics:  newMetrics(),
	}
	if m.engine == nil {
		m.engine = DefaultEngine()
	}
	for _, d := range []string{cfg.DataDir, m.mediaDir, m.scratch} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
	}
	// Scratch files of a previous process are garbage.
	if ents, err := os.ReadDir(m.scratch); err == nil {
		for _, e := range ents {
			_ = os.RemoveAll(filepath.Join(m.scratch, e.Name()))
		}
	}
	db, err := openSQLite(ctx, filepath.Join(cfg.DataDir, "autocut.db"))
	if err != nil {
		return nil, err
	}
	m.db = db
	if err := migrateSQLite(ctx, db.write); err != nil {
		db.Close()
		return nil, err
	}
	bucket, err := fileblob.OpenBucket(m.mediaDir, &fileblob.Options{CreateDir: true, NoTempDir: true})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open media storage %s: %w", m.mediaDir, err)
	}
	m.bucket = bucket

	workers := river.NewWorkers()
	river.AddWorker(workers, &processWorker{m: m})
	river.AddWorker(workers, &retentionWorker{m: m})
	rcfg := &river.Config{
		Logger: cfg.Logger.With("component", "river"),
		Queues: map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: cfg.Workers},
			queueMaintenance:   {MaxWorkers: 1},
		},
		Workers:           workers,
		FetchPollInterval: cfg.PollInterval,
		FetchCooldown:     min(50*time.Millisecond, cfg.PollInterval),
		// Renders of 3-hour videos take long: the process worker sets its own
		// timeout; River's rescuer must wait longer than that before it
		// retries a job it thinks is stuck. After a crash, Start re-enqueues
		// interrupted jobs itself instead of waiting for the rescuer.
		JobTimeout:           10 * time.Minute,
		RescueStuckJobsAfter: processTimeout + time.Hour,
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(
			river.PeriodicInterval(cfg.RetentionInterval),
			func() (river.JobArgs, *river.InsertOpts) {
				return retentionArgs{}, &river.InsertOpts{Queue: queueMaintenance}
			},
			&river.PeriodicJobOpts{RunOnStart: true},
		)},
	}
	q, err := newSQLiteQueue(db.write, rcfg)
	if err != nil {
		bucket.Close()
		db.Close()
		return nil, err
	}
	m.q = q
	return m, nil
}

const queueMaintenance = "maintenance"

// Start re-enqueues jobs a previous process left unfinished and starts the workers.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return errors.New("jobs: manager already started")
	}
	if err := m.recover(ctx); err != nil {
		return err
	}
	if err := m.q.start(ctx); err != nil {
		return fmt.Errorf("start workers: %w", err)
	}
	m.started = true
	return nil
}

// recover re-enqueues app jobs in a non-terminal state whose River job is
// gone, finished, or was running in a process that died. It assumes this
// process is the only worker of the database (true for SQLite); a
// multi-node PostgreSQL deployment relies on River's rescuer instead.
func (m *Manager) recover(ctx context.Context) error {
	rows, err := m.db.read.QueryContext(ctx, `SELECT id, gen, river_id FROM autocut_job WHERE status IN (?, ?, ?)`,
		StatusAnalyzing, StatusTranscribing, StatusRendering)
	if err != nil {
		return fmt.Errorf("recover jobs: %w", err)
	}
	type pending struct {
		id           string
		gen, riverID int64
	}
	var todo []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.id, &p.gen, &p.riverID); err != nil {
			rows.Close()
			return fmt.Errorf("recover jobs: %w", err)
		}
		todo = append(todo, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("recover jobs: %w", err)
	}
	for _, p := range todo {
		st, found, err := m.q.state(ctx, p.riverID)
		if err != nil {
			return fmt.Errorf("recover job %s: %w", p.id, err)
		}
		switch {
		case found && (st == rivertype.JobStateAvailable || st == rivertype.JobStateScheduled ||
			st == rivertype.JobStateRetryable || st == rivertype.JobStatePending):
			continue // River will run it
		}
		err = m.q.inTx(ctx, func(ex execer, enqueue enqueueFunc) error {
			rid, err := enqueue(ctx, processArgs{JobID: p.id, Gen: p.gen + 1}, processInsertOpts())
			if err != nil {
				return err
			}
			res, err := ex.ExecContext(ctx, `UPDATE autocut_job SET gen = ?, river_id = ?, progress = 0 WHERE id = ? AND gen = ?`,
				p.gen+1, rid, p.id, p.gen)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errStale
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStale) {
			return fmt.Errorf("recover job %s: %w", p.id, err)
		}
		m.log.Info("re-enqueued interrupted job", "job", p.id, "riverState", st, "riverFound", found)
	}
	return nil
}

// Stop stops the workers, waiting for running work until ctx is done and
// cancelling it then (cancelled jobs run again after the next Start), and
// closes storage.
func (m *Manager) Stop(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return nil
	}
	m.stopped = true
	var errs []error
	if m.started {
		if err := m.q.stop(ctx); err != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			if err := m.q.stopAndCancel(cctx); err != nil {
				errs = append(errs, fmt.Errorf("stop workers: %w", err))
			}
			cancel()
		}
	}
	if err := m.bucket.Close(); err != nil {
		errs = append(errs, err)
	}
	if m.getStmt != nil {
		m.getStmt.Close()
	}
	if err := m.db.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Ready reports whether the database and media storage answer.
func (m *Manager) Ready(ctx context.Context) error {
	m.mu.Lock()
	started, stopped := m.started, m.stopped
	m.mu.Unlock()
	if stopped {
		return errors.New("job manager stopped")
	}
	if !started {
		return errors.New("job workers not started")
	}
	if err := m.db.read.PingContext(ctx); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	var one int
	if err := m.db.read.QueryRowContext(ctx, `SELECT 1 FROM autocut_job LIMIT 1`).Scan(&one); err != nil && !isNoRows(err) {
		return fmt.Errorf("database: %w", err)
	}
	ok, err := m.bucket.IsAccessible(ctx)
	if err != nil || !ok {
		return fmt.Errorf("media storage not accessible: %v", err)
	}
	return nil
}

// Collectors returns the job layer's metrics: jobs by state, phase
// durations and finished jobs by outcome.
func (m *Manager) Collectors() []prometheus.Collector {
	return []prometheus.Collector{&stateCollector{m: m}, m.metrics.phase, m.metrics.finished}
}

// localPath returns a path on disk holding the blob key; release removes a
// scratch copy (a no-op for fileblob, whose files are read in place).
func (m *Manager) localPath(ctx context.Context, key, dir string) (path string, release func(), err error) {
	p := filepath.Join(m.mediaDir, filepath.FromSlash(key))
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p, func() {}, nil
	}
	r, err := m.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return "", nil, fmt.Errorf("open %s: %w", key, err)
	}
	defer r.Close()
	f, err := os.CreateTemp(dir, "in-*")
	if err != nil {
		return "", nil, fmt.Errorf("scratch copy: %w", err)
	}
	release = func() { _ = os.Remove(f.Name()) }
	if _, err := f.ReadFrom(r); err != nil {
		f.Close()
		release()
		return "", nil, fmt.Errorf("scratch copy of %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		release()
		return "", nil, err
	}
	return f.Name(), release, nil
}

// analysis loads a stored analysis (cached: a few recent ones stay decoded).
func (m *Manager) analysis(ctx context.Context, key string) (*dsp.Analysis, error) {
	if a := m.cache.get(key); a != nil {
		return a, nil
	}
	r, err := m.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, fmt.Errorf("open stored analysis: %w", err)
	}
	defer r.Close()
	a, err := decodeAnalysis(r)
	if err != nil {
		return nil, err
	}
	m.cache.put(key, a)
	return a, nil
}

// analysisCache is a tiny LRU of decoded analyses.
type analysisCache struct {
	mu   sync.Mutex
	max  int
	keys []string
	m    map[string]*dsp.Analysis
}

func newAnalysisCache(n int) *analysisCache {
	return &analysisCache{max: n, m: make(map[string]*dsp.Analysis)}
}

func (c *analysisCache) get(k string) *dsp.Analysis {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.m[k]
	if a != nil {
		c.touch(k)
	}
	return a
}

func (c *analysisCache) touch(k string) {
	for i, x := range c.keys {
		if x == k {
			c.keys = append(c.keys[:i], c.keys[i+1:]...)
			break
		}
	}
	c.keys = append(c.keys, k)
}

func (c *analysisCache) put(k string, a *dsp.Analysis) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = a
	c.touch(k)
	for len(c.keys) > c.max {
		delete(c.m, c.keys[0])
		c.keys = c.keys[1:]
	}
}

func (c *analysisCache) drop(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		delete(c.m, k)
		for i, x := range c.keys {
			if x == k {
				c.keys = append(c.keys[:i], c.keys[i+1:]...)
				break
			}
		}
	}
}
