package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/jobs/store"
)

// Manager is the job layer: it implements Service over River, an app-owned
// jobs table and blob storage.
type Manager struct {
	cfg      Config
	log      *slog.Logger
	engine   Engine
	db       *database
	q        store.Queue
	bucket   *blob.Bucket
	mediaDir string // the fileblob root, so workers read originals in place ("" for object storage)
	scratch  string // temporary files of running work
	transSem chan struct{}
	cache    *analysisCache
	metrics  *metrics

	stopRescue func() // ends the rescue loop

	// Faults tests inject (Config's): the free space of a directory (nil:
	// the disk's), and an error every write of a key returns (nil: none).
	freeSpace  func(dir string) (uint64, error)
	writeFault func(key string) error

	mu       sync.Mutex
	started  bool
	stopped  bool
	stopDone chan struct{} // closed when Stop has returned
}

var _ Service = (*Manager)(nil)

// Open prepares the data directory, opens blob storage and builds the
// queue over cfg.Store (required, migrated by its driver). The Manager owns
// the store from then on: Stop closes it, and so does a failing Open.
// Call Start to run workers.
func Open(ctx context.Context, cfg Config) (m *Manager, err error) {
	if cfg.Store == nil {
		return nil, errors.New("jobs: Config.Store is nil: open a database with sqlitestore.Open or pgstore.Open")
	}
	defer func() {
		if err != nil {
			cfg.Store.Close()
		}
	}()
	cfg = cfg.withDefaults()
	m = &Manager{
		cfg:      cfg,
		log:      cfg.Logger.With("component", "jobs", "node", cfg.NodeID),
		engine:   cfg.Engine,
		scratch:  filepath.Join(cfg.DataDir, "scratch"),
		transSem: make(chan struct{}, 1),
		cache:    newAnalysisCache(8),
		metrics:  newMetrics(),

		freeSpace:  cfg.freeSpace,
		writeFault: cfg.writeFault,
	}
	if m.engine == nil {
		m.engine = DefaultEngine()
	}
	for _, d := range []string{cfg.DataDir, m.scratch} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
	}
	// Scratch files of a previous process are garbage (each node has its
	// own data directory).
	if ents, err := os.ReadDir(m.scratch); err == nil {
		for _, e := range ents {
			_ = os.RemoveAll(filepath.Join(m.scratch, e.Name()))
		}
	}
	bucket, mediaDir, err := openStorage(ctx, cfg)
	if err != nil {
		return nil, err
	}
	m.bucket, m.mediaDir = bucket, mediaDir
	if mediaDir == "" && cfg.PartSize < 5<<20 {
		bucket.Close()
		return nil, fmt.Errorf("part size %d: object storage needs parts of at least 5 MiB", cfg.PartSize)
	}
	if mediaDir != "" && cfg.Store.Shared() {
		m.log.Warn("media on a local directory with a shared database: every node must see the same directory (a network file system), or use --storage s3://...", "dir", mediaDir)
	}

	workers := river.NewWorkers()
	river.AddWorker(workers, &processWorker{m: m})
	river.AddWorker(workers, &retentionWorker{m: m})
	river.AddWorker(workers, &orphanWorker{m: m})
	rcfg := &river.Config{
		ID:                safeClientID(cfg.NodeID),
		Logger:            cfg.Logger.With("component", "river", "node", cfg.NodeID),
		Workers:           workers,
		FetchPollInterval: cfg.PollInterval,
		FetchCooldown:     min(50*time.Millisecond, cfg.PollInterval),
		JobTimeout:        10 * time.Minute,
		// Renders of 3-hour videos take long: the process worker sets its
		// own timeout, and River's rescuer waits longer than that. A run
		// whose worker died is taken over much sooner through its lease
		// (lease.go), which River knows nothing of.
		RescueStuckJobsAfter: processTimeout + time.Hour,
	}
	if cfg.Role.works() {
		rcfg.Queues = map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: cfg.Workers},
			queueMaintenance:   {MaxWorkers: 1},
		}
		// Periodic jobs are enqueued by River's elected leader only: each
		// runs once per cluster, on whichever worker fetches it.
		rcfg.PeriodicJobs = []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(cfg.RetentionInterval),
				func() (river.JobArgs, *river.InsertOpts) {
					return retentionArgs{}, &river.InsertOpts{Queue: queueMaintenance}
				}, &river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(cfg.OrphanInterval),
				func() (river.JobArgs, *river.InsertOpts) {
					return orphanArgs{}, &river.InsertOpts{Queue: queueMaintenance}
				}, &river.PeriodicJobOpts{RunOnStart: true}),
		}
	}
	if cfg.Role != RoleAll && !cfg.Store.Shared() {
		bucket.Close()
		return nil, fmt.Errorf("role %s needs a shared PostgreSQL database (--database postgres://...): a SQLite file serves one process", cfg.Role)
	}
	if m.q, err = cfg.Store.NewQueue(rcfg); err != nil {
		bucket.Close()
		return nil, err
	}
	m.db = newDatabase(ctx, cfg.Store)
	return m, nil
}

// safeClientID makes a River client ID from a node id (River allows
// letters, digits, dashes and underscores).
func safeClientID(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// openStorage opens the media bucket: fileblob for "" and file:// (the
// directory is returned so that workers read originals in place), any
// gocloud URL (s3://...) otherwise.
func openStorage(ctx context.Context, cfg Config) (*blob.Bucket, string, error) {
	dir := ""
	switch {
	case cfg.Storage == "":
		dir = filepath.Join(cfg.DataDir, "media")
	case strings.HasPrefix(cfg.Storage, "file://"):
		u, err := url.Parse(cfg.Storage)
		if err != nil || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
			return nil, "", fmt.Errorf("storage %q: want file:///absolute/dir", cfg.Storage)
		}
		dir = filepath.FromSlash(u.Path)
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, "", fmt.Errorf("media storage: %w", err)
		}
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{CreateDir: true, NoTempDir: true})
		if err != nil {
			return nil, "", fmt.Errorf("open media storage %s: %w", dir, err)
		}
		return b, dir, nil
	}
	b, err := blob.OpenBucket(ctx, cfg.Storage)
	if err != nil {
		return nil, "", fmt.Errorf("open media storage %s: %w", cfg.Storage, err)
	}
	return b, "", nil
}

const queueMaintenance = "maintenance"

// Start starts the workers. On a single-node SQLite server it first
// re-enqueues the runs a previous process left unfinished; in a cluster
// rescue passes take over runs whose lease expired (lease.go). The end of
// ctx does not cancel running work: Stop does, once its own ctx ends.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return errors.New("jobs: manager already started")
	}
	if !m.db.st.Shared() {
		if err := m.rescue(ctx, true); err != nil {
			return err
		}
	}
	// The database's identity is written, and the media records it, from
	// the start: should the database be lost later, the orphan sweep
	// sees that the media is not the new database's.
	ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
	if why, partialOnly, err := m.sweepRefusal(ictx); err != nil {
		m.log.Warn("database identity not checked", "err", err)
	} else if why != "" {
		m.log.Error("the orphan sweep will delete no finished file", "why", why, "unfinished_writes_only", partialOnly)
	}
	cancel()
	if m.cfg.Role.works() {
		// River cancels running work when its Start context ends; the end
		// of ctx (SIGTERM) must leave that to Stop, which lets it finish.
		if err := m.q.Start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("start workers: %w", err)
		}
		rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() { defer close(done); m.rescueLoop(rctx) }()
		m.stopRescue = func() { cancel(); <-done }
	}
	m.started = true
	return nil
}

// Stop stops the workers, waiting for running work until ctx is done and
// cancelling it then (cancelled jobs run again after the next Start), and
// closes storage. A call while another stops the manager waits for it (or
// for ctx) and returns nil; a call after it returns nil.
func (m *Manager) Stop(ctx context.Context) error {
	// The lock is not held while the work stops: a run that ends meanwhile
	// asks Ready (a failed run checks for an outage), which takes it.
	m.mu.Lock()
	if m.stopped {
		done := m.stopDone
		m.mu.Unlock()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	m.stopped, m.stopDone = true, make(chan struct{})
	started, stopRescue := m.started, m.stopRescue
	m.mu.Unlock()
	defer close(m.stopDone)
	var errs []error
	if stopRescue != nil {
		stopRescue()
	}
	if started && m.cfg.Role.works() {
		if err := m.q.Stop(ctx); err != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			if err := m.q.StopAndCancel(cctx); err != nil {
				errs = append(errs, fmt.Errorf("stop workers: %w", err))
			}
			cancel()
		}
	}
	if err := m.bucket.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := m.db.close(); err != nil {
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
	if err := m.db.st.Ping(ctx); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	var one int
	if err := m.db.read.QueryRow(ctx, `SELECT 1 FROM autocut_job LIMIT 1`).Scan(&one); err != nil && !isNoRows(err) {
		return fmt.Errorf("database: %w", err)
	}
	ok, err := m.bucket.IsAccessible(ctx)
	if err != nil {
		return fmt.Errorf("media storage not accessible: %w", err)
	}
	if !ok {
		return errors.New("media storage not accessible: the bucket (or directory) does not exist")
	}
	return m.diskFull()
}

// minFreeBytes is the free space under which a local disk the server
// writes (the data directory: scratch files, SQLite; a media directory)
// counts as full.
const minFreeBytes = 64 << 20

// diskFull returns apiv1.ErrInsufficientStorage, naming the directory,
// when a local disk the server writes has less than minFreeBytes free.
func (m *Manager) diskFull() error {
	free := m.freeSpace
	if free == nil {
		free = freeBytes
	}
	for _, dir := range []string{m.scratch, m.mediaDir} {
		if dir == "" {
			continue
		}
		n, err := free(dir)
		if err == nil && n < minFreeBytes {
			return fmt.Errorf("%w: the disk of %s is full (%d bytes free)", apiv1.ErrInsufficientStorage, dir, n)
		}
	}
	return nil
}

// Collectors returns the job layer's metrics: jobs by state, phase
// durations and finished jobs by outcome.
func (m *Manager) Collectors() []prometheus.Collector {
	return []prometheus.Collector{&stateCollector{m: m}, m.metrics.phase, m.metrics.finished,
		m.metrics.maintenance, m.metrics.rescued}
}

// localPath returns a path on disk holding the blob key; release removes a
// scratch copy (a no-op for fileblob, whose files are read in place).
func (m *Manager) localPath(ctx context.Context, key, dir string) (path string, release func(), err error) {
	if m.mediaDir != "" {
		p := filepath.Join(m.mediaDir, filepath.FromSlash(key))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, func() {}, nil
		}
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

// writer is w, failing with the writeFault tests inject for key.
func (m *Manager) writer(key string, w io.Writer) io.Writer {
	if m.writeFault == nil {
		return w
	}
	return faultWriter{w: w, err: func() error { return m.writeFault(key) }}
}

// faultWriter fails a write with err() when it is not nil.
type faultWriter struct {
	w   io.Writer
	err func() error
}

func (f faultWriter) Write(p []byte) (int, error) {
	if err := f.err(); err != nil {
		return 0, err
	}
	return f.w.Write(p)
}

// writerOptions sizes blob writes: on object storage an upload streams
// through as a multipart upload of PartSize parts, two in flight, so that
// an API node holds about three parts per upload and never the whole file.
func (m *Manager) writerOptions() *blob.WriterOptions {
	if m.mediaDir != "" {
		return &blob.WriterOptions{BufferSize: 1 << 20}
	}
	return &blob.WriterOptions{BufferSize: m.cfg.PartSize, MaxConcurrency: 2}
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
	a := new(dsp.Analysis)
	if _, err := a.ReadFrom(r); err != nil {
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
