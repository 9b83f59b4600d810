package jobs

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/autocut-dev/autocut/jobs/store"
	"github.com/autocut-dev/autocut/transcribe"
)

// Config configures a Manager. Zero values take the documented defaults.
type Config struct {
	DataDir           string                 // default ./autocut-data; SQLite db and media under it
	Workers           int                    // analysis/render concurrency, default runtime.NumCPU()
	MaxInputBytes     int64                  // default 4 GB (4,000,000,000 bytes)
	MaxDuration       time.Duration          // default 3h
	OriginalsTTL      time.Duration          // default 24h
	OutputsTTL        time.Duration          // default 7*24h
	RetentionInterval time.Duration          // retention sweep period, default 10 min
	OrphanGrace       time.Duration          // age of an unaccounted-for object before the orphan sweep removes it, default 1h
	OrphanInterval    time.Duration          // orphan sweep period, default 15 min
	Transcriber       transcribe.Transcriber // nil: transcription unavailable
	Logger            *slog.Logger           // default slog.Default()

	// Engine does the media work; nil uses the dsp, plan and transcode packages.
	Engine Engine
	// PollInterval is how often a running job checks for cancellation and how
	// often River polls for work; default 250ms.
	PollInterval time.Duration

	// Store is the jobs database (required): sqlitestore for one process,
	// pgstore for a cluster. The Manager closes it.
	Store store.Store
	// Storage is where media lives: "" or file:///dir (default
	// DataDir/media), or any gocloud.dev/blob URL whose driver the program
	// links, e.g. s3://bucket?endpoint=...&region=...&use_path_style=true
	// with a blank import of gocloud.dev/blob/s3blob.
	Storage string
	// Role is what this node does: RoleAll (default), RoleAPI (answers the
	// API and enqueues) or RoleWorker (only works jobs).
	Role Role
	// LeaseTTL is how long a running job stays claimed by a worker that
	// stopped renewing its claim (killed, partitioned) before another worker
	// takes it over; default 30s. Workers renew every LeaseTTL/3.
	LeaseTTL time.Duration
	// PartSize is the multipart part size of uploads to object storage;
	// default 8 MiB (S3 needs at least 5 MiB; 10,000 parts of 8 MiB hold
	// 78 GiB). An upload holds about three parts in memory.
	PartSize int
	// NodeID names this process in leases and logs; default host-pid-random.
	NodeID string

	// Faults the tests inject (package jobs only): a directory's free
	// space (nil: the disk's), an error each write of a key returns (nil:
	// none, or when it returns nil).
	freeSpace  func(dir string) (uint64, error)
	writeFault func(key string) error
}

// Role is what a node of a cluster does.
type Role string

// Roles.
const (
	RoleAll    Role = "all"
	RoleAPI    Role = "api"
	RoleWorker Role = "worker"
)

// ParseRole checks a --role value ("" is RoleAll).
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case "":
		return RoleAll, nil
	case RoleAll, RoleAPI, RoleWorker:
		return r, nil
	}
	return "", fmt.Errorf("role %q is not one of all, api, worker", s)
}

// works reports whether the node runs jobs.
func (r Role) works() bool { return r != RoleAPI }

// Defaults.
const (
	DefaultMaxInputBytes     = 4_000_000_000 // 4 GB, the contract's limit, in SI units
	DefaultMaxDuration       = 3 * time.Hour
	DefaultOriginalsTTL      = 24 * time.Hour
	DefaultOutputsTTL        = 7 * 24 * time.Hour
	DefaultRetentionInterval = 10 * time.Minute
	DefaultLeaseTTL          = 30 * time.Second
	DefaultPartSize          = 8 << 20
)

func (c Config) withDefaults() Config {
	if c.DataDir == "" {
		c.DataDir = "autocut-data"
	}
	c.DataDir = filepath.Clean(c.DataDir)
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.MaxInputBytes <= 0 {
		c.MaxInputBytes = DefaultMaxInputBytes
	}
	if c.MaxDuration <= 0 {
		c.MaxDuration = DefaultMaxDuration
	}
	if c.OriginalsTTL <= 0 {
		c.OriginalsTTL = DefaultOriginalsTTL
	}
	if c.OutputsTTL <= 0 {
		c.OutputsTTL = DefaultOutputsTTL
	}
	if c.RetentionInterval <= 0 {
		c.RetentionInterval = DefaultRetentionInterval
	}
	if c.OrphanGrace <= 0 {
		c.OrphanGrace = DefaultOrphanGrace
	}
	if c.OrphanInterval <= 0 {
		c.OrphanInterval = DefaultOrphanInterval
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 250 * time.Millisecond
	}
	if c.Role == "" {
		c.Role = RoleAll
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
	if c.PartSize <= 0 {
		c.PartSize = DefaultPartSize
	}
	if c.NodeID == "" {
		host, _ := os.Hostname()
		var b [3]byte
		_, _ = rand.Read(b[:])
		c.NodeID = fmt.Sprintf("%s-%d-%x", host, os.Getpid(), b)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
