package jobs

import (
	"os"
	"testing"
)

// startPostgres returns a PostgreSQL server URL for tests (placeholder until
// internal/testservers lands).
func startPostgres(t *testing.T) string {
	u := os.Getenv("AUTOCUT_PG_SMOKE")
	if u == "" {
		t.Skip("no PostgreSQL")
	}
	return u
}
