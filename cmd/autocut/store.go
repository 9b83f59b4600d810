package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	_ "gocloud.dev/blob/s3blob" // --storage s3://...: the S3 driver is linked here, not by package jobs

	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/jobs/store"
	"github.com/autocut-dev/autocut/jobs/store/pgstore"
	"github.com/autocut-dev/autocut/jobs/store/sqlitestore"
	"github.com/autocut-dev/autocut/transcribe"
)

// openStore opens the jobs database --database names: a postgres:// URL
// (a cluster), else a SQLite file (default DATA/autocut.db; a sqlite://
// prefix is allowed).
func (f *serveFlags) openStore(ctx context.Context, role jobs.Role) (store.Store, error) {
	if err := f.checkDatabase(role); err != nil {
		return nil, err
	}
	if pgstore.IsURL(f.database) {
		return pgstore.Open(ctx, f.database, pgstore.Options{Workers: f.workers})
	}
	path := strings.TrimPrefix(f.database, "sqlite://")
	if path == "" {
		path = filepath.Join(f.data, "autocut.db")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("database directory: %w", err)
	}
	return sqlitestore.Open(ctx, path)
}

// checkDatabase refuses a role of a cluster (api, worker) on a SQLite
// file, which serves one process.
func (f *serveFlags) checkDatabase(role jobs.Role) error {
	if role != jobs.RoleAll && !pgstore.IsURL(f.database) {
		return fmt.Errorf("role %s needs a shared PostgreSQL database (--database postgres://...): a SQLite file serves one process", role)
	}
	return nil
}

// openJobs opens the job layer over the database and storage the flags name.
func (f *serveFlags) openJobs(ctx context.Context, role jobs.Role, t transcribe.Transcriber, log *slog.Logger) (*jobs.Manager, error) {
	st, err := f.openStore(ctx, role)
	if err != nil {
		return nil, err
	}
	cfg := f.jobsConfig(role, t, log)
	cfg.Store = st
	return jobs.Open(ctx, cfg) // (closes the store if it fails)
}
