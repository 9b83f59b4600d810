package testservers

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PG is a running PostgreSQL server.
type PG struct {
	port int
	n    atomic.Int32
}

// Postgres starts a server and returns the URL of a fresh database on it.
func Postgres(t testing.TB) string {
	return StartPostgres(t).NewDatabase(t)
}

// StartPostgres runs initdb and postgres in a temporary directory on a free
// loopback port (trust authentication, fsync off) and waits until it
// accepts connections. As root it runs them as the postgres user, since
// PostgreSQL refuses to run as root.
func StartPostgres(t testing.TB) *PG {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		missing(t, "PostgreSQL (Debian package postgresql)")
	}
	sort.Strings(bins)
	bindir := filepath.Dir(bins[len(bins)-1])

	dir, err := os.MkdirTemp("", "autocut-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(bindir, name), args...)
		c.Dir = dir
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
		return c
	}
	data := filepath.Join(dir, "data")
	if out, err := run("initdb", "-D", data, "-A", "trust", "-U", "autocut", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		_ = logf.Chown(int(cred.Uid), int(cred.Gid))
	}
	srv := run("postgres", "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "shared_buffers=64MB")
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-srv.Process.Pid, syscall.SIGQUIT) // immediate shutdown
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	pg := &PG{port: port}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, pg.url("postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return pg
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("postgres exited:\n%s", tail(string(b), 20))
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("postgres did not accept connections in 30 s: %v\n%s", err, tail(string(b), 20))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *PG) url(db string) string {
	return fmt.Sprintf("postgres://autocut@127.0.0.1:%d/%s?sslmode=disable", p.port, db)
}

// URL is the server's maintenance database ("postgres"); use it to create
// databases, not to hold test data.
func (p *PG) URL() string { return p.url("postgres") }

// NewDatabase creates an empty database and returns its URL.
func (p *PG) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test%d", p.n.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, p.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return p.url(name)
}
