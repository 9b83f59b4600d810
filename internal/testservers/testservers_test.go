package testservers

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"testing"

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
