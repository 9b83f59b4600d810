package testservers

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob"
)

func TestPostgres(t *testing.T) {
	pg := StartPostgres(t)
	ctx := context.Background()
	u1, u2 := pg.NewDatabase(t), pg.NewDatabase(t)
	if u1 == u2 {
		t.Fatalf("two databases share a URL: %s", u1)
	}
	c1, err := pgx.Connect(ctx, u1)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close(ctx)
	if _, err := c1.Exec(ctx, `CREATE TABLE t (v text); INSERT INTO t VALUES ('one')`); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := c1.QueryRow(ctx, `SELECT v FROM t`).Scan(&v); err != nil || v != "one" {
		t.Fatalf("read back %q, %v", v, err)
	}
	c2, err := pgx.Connect(ctx, u2)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var n int
	if err := c2.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE tablename = 't'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("second database sees the first one's table: %d, %v", n, err)
	}
}

func TestVersityGW(t *testing.T) {
	s := VersityGW(t)
	for _, kv := range s.Env() {
		k, v, _ := bytes.Cut([]byte(kv), []byte("="))
		t.Setenv(string(k), string(v))
	}
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data := make([]byte, 12<<20+12345)
	rand.Read(data)
	w, err := b.NewWriter(ctx, "dir/obj", &blob.WriterOptions{BufferSize: 5 << 20, MaxConcurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("multipart upload: %v", err)
	}
	got, err := b.ReadAll(ctx, "dir/obj")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (want %d), %v", len(got), len(data), err)
	}
	r, err := b.NewRangeReader(ctx, "dir/obj", 7<<20, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	part, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(part, data[7<<20:7<<20+100]) {
		t.Fatalf("ranged read: %d bytes, %v", len(part), err)
	}
}

// TestProxy: a proxy forwards until Cut, which closes its open connections
// and every new one, and forwards again after Restore.
func TestProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // an echo server
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	p := NewProxy(t, ln.Addr().String())
	echo := func(c net.Conn) error {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		b := make([]byte, 4)
		if _, err := io.ReadFull(c, b); err != nil {
			return err
		}
		if string(b) != "ping" {
			return fmt.Errorf("echo %q", b)
		}
		return nil
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	open := dial()
	if err := echo(open); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	p.Cut()
	if err := echo(open); err == nil {
		t.Errorf("an open connection still answers after Cut")
	}
	if err := echo(dial()); err == nil {
		t.Errorf("a new connection answers after Cut")
	}
	p.Restore()
	if err := echo(dial()); err != nil {
		t.Errorf("a new connection after Restore: %v", err)
	}
}
