package jobs

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/jobs/store/pgstore"
)

// testPGEnv, when set to a PostgreSQL server URL, makes every test manager
// use a fresh database on that server instead of SQLite. TestSuiteOnPostgres
// sets it for a re-run of this test binary.
const testPGEnv = "AUTOCUT_JOBS_TEST_PG"

var testDBs sync.Map // data dir -> database URL, so a restart finds its database

// testDatabase returns the database URL of a test manager on dir: ""
// (SQLite under dir) unless testPGEnv is set.
func testDatabase(t *testing.T, dir string) string {
	base := os.Getenv(testPGEnv)
	if base == "" {
		return ""
	}
	if u, ok := testDBs.Load(dir); ok {
		return u.(string)
	}
	name := fmt.Sprintf("t_%x", sha256.Sum256([]byte(dir)))[:20]
	conn, err := pgx.Connect(context.Background(), base)
	if err != nil {
		t.Fatalf("connect %s: %v", base, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	u := withDatabase(base, name)
	testDBs.Store(dir, u)
	return u
}

// withDatabase replaces the database name in a postgres:// URL.
func withDatabase(base, name string) string {
	q := ""
	if i := strings.IndexByte(base, '?'); i >= 0 {
		base, q = base[:i], base[i:]
	}
	slash := strings.LastIndexByte(base, '/')
	if slash < len("postgres://") {
		return base + "/" + name + q
	}
	return base[:slash+1] + name + q
}

// TestSuiteOnPostgres runs the job layer's flow and failure tests again with
// PostgreSQL (riverpgxv5) in place of SQLite, in a child test process.
func TestSuiteOnPostgres(t *testing.T) {
	if os.Getenv(testPGEnv) != "" {
		t.Skip("inside the PostgreSQL re-run")
	}
	url := startPostgres(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^(TestFlow|TestFailedStates|TestCreateRefusals|TestTranscriptionOneAtATime|TestCluster)", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), testPGEnv+"="+url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("job tests on PostgreSQL: %v\n%s", err, out)
	}
	passed := strings.Count(string(out), "--- PASS")
	if passed < 11 {
		t.Fatalf("only %d tests passed on PostgreSQL:\n%s", passed, out)
	}
	t.Logf("%d job-layer tests passed on PostgreSQL", passed)
}

// clusterPair opens two managers on one PostgreSQL database and one media
// directory, as two nodes of a cluster would be.
func clusterPair(t *testing.T, e1, e2 Engine) (*Manager, *Manager) {
	t.Helper()
	if os.Getenv(testPGEnv) == "" {
		t.Skip("runs inside TestSuiteOnPostgres")
	}
	shared := t.TempDir()
	db := testDatabase(t, shared)
	storage := "file://" + filepath.ToSlash(filepath.Join(shared, "media"))
	mod := func(c *Config) { c.Store, c.Storage = openStore(t, db, ""), storage }
	return testManager(t, t.TempDir(), e1, mod), testManager(t, t.TempDir(), e2, mod)
}

func TestClusterTakeoverAfterLeaseExpires(t *testing.T) {
	e1 := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 1)}
	e2 := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 1)}
	m1, m2 := clusterPair(t, e1, e2)
	ctx := context.Background()
	j, err := m1.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	// River hands the run to one of the two nodes: that one holds it.
	var holder, other *Manager
	var holderEng, otherEng *gateEngine
	select {
	case <-e1.inAnalyze:
		holder, other, holderEng, otherEng = m1, m2, e1, e2
	case <-e2.inAnalyze:
		holder, other, holderEng, otherEng = m2, m1, e2, e1
	case <-time.After(10 * time.Second):
		t.Fatal("analysis did not start")
	}
	close(otherEng.analyzeGate) // the survivor runs freely once it gets the job
	// While the holder lives and renews, nobody else runs the job, for
	// well over a lease period.
	time.Sleep(3 * holder.cfg.LeaseTTL)
	if n := otherEng.analyses.Load(); n != 0 {
		t.Fatalf("a second node ran the job while its holder was alive (%d analyses)", n)
	}
	if n := holderEng.analyses.Load(); n != 1 {
		t.Fatalf("holder analyses = %d, want 1", n)
	}
	killed := time.Now()
	crash(t, holder)
	done := waitJob(t, other, "o", j.ID, 20*time.Second, isStatus(apiv1.StatusDone))
	took := time.Since(killed)
	if done.Output == nil {
		t.Fatalf("job after takeover: %+v", done)
	}
	if n := otherEng.analyses.Load(); n != 1 {
		t.Errorf("analyses on the surviving node = %d, want 1", n)
	}
	// LeaseTTL until the lease expires, LeaseTTL/2 between rescue passes.
	if limit := 2*holder.cfg.LeaseTTL + 2*time.Second; took > limit {
		t.Errorf("takeover took %v, want under %v", took, limit)
	}
	t.Logf("job done on the surviving node %v after the kill (lease %v)", took.Round(10*time.Millisecond), holder.cfg.LeaseTTL)
}

func TestClusterDeleteCancelsRunOnOtherNode(t *testing.T) {
	e1 := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 2)}
	e2 := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 2)}
	m1, m2 := clusterPair(t, e1, e2)
	ctx := context.Background()
	j, err := m1.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	var eng *gateEngine
	var api *Manager
	select {
	case <-e1.inAnalyze:
		eng, api = e1, m2 // running on m1: delete through m2
	case <-e2.inAnalyze:
		eng, api = e2, m1
	case <-time.After(10 * time.Second):
		t.Fatal("analysis did not start")
	}
	if err := api.Delete(ctx, "o", j.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for eng.cancelled.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the run on the other node was not cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(e1.analyzeGate)
	close(e2.analyzeGate)
}

func TestClusterConcurrentMigrations(t *testing.T) {
	if os.Getenv(testPGEnv) == "" {
		t.Skip("runs inside TestSuiteOnPostgres")
	}
	db := testDatabase(t, t.TempDir())
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			st, err := pgstore.Open(context.Background(), db, pgstore.Options{Workers: 1}) // migrates
			if err != nil {
				errs <- err
				return
			}
			m, err := Open(context.Background(), Config{DataDir: t.TempDir(), Store: st, Engine: &gateEngine{}, Logger: quietLogger()})
			if err == nil {
				err = m.Stop(context.Background())
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("node start: %v", err)
		}
	}
}

// TestClusterRunStopsWhenItCannotRenew: a worker cut off from the database
// stops its run once its lease has expired, since another worker may take
// the job over from then on.
func TestClusterRunStopsWhenItCannotRenew(t *testing.T) {
	if os.Getenv(testPGEnv) == "" {
		t.Skip("runs inside TestSuiteOnPostgres")
	}
	eng := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 1)}
	m := testManager(t, t.TempDir(), eng, nil)
	if _, err := m.Create(context.Background(), CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-eng.inAnalyze:
	case <-time.After(10 * time.Second):
		t.Fatal("analysis did not start")
	}
	cut := time.Now()
	_ = m.db.close() // the database is gone for this node
	for eng.cancelled.Load() == 0 {
		if time.Since(cut) > m.cfg.LeaseTTL+2*time.Second {
			t.Fatalf("the run still goes on %v after its node lost the database (lease %v)", time.Since(cut), m.cfg.LeaseTTL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if took := time.Since(cut); took < m.cfg.LeaseTTL/3 {
		t.Errorf("the run stopped after %v, before it could have tried to renew", took)
	}
	t.Logf("run stopped %v after the database went away (lease %v)", time.Since(cut).Round(10*time.Millisecond), m.cfg.LeaseTTL)
	crash(t, m)
}

// TestClusterRescuePassesHalfALeaseApart: with one worker node left (the
// other was killed), rescue passes still come at most LeaseTTL/2 apart, so
// that a dead node's run restarts within LeaseTTL + LeaseTTL/2 of its last
// renewal (docs/deploy.md), and not much more often than that.
func TestClusterRescuePassesHalfALeaseApart(t *testing.T) {
	if os.Getenv(testPGEnv) == "" {
		t.Skip("runs inside TestSuiteOnPostgres")
	}
	const lease = 4 * time.Second
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.LeaseTTL = lease })
	ctx := context.Background()
	var passes []time.Time
	for end := time.Now().Add(8 * lease / 2); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		var last int64
		if err := m.db.read.QueryRow(ctx, `SELECT last_run FROM autocut_task WHERE name = 'rescue'`).Scan(&last); err != nil {
			t.Fatal(err)
		}
		if at := time.Unix(0, last); len(passes) == 0 || at.After(passes[len(passes)-1]) {
			passes = append(passes, at)
		}
	}
	var longest time.Duration
	for i := 2; i < len(passes); i++ { // (passes[0] may be the schema's seed)
		longest = max(longest, passes[i].Sub(passes[i-1]))
	}
	t.Logf("%d rescue passes in %v, at most %v apart (lease %v)", len(passes)-1, 8*lease/2, longest.Round(time.Millisecond), lease)
	if longest > lease/2+lease/20 {
		t.Errorf("rescue passes %v apart, want at most LeaseTTL/2 = %v", longest.Round(time.Millisecond), lease/2)
	}
	if n := len(passes) - 1; n > 11 {
		t.Errorf("%d rescue passes in %v, want about 8", n, 8*lease/2)
	}
}
