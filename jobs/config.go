package jobs

import (
	"log/slog"
	"path/filepath"
	"runtime"
	"time"

	"github.com/autocut-dev/autocut/transcribe"
)

// Config configures a Manager. Zero values take the documented defaults.
type Config struct {
	DataDir           string                 // default ./autocut-data; SQLite db and media under it
	Workers           int                    // analysis/render concurrency, default runtime.NumCPU()
	MaxInputBytes     int64                  // default 4 GiB
	MaxDuration       time.Duration          // default 3h
	OriginalsTTL      time.Duration          // default 24h
	OutputsTTL        time.Duration          // default 7*24h
	RetentionInterval time.Duration          // retention sweep period, default 10 min
	Transcriber       transcribe.Transcriber // nil: transcription unavailable
	Logger            *slog.Logger           // default slog.Default()

	// Engine does the media work; nil uses the dsp, plan and transcode packages.
	Engine Engine
	// PollInterval is how often a running job checks for cancellation and how
	// often River polls for work; default 250ms.
	PollInterval time.Duration
}

// Defaults.
const (
	DefaultMaxInputBytes     = int64(4) << 30
	DefaultMaxDuration       = 3 * time.Hour
	DefaultOriginalsTTL      = 24 * time.Hour
	DefaultOutputsTTL        = 7 * 24 * time.Hour
	DefaultRetentionInterval = 10 * time.Minute
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
	if c.PollInterval <= 0 {
		c.PollInterval = 250 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
