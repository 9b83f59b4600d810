package pgstore

import "testing"

func TestRebindDollar(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT 1`: `SELECT 1`,
		`UPDATE autocut_job SET gen = ? WHERE id = ? AND gen = ?`: `UPDATE autocut_job SET gen = $1 WHERE id = $2 AND gen = $3`,
		`INSERT INTO t (a, b) VALUES (?,?)`:                       `INSERT INTO t (a, b) VALUES ($1,$2)`,
	} {
		if got := rebindDollar(in); got != want {
			t.Errorf("rebindDollar(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://autocut:s3cret@db:5432/autocut": "postgres://autocut:xxxxx@db:5432/autocut",
		"postgres://autocut@db/autocut":             "postgres://autocut@db/autocut",
		"postgres://db/autocut":                     "postgres://db/autocut",
		"postgresql://u:p@ss@h/d":                   "postgresql://u:xxxxx@h/d",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	if !IsURL("postgres://h/d") || !IsURL("postgresql://h/d") || IsURL("/var/lib/autocut.db") || IsURL("sqlite://x.db") {
		t.Error("IsURL")
	}
}

// TestPoolSize: without pool_max_conns the pool covers the node's job
// slots, and the default slots (--workers 0) are the cores.
func TestPoolSize(t *testing.T) {
	for _, c := range []struct {
		workers, cpus int
		want          int32
	}{
		{0, 1, 10}, {1, 8, 10}, {2, 8, 10}, {8, 2, 22}, {0, 8, 22}, {0, 32, 70},
	} {
		if got := poolSize(c.workers, c.cpus); got != c.want {
			t.Errorf("poolSize(%d workers, %d cores) = %d, want %d", c.workers, c.cpus, got, c.want)
		}
	}
}
