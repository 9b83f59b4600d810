package jobs

import (
	"testing"

	"github.com/autocut-dev/autocut/internal/testservers"
)

// startPostgres starts a PostgreSQL server for the test and returns the URL
// its databases are created through.
func startPostgres(t *testing.T) string { return testservers.StartPostgres(t).URL() }
