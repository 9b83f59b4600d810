package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/testservers"
	"github.com/autocut-dev/autocut/jobs/store"
	"github.com/autocut-dev/autocut/plan"
)

// bugEngine is gateEngine whose planner fails, as a bug would, while bug
// is set.
type bugEngine struct {
	*gateEngine
	bug atomic.Bool
}

func (b *bugEngine) Plan(a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error) {
	if b.bug.Load() {
		return nil, errors.New("planner: index out of range")
	}
	return b.gateEngine.Plan(a, p, extra)
}

// TestOutageAnswersNotReady: while the database (PostgreSQL) or the media
// storage (S3) does not answer, the Service's calls that need it fail with
// not_ready, which the HTTP adapter answers 503 with Retry-After, instead
// of internal; the calls that need only the other one go on working; once
// both answer again, every call works. An internal error with both
// answering (a bug) stays internal.
func TestOutageAnswersNotReady(t *testing.T) {
	pg := testservers.StartPostgres(t)
	s3srv := testservers.VersityGW(t)
	for _, kv := range s3srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	dbURL, err := url.Parse(pg.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	db := testservers.NewProxy(t, dbURL.Host)
	dbURL.Host = db.Addr()
	bucket := testservers.NewProxy(t, strings.TrimPrefix(s3srv.Endpoint, "http://"))
	s3srv.Endpoint = "http://" + bucket.Addr()

	eng := &bugEngine{gateEngine: &gateEngine{}}
	m := testManager(t, t.TempDir(), eng, func(c *Config) {
		c.Store = openStore(t, dbURL.String(), "")
		c.Storage = s3srv.URL()
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) // River complains during the outage
	})
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(3))
	if err != nil {
		t.Fatal(err)
	}
	id := waitJob(t, m, "o", j.ID, 20*time.Second, isStatus(apiv1.StatusDone)).ID

	calls := map[string]func() error{
		"Create": func() error {
			_, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "b.wav"}, fakeMedia(2))
			return err
		},
		"Get":  func() error { _, err := m.Get(ctx, "o", id); return err },
		"List": func() error { _, _, err := m.List(ctx, "o", 10, ""); return err },
		"OpenOutput": func() error {
			d, err := m.OpenOutput(ctx, "o", id)
			if err == nil {
				d.Close()
			}
			return err
		},
		"OpenOriginal": func() error {
			d, err := m.OpenOriginal(ctx, "o", id)
			if err == nil {
				d.Close()
			}
			return err
		},
		"TimelineSource": func() error { _, err := m.TimelineSource(ctx, "o", id); return err },
		"Preview":        func() error { _, err := m.Preview(ctx, "o", id, apiv1.ParamsInput{}); return err },
		"Envelope":       func() error { _, err := m.Envelope(ctx, "o", id, EnvelopeQuery{Points: 100}); return err },
		"Update": func() error {
			_, err := m.Update(ctx, "o", id, apiv1.Patch{Action: "export"})
			if errors.Is(err, apiv1.ErrProcessing) { // the last call's run is still going
				err = nil
			}
			return err
		},
	}
	notReady := func(what, name string, err error) {
		t.Helper()
		if !errors.Is(err, apiv1.ErrNotReady) || ErrorCode(err) != apiv1.CodeNotReady {
			t.Errorf("%s: %s = %v (code %s), want not_ready", what, name, err, ErrorCode(err))
		} else if msg := ClientMessage(err); !strings.Contains(msg, "retry") || strings.Contains(msg, "127.0.0.1") {
			t.Errorf("%s: %s tells the client %q", what, name, msg)
		}
	}
	back := func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for m.Ready(ctx) != nil {
			if time.Now().After(deadline) {
				t.Fatalf("not ready 20 s after the %s came back: %v", what, m.Ready(ctx))
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, name := range []string{"Get", "List", "OpenOutput", "OpenOriginal", "TimelineSource", "Preview", "Envelope"} {
			if err := calls[name](); err != nil {
				t.Errorf("after the %s came back: %s = %v", what, name, err)
			}
		}
	}

	// The database away: every call reads or writes the job's record.
	db.Cut()
	for name, call := range calls {
		notReady("database away", name, call())
	}
	db.Restore()
	back("database")

	// The bucket away: the record's calls work; those that read or write
	// media do not.
	bucket.Cut()
	for _, name := range []string{"Get", "List", "TimelineSource"} {
		if err := calls[name](); err != nil {
			t.Errorf("bucket away: %s = %v, want it to work", name, err)
		}
	}
	for _, name := range []string{"Create", "OpenOutput", "OpenOriginal"} {
		notReady("bucket away", name, calls[name]())
	}
	bucket.Restore()
	back("bucket")
	if err := calls["Create"](); err != nil {
		t.Errorf("Create after the outages: %v", err)
	}

	// A bug, with both answering: internal, as before.
	eng.bug.Store(true)
	if err := calls["Preview"](); ErrorCode(err) != apiv1.CodeInternal {
		t.Errorf("a planner bug: Preview = %v (code %s), want internal", err, ErrorCode(err))
	}
}

// TestOutageRunWaits: a run that fails while the media storage does not
// answer (the render cannot store its file) waits for it, for longer than
// the three runs an error gets otherwise, and finishes once it is back,
// instead of failing the job with internal.
func TestOutageRunWaits(t *testing.T) {
	s3srv := testservers.VersityGW(t)
	for _, kv := range s3srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	bucket := testservers.NewProxy(t, strings.TrimPrefix(s3srv.Endpoint, "http://"))
	s3srv.Endpoint = "http://" + bucket.Addr()
	eng := &gateEngine{renderGate: make(chan struct{})}
	m := testManager(t, t.TempDir(), eng, func(c *Config) { c.Storage = s3srv.URL() })
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(3))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j.ID, 20*time.Second, func(*apiv1.Job) bool { return eng.renders.Load() > 0 })
	bucket.Cut()
	close(eng.renderGate) // the render ends, and its file cannot be stored
	// Three runs, 1 and 2 s apart, would have failed the job by now.
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		got, err := m.Get(ctx, "o", j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != apiv1.StatusRendering {
			t.Fatalf("during the outage the job is %s (error %+v), want it rendering", got.Status, got.Error)
		}
		time.Sleep(100 * time.Millisecond)
	}
	bucket.Restore()
	if done := waitJob(t, m, "o", j.ID, 20*time.Second, isStatus(apiv1.StatusDone)); done.Output == nil {
		t.Errorf("job after the outage: %+v", done)
	}
}

// TestStopWhileARunFails: a run that fails while Stop waits for it asks
// whether storage answers (Ready); Stop must not hold what Ready needs, or
// both wait until Stop's context ends. A second Stop meanwhile waits for
// the first.
func TestStopWhileARunFails(t *testing.T) {
	eng := &bugEngine{gateEngine: &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 1)}}
	m := testManager(t, t.TempDir(), eng, nil)
	ctx := context.Background()
	if _, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(3)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-eng.inAnalyze:
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not start")
	}
	stopped := make(chan error, 1)
	start := time.Now()
	go func() {
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		stopped <- m.Stop(sctx)
	}()
	for m.Ready(ctx) == nil { // Stop has begun
		time.Sleep(10 * time.Millisecond)
	}
	// A second Stop waits for the first to end the work.
	again := make(chan error, 1)
	go func() { again <- m.Stop(ctx) }()
	select {
	case err := <-again:
		t.Errorf("a second Stop returned (%v) while the first waited for the run", err)
		again <- nil
	case <-time.After(300 * time.Millisecond):
	}
	eng.bug.Store(true) // the planner fails the run once its analysis ends
	close(eng.analyzeGate)
	if err := <-stopped; err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := <-again; err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Stop took %v while a run failed", d.Round(time.Millisecond))
	}
}

// TestBlipAnswers: when PostgreSQL's connections all break and it answers
// again at once (a restart, a failover: the pool holds connections that
// are dead), the next calls answer, the reads on a new connection, instead
// of failing with internal because Ready, asked after, passes.
func TestBlipAnswers(t *testing.T) {
	pg := testservers.StartPostgres(t)
	dbURL, err := url.Parse(pg.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	db := testservers.NewProxy(t, dbURL.Host)
	dbURL.Host = db.Addr()
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.Store = openStore(t, dbURL.String(), "") })
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(3))
	if err != nil {
		t.Fatal(err)
	}
	id := waitJob(t, m, "o", j.ID, 20*time.Second, isStatus(apiv1.StatusDone)).ID
	calls := []struct {
		name string
		call func() error
	}{
		{"Get", func() error { _, err := m.Get(ctx, "o", id); return err }},
		{"List", func() error { _, _, err := m.List(ctx, "o", 10, ""); return err }},
		{"Update", func() error {
			_, err := m.Update(ctx, "o", id, apiv1.Patch{Action: "export"})
			if errors.Is(err, apiv1.ErrProcessing) { // the last round's run is still going
				err = nil
			}
			return err
		}},
	}
	for _, c := range calls {
		for round := range 10 {
			// Several pooled connections, then all of them cut.
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() { _, _ = m.Get(ctx, "o", id) })
			}
			wg.Wait()
			db.Cut()
			db.Restore()
			if err := c.call(); err != nil {
				t.Errorf("%s after the connections broke (round %d): %v (code %s)", c.name, round, err, ErrorCode(err))
			}
		}
	}
}

// TestConnectionLostIsNotReady: a call whose database connection broke (a
// write is not run again) answers not_ready, which a client retries, even
// when the database answers again by the time Ready asks.
func TestConnectionLostIsNotReady(t *testing.T) {
	m := testManager(t, t.TempDir(), &gateEngine{}, nil)
	err := fmt.Errorf("save job: %w", fmt.Errorf("%w: %w", store.ErrConnection, io.ErrUnexpectedEOF))
	m.unavailable(&err)
	if ErrorCode(err) != apiv1.CodeNotReady || !strings.Contains(ClientMessage(err), "retry") {
		t.Errorf("a lost connection answers %v (code %s, message %q), want not_ready", err, ErrorCode(err), ClientMessage(err))
	}
	err = errors.New("save job: a bug")
	if m.unavailable(&err); ErrorCode(err) != apiv1.CodeInternal {
		t.Errorf("a bug answers %v (code %s), want internal", err, ErrorCode(err))
	}
}
