package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/jobs/store"
)

// TestMigrations: a database made before the lease columns existed gets
// them, and opening a migrated database again changes nothing.
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "autocut.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(jobTable); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`INSERT INTO autocut_job (` + store.JobColumns + `) VALUES ('job_1','o','done',100,1,1,0,1,1,0,0,'{}')`); err != nil {
		t.Fatal(err)
	}
	old.Close()
	for range 2 {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var owner string
		var until int64
		if err := db.Read().QueryRow(ctx, `SELECT lease_owner, lease_until FROM autocut_job WHERE id = ?`, "job_1").Scan(&owner, &until); err != nil || owner != "" || until != 0 {
			t.Fatalf("lease columns of an old row: %q %d %v", owner, until, err)
		}
		var n int
		if err := db.Read().QueryRow(ctx, `SELECT COUNT(*) FROM autocut_task`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("autocut_task rows: %d %v", n, err)
		}
		if db.Shared() {
			t.Error("a SQLite file is shared")
		}
		stmt, err := db.Prepare(ctx, `SELECT owner FROM autocut_job WHERE id = ?`)
		if err != nil {
			t.Fatal(err)
		}
		if err := stmt.QueryRow(ctx, "job_1").Scan(&owner); err != nil || owner != "o" {
			t.Errorf("prepared read: %q %v", owner, err)
		}
		stmt.Close()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, err := db.Write().Exec(ctx, `UPDATE autocut_job SET status = ? WHERE id = ?`, "failed", "job_1"); err != nil || n != 1 {
		t.Errorf("write: %d rows, %v", n, err)
	}
}

// TestCheck: Check (and Ping) report a database file deleted or replaced
// under the open database, and nothing once the file opened is back.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "autocut.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("a database just opened: %v", err)
	}
	moved := filepath.Join(dir, "moved.db")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		prep func() error
		says string // "" for no error
	}{
		{"deleted", func() error { return nil }, "is gone"},
		{"replaced", func() error { return os.WriteFile(path, nil, 0o640) }, "is not the file opened"},
		{"back", func() error { return os.Rename(moved, path) }, ""},
	} {
		if err := tc.prep(); err != nil {
			t.Fatal(err)
		}
		for what, err := range map[string]error{"Check": db.Check(), "Ping": db.Ping(ctx)} {
			if got := fmt.Sprint(err); (tc.says == "") != (err == nil) || !strings.Contains(got, tc.says) {
				t.Errorf("%s: %s = %v, want an error saying %q", tc.name, what, err, tc.says)
			}
		}
	}
}
