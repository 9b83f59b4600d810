package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autocut-dev/autocut/httpapi"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/jobs/store/pgstore"
	"github.com/autocut-dev/autocut/transcribe"
	"github.com/autocut-dev/autocut/web"
)

// serveFlags are the flags of autocut serve.
type serveFlags struct {
	addr, data, baseURL, keys string
	whisperModel, whisperCLI  string
	engines                   string // transcription engines in order
	workers                   int
	allowPrivate              bool
	maxUpload                 int64
	originalsTTL, outputsTTL  time.Duration
	retention                 time.Duration
	database, storage, role   string
	leaseTTL                  time.Duration
	partSize                  int
	uploadIdle, fetchTimeout  time.Duration
	fetchMinRate              int64
	uploadsPerKey             int
	urlPorts                  string
	orphanGrace, orphanEvery  time.Duration
}

// runServe runs the v1 HTTP API until ctx is cancelled (SIGINT/SIGTERM),
// then shuts down gracefully: it stops accepting, lets requests finish for
// up to 30 s and stops the job workers (interrupted jobs resume on restart).
func runServe(ctx context.Context, e env) error {
	var f serveFlags
	fs := newFlags("serve", "autocut serve [flags]",
		"Runs the v1 HTTP API server (and its job workers) until SIGINT or SIGTERM.")
	fs.StringVar(&f.addr, "addr", ":8080", "listen `address`")
	fs.StringVar(&f.whisperModel, "whisper-model", "", "whisper.cpp model `file` for transcription (also env AUTOCUT_WHISPER_MODEL)")
	fs.StringVar(&f.whisperCLI, "whisper-cli", "", "whisper-cli `binary` (also env AUTOCUT_WHISPER_CLI)")
	fs.StringVar(&f.engines, "transcribe-engines", "", "transcription `engines` to try in order: whisper,pocketsphinx,acoustic (default whisper,pocketsphinx)")
	fs.StringVar(&f.data, "data", "autocut-data", "data `directory` (database, media, generated key hash)")
	fs.StringVar(&f.baseURL, "base-url", "", "absolute base `URL` for links in responses (default: from each request's Host)")
	fs.StringVar(&f.keys, "keys", "", "API keys `file`, one key:plan per line (plan pro or free); also env AUTOCUT_API_KEYS=\"k1:pro,k2:free\"")
	fs.IntVar(&f.workers, "workers", 0, fmt.Sprintf("analysis/render concurrency, 1 to %d (default: number of cores)", maxWorkers))
	fs.BoolVar(&f.allowPrivate, "allow-private-urls", false, "let URL jobs download from private/loopback addresses (trusted networks and tests only)")
	fs.Int64Var(&f.maxUpload, "max-upload-bytes", jobs.DefaultMaxInputBytes, "input size limit in `bytes`")
	fs.DurationVar(&f.originalsTTL, "originals-ttl", jobs.DefaultOriginalsTTL, "how long originals are kept")
	fs.DurationVar(&f.outputsTTL, "outputs-ttl", jobs.DefaultOutputsTTL, "how long rendered files are kept")
	fs.DurationVar(&f.retention, "retention-interval", jobs.DefaultRetentionInterval, "how often expired files are deleted")
	fs.StringVar(&f.database, "database", os.Getenv("AUTOCUT_DATABASE"), "SQLite `file` (default DATA/autocut.db) or postgres://user:pass@host/db shared by a cluster; also env AUTOCUT_DATABASE")
	fs.StringVar(&f.storage, "storage", os.Getenv("AUTOCUT_STORAGE"), "media `storage`: file:///dir (default DATA/media) or s3://bucket?endpoint=URL&region=R&use_path_style=true (credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY); also env AUTOCUT_STORAGE")
	fs.StringVar(&f.role, "role", envOr("AUTOCUT_ROLE", "all"), "`role`: all, api (answers HTTP and enqueues) or worker (only works jobs; serves /healthz, /readyz and /metrics); also env AUTOCUT_ROLE")
	fs.DurationVar(&f.leaseTTL, "lease-ttl", jobs.DefaultLeaseTTL, fmt.Sprintf("how long a killed worker's running job waits before another worker takes it over (at least %s)", minLeaseTTL))
	fs.IntVar(&f.partSize, "s3-part-size", jobs.DefaultPartSize, "multipart part size of uploads to object storage, in `bytes` (5 MiB to 5 GiB)")
	fs.DurationVar(&f.uploadIdle, "upload-idle-timeout", httpapi.DefaultUploadIdleTimeout, "close an upload whose body sends nothing for this long (408; its partial file is removed)")
	fs.IntVar(&f.uploadsPerKey, "max-uploads-per-key", httpapi.DefaultMaxUploadsPerKey, "uploads (both forms) one API key may run at once on this node; more answer 429 (0: no cap)")
	fs.DurationVar(&f.fetchTimeout, "fetch-timeout", httpapi.DefaultFetchTimeout, "longest URL download (connection, headers and body)")
	fs.Int64Var(&f.fetchMinRate, "fetch-min-rate", httpapi.DefaultFetchMinRate, fmt.Sprintf("lowest average rate of a URL download in `bytes/s`, enforced after %s (0: none)", httpapi.DefaultFetchRateGrace))
	fs.StringVar(&f.urlPorts, "url-ports", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(httpapi.DefaultURLPorts())), ","), "[]"), "`ports` URL jobs may download from (comma-separated)")
	fs.DurationVar(&f.orphanGrace, "orphan-grace", jobs.DefaultOrphanGrace, "age at which a stored file no job accounts for (a killed upload's temp file, a deleted job's analysis) is removed")
	fs.DurationVar(&f.orphanEvery, "orphan-interval", jobs.DefaultOrphanInterval, "how often the orphan sweep runs (once per cluster)")
	pos, err := fs.parse(e.args, e.stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return flagError{fmt.Sprintf("unexpected argument %q (autocut serve takes flags only)", pos[0])}
	}
	role, err := jobs.ParseRole(f.role)
	if err != nil {
		return usageError{err.Error()}
	}
	ports, err := parsePorts(f.urlPorts)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := f.check(fs); err != nil {
		return err
	}
	// Settings that cannot work are refused before anything is made (the
	// data directory, a generated key).
	if err := f.checkDatabase(role); err != nil {
		return err
	}
	if role != jobs.RoleWorker && pgstore.IsURL(f.database) && os.Getenv("AUTOCUT_API_KEYS") == "" && f.keys == "" {
		return usageError{"with a shared --database every API node needs the same keys: set --keys FILE or AUTOCUT_API_KEYS"}
	}
	// The data directory is made first: the keys, the SQLite database and
	// the media all live there, and any of them may be the first to open.
	if err := os.MkdirAll(f.data, 0o750); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if role == jobs.RoleWorker {
		return runWorker(ctx, f, log)
	}

	keys, generated, err := httpapi.LoadKeys(os.Getenv("AUTOCUT_API_KEYS"), f.keys, f.data)
	if err != nil {
		return err
	}
	if generated != "" {
		fmt.Fprintf(e.stderr, "autocut: no API keys configured; created a Pro key (shown only now, its hash is in %s):\n\n    %s\n\n",
			filepath.Join(f.data, httpapi.KeysFileName), generated)
	}

	transcriber := f.transcriber(ctx, log)
	mgr, err := f.openJobs(ctx, role, transcriber, log)
	if err != nil {
		return fmt.Errorf("open jobs: %w", err)
	}
	if err := mgr.Start(ctx); err != nil {
		_ = mgr.Stop(context.WithoutCancel(ctx))
		return fmt.Errorf("start jobs: %w", err)
	}
	stopMgr := func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return mgr.Stop(sctx)
	}

	h := httpapi.New(httpapi.Config{
		Service:           mgr,
		Keys:              keys,
		BaseURL:           f.baseURL,
		MaxUploadBytes:    f.maxUpload,
		AllowPrivateURLs:  f.allowPrivate,
		URLPorts:          ports,
		FetchTimeout:      f.fetchTimeout,
		FetchMinRate:      orNone(f.fetchMinRate),
		UploadIdleTimeout: f.uploadIdle,
		MaxUploadsPerKey:  int(orNone(int64(f.uploadsPerKey))),
		Web:               web.Handler(),
		Logger:            log,
		Collectors:        mgr.Collectors(),
		Ready:             mgr.Ready,
	})
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		_ = stopMgr()
		return fmt.Errorf("listen: %w", err)
	}
	// No ReadTimeout/WriteTimeout: they would cut 4 GB uploads and
	// downloads. Slow-header clients are bounded by ReadHeaderTimeout, idle
	// keep-alive connections by IdleTimeout.
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		// OPTIONS * goes to the handler, which answers it as OPTIONS on
		// any path (405 method_not_allowed as JSON): net/http would answer
		// it itself, 200 with an empty body.
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:                  func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	workers := f.workers
	switch {
	case role == jobs.RoleAPI:
		workers = 0 // it runs no jobs
	case workers <= 0:
		workers = runtime.NumCPU() // the job layer's default
	}
	log.Info("listening", "addr", ln.Addr().String(), "role", role, "data", f.data, "workers", workers, "allow_private_urls", f.allowPrivate)
	errc := make(chan error, 1)
	// JSONErrorListener: net/http's own 431/400 answers become JSON too.
	go func() { errc <- srv.Serve(httpapi.JSONErrorListener(ln)) }()
	select {
	case err := <-errc:
		_ = stopMgr()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err2 := stopMgr(); err == nil {
		err = err2
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// Bounds of the serve flags: more workers than this is a typo, not a
// machine; a lease shorter than this cannot be renewed in time (docs/deploy.md).
const (
	maxWorkers  = 1024
	minLeaseTTL = time.Second
	minPartSize = 5 << 20 // S3's smallest part (but the last)
	maxPartSize = 5 << 30 // S3's largest part
)

// check refuses the values no server can run with (exit 2), naming the
// flag as the user typed it, as the other commands do.
func (f *serveFlags) check(fs *cmdFlags) error {
	given := func(name string) string { return fs.Lookup(name).Value.String() }
	for _, c := range []struct {
		name string
		bad  bool
		want string
	}{
		{"workers", f.workers < 0 || f.workers > maxWorkers, fmt.Sprintf("allowed 1 to %d (0: the number of cores)", maxWorkers)},
		{"max-upload-bytes", f.maxUpload <= 0, "must be a positive number of bytes"},
		{"originals-ttl", f.originalsTTL <= 0, "must be positive"},
		{"outputs-ttl", f.outputsTTL <= 0, "must be positive"},
		{"retention-interval", f.retention <= 0, "must be positive"},
		{"lease-ttl", f.leaseTTL < minLeaseTTL, fmt.Sprintf("must be at least %s", minLeaseTTL)},
		{"s3-part-size", f.partSize < minPartSize || f.partSize > maxPartSize, "allowed S3's part sizes, 5 MiB (5242880) to 5 GiB (5368709120)"},
		{"upload-idle-timeout", f.uploadIdle <= 0, "must be positive"},
		{"fetch-timeout", f.fetchTimeout <= 0, "must be positive"},
		{"fetch-min-rate", f.fetchMinRate < 0, "must be at least 0 (0: none)"},
		{"max-uploads-per-key", f.uploadsPerKey < 0, "must be at least 0 (0: no cap)"},
		{"orphan-grace", f.orphanGrace <= 0, "must be positive"},
		{"orphan-interval", f.orphanEvery <= 0, "must be positive"},
	} {
		if c.bad {
			return usageError{fmt.Sprintf("%s %s: %s", dashed(c.name), given(c.name), c.want)}
		}
	}
	if err := checkAddr(f.addr); err != nil {
		return usageError{fmt.Sprintf("--addr %s: %v", f.addr, err)}
	}
	if f.baseURL != "" {
		if u, err := url.Parse(f.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError{fmt.Sprintf("--base-url %s: want an absolute http:// or https:// URL (https://autocut.example.com)", f.baseURL)}
		}
	}
	if f.engines != "" {
		for _, name := range strings.Split(f.engines, ",") {
			if !slices.Contains(engineNames(), name) {
				return usageError{fmt.Sprintf("--transcribe-engines %s: %q is no engine; allowed %s", f.engines, name, strings.Join(engineNames(), ", "))}
			}
		}
	}
	return nil
}

// checkAddr refuses a listen address net.Listen could never take: no
// port, or a port that is no number from 0 to 65535 nor a service name.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port or :port (:8080, 127.0.0.1:8080)")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("port %q: want a number from 0 to 65535", port)
	}
	return nil
}

// transcriber picks the first available engine (whisper when configured,
// else pocketsphinx); nil means transcription answers 501.
func (f *serveFlags) transcriber(ctx context.Context, log *slog.Logger) transcribe.Transcriber {
	tcfg := transcribe.ConfigFromEnv()
	if f.whisperModel != "" {
		tcfg.WhisperModel = f.whisperModel
	}
	if f.whisperCLI != "" {
		tcfg.WhisperCLI = f.whisperCLI
	}
	if f.engines != "" {
		tcfg.Order = strings.Split(f.engines, ",")
	}
	var transcriber transcribe.Transcriber
	if t, err := transcribe.New(ctx, tcfg); err == nil {
		transcriber = t
		log.Info("transcription engine", "engine", t.Name())
	} else {
		log.Warn("transcription unavailable: requests for it answer 501", "err", err)
	}
	return transcriber
}

// jobsConfig is the job layer's configuration from the flags.
func (f *serveFlags) jobsConfig(role jobs.Role, t transcribe.Transcriber, log *slog.Logger) jobs.Config {
	return jobs.Config{
		Transcriber:       t,
		DataDir:           f.data,
		Workers:           f.workers,
		MaxInputBytes:     f.maxUpload,
		OriginalsTTL:      f.originalsTTL,
		OutputsTTL:        f.outputsTTL,
		RetentionInterval: f.retention,
		Logger:            log,
		Storage:           f.storage,
		Role:              role,
		LeaseTTL:          f.leaseTTL,
		PartSize:          f.partSize,
		OrphanGrace:       f.orphanGrace,
		OrphanInterval:    f.orphanEvery,
	}
}

// parsePorts parses --url-ports.
func parsePorts(s string) ([]uint16, error) {
	var ports []uint16
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.ParseUint(strings.TrimSpace(f), 10, 16)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("--url-ports: %q is not a port number", f)
		}
		ports = append(ports, uint16(p))
	}
	return ports, nil
}

// orNone maps a flag's 0 ("none") to the API config's -1 (its 0 is "default").
func orNone(v int64) int64 {
	if v == 0 {
		return -1
	}
	return v
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
