package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/syncbuf"
	"github.com/autocut-dev/autocut/jobs/store"
	"github.com/autocut-dev/autocut/jobs/store/pgstore"
	"github.com/autocut-dev/autocut/jobs/store/sqlitestore"
	"github.com/autocut-dev/autocut/plan"
)

// gateEngine is a controllable engine for the flow tests (conflict,
// cancellation, restart): its Analyze and Render wait on gates and count
// calls; its media are "RIFF" files whose text says the duration.
type gateEngine struct {
	analyzeGate chan struct{} // nil: no wait; closed: pass
	renderGate  chan struct{}
	analyses    atomic.Int32
	renders     atomic.Int32
	inAnalyze   chan string  // receives the input's name when Analyze starts (buffered)
	cancelled   atomic.Int32 // calls that returned because their context ended
	fromFile    atomic.Int32 // analyses that were handed a file (else a stream)
	renderedLen atomic.Int64 // size of the last render's input file
	analyzeErrs atomic.Int32 // analyses left to fail with an error that is not the input's
}

func (g *gateEngine) Sniff(head []byte) string {
	if strings.HasPrefix(string(head), "RIFF") {
		return "wav"
	}
	return dsp.Sniff(head) // (an MP4 box layout around "RIFF <seconds>")
}

func (g *gateEngine) wait(ctx context.Context, gate chan struct{}) error {
	if gate == nil {
		return nil
	}
	select {
	case <-gate:
		return nil
	case <-ctx.Done():
		g.cancelled.Add(1)
		return ctx.Err()
	}
}

func (g *gateEngine) Analyze(ctx context.Context, r io.Reader, name string, maxDuration time.Duration, progress dsp.Progress) (*dsp.Analysis, error) {
	g.analyses.Add(1)
	if g.inAnalyze != nil {
		select {
		case g.inAnalyze <- name:
		default:
		}
	}
	progress(0.5)
	if err := g.wait(ctx, g.analyzeGate); err != nil {
		return nil, err
	}
	if g.analyzeErrs.Add(-1) >= 0 {
		return nil, errors.New("read original: connection reset by peer")
	}
	if _, ok := r.(*os.File); ok {
		g.fromFile.Add(1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if i := bytes.Index(b, []byte("RIFF ")); i > 0 {
		b = b[i:]
	}
	var sec float64
	if _, err := fmt.Sscanf(string(b), "RIFF %g", &sec); err != nil {
		return nil, fmt.Errorf("%w: fake media: %v", dsp.ErrUnsupportedFormat, err)
	}
	if bytes.Contains(b, []byte("header")) && maxDuration > 0 && sec > maxDuration.Seconds() {
		// As the real engine refuses a header giving more than the limit.
		return nil, &dsp.TooLongError{Name: name, Duration: sec, Limit: maxDuration.Seconds()}
	}
	n := int(sec * 100)
	a := &dsp.Analysis{Input: dsp.Info{Name: "x", Type: "audio", Format: "wav", Duration: sec, SampleRate: 48000, Channels: 1},
		Envelope: dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, n), PeakDb: make([]float32, n)},
		BlockSec: 0.1, Blocks: make([]float64, n/10), ThresholdDb: -40, NoiseFloorDb: -60, SpeechLevelDb: -20}
	if bytes.Contains(b, []byte("warnings")) {
		// The real engine's warnings: one about the input, one about its
		// pauses (which the plan, cutting pauses, leaves out).
		a.Warnings = []string{dsp.WarnTruncated + ": the header gives more", dsp.WarnNoPauses + ": the level never stays under"}
	}
	for i := range n {
		a.Envelope.RMSDb[i] = -20
		if (i/100)%2 == 1 {
			a.Envelope.RMSDb[i] = -80
		}
		a.Envelope.PeakDb[i] = a.Envelope.RMSDb[i] + 3
	}
	return a, nil
}

// Plan cuts every frame under the threshold (ThresholdDb, else the analysis').
func (g *gateEngine) Plan(a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error) {
	th := a.ThresholdDb
	if p.ThresholdDb != nil {
		th = *p.ThresholdDb
	}
	out := &plan.Plan{ThresholdDb: th, Params: p}
	fs := a.Envelope.FrameSec
	for i := 0; i < len(a.Envelope.RMSDb); {
		j := i
		quiet := float64(a.Envelope.RMSDb[i]) < th
		for j < len(a.Envelope.RMSDb) && (float64(a.Envelope.RMSDb[j]) < th) == quiet {
			j++
		}
		r := plan.Range{Start: float64(i) * fs, End: float64(j) * fs}
		if quiet {
			out.Cuts = append(out.Cuts, plan.Cut{Start: r.Start, End: r.End, Reason: plan.ReasonSilence})
		} else {
			out.Keep = append(out.Keep, r)
			out.Stats.FinalSec += r.Len()
		}
		i = j
	}
	for _, x := range extra { // remove extra cuts from the keeps
		var keep []plan.Range
		for _, k := range out.Keep {
			if x.End <= k.Start || x.Start >= k.End {
				keep = append(keep, k)
				continue
			}
			if x.Start > k.Start {
				keep = append(keep, plan.Range{Start: k.Start, End: x.Start})
			}
			if x.End < k.End {
				keep = append(keep, plan.Range{Start: x.End, End: k.End})
			}
			out.Stats.FinalSec -= min(x.End, k.End) - max(x.Start, k.Start)
		}
		out.Keep = keep
		out.Cuts = append(out.Cuts, x)
	}
	if len(out.Keep) == 0 {
		return nil, plan.ErrNothingToKeep
	}
	out.Stats.OriginalSec = a.Input.Duration
	out.Stats.CutsCount = len(out.Cuts)
	return out, nil
}

func (g *gateEngine) Preset(name string) (plan.Params, apiv1.Export, error) {
	if name != "" && name != "podcast" {
		return plan.Params{}, apiv1.Export{}, fmt.Errorf("%w: unknown preset %q", plan.ErrInvalidParams, name)
	}
	return plan.Params{MinSilenceSec: 0.5, KeepSilenceMs: 200}, apiv1.Export{Normalize: "podcast"}, nil
}

func (g *gateEngine) Validate(p plan.Params) error {
	if p.MinSilenceSec < 0.2 || p.MinSilenceSec > 10 {
		return fmt.Errorf("%w: minSilenceSec must be within 0.2..10", plan.ErrInvalidParams)
	}
	return nil
}

func (g *gateEngine) Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e apiv1.Export, w io.Writer, dir string, progress dsp.Progress) (*Rendered, error) {
	g.renders.Add(1)
	if st, err := os.Stat(path); err == nil {
		g.renderedLen.Store(st.Size())
	}
	progress(0.3)
	if err := g.wait(ctx, g.renderGate); err != nil {
		return nil, err
	}
	body := fmt.Sprintf("rendered %s %.2f", e.Format, p.Stats.FinalSec)
	if _, err := io.WriteString(w, body); err != nil {
		return nil, err
	}
	return &Rendered{Format: e.Format, Duration: p.Stats.FinalSec, Size: int64(len(body))}, nil
}

func (g *gateEngine) OutputName(in, format string) string { return in + "-autocut." + format }

// testManager opens and starts a Manager on dir; Stop runs at cleanup.
func testManager(t *testing.T, dir string, eng Engine, mod func(*Config)) *Manager {
	t.Helper()
	// The log (a failed job's cause is logged at Info) is shown when the
	// test fails.
	logs := &syncbuf.Buffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("manager log:\n%s", logs.String())
		}
	})
	cfg := Config{DataDir: dir, Workers: 2, Engine: eng, PollInterval: 50 * time.Millisecond,
		RetentionInterval: time.Hour,
		Logger:            slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	if testDatabase(t, dir) != "" {
		cfg.LeaseTTL = 2 * time.Second // runs of a killed manager are taken over through leases
	}
	if mod != nil {
		mod(&cfg)
	}
	if cfg.Store == nil {
		cfg.Store = openStore(t, testDatabase(t, dir), dir)
	}
	ctx := context.Background()
	m, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := m.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := m.Stop(ctx); err != nil {
			// What did not stop is in the goroutines' stacks.
			buf := make([]byte, 1<<22)
			t.Errorf("Stop: %v\ngoroutines:\n%s", err, buf[:runtime.Stack(buf, true)])
		}
	})
	return m
}

// waitJob polls until cond holds for the job, failing after timeout.
func waitJob(t *testing.T, m *Manager, owner, id string, timeout time.Duration, cond func(*apiv1.Job) bool) *apiv1.Job {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		j, err := m.Get(context.Background(), owner, id)
		if err != nil {
			t.Fatalf("Get %s: %v", id, err)
		}
		if cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: condition not met after %v; last status %s progress %.1f error %+v", id, timeout, j.Status, j.Progress, j.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isStatus(s apiv1.Status) func(*apiv1.Job) bool {
	return func(j *apiv1.Job) bool { return j.Status == s }
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// previewEngine analyses fake media and plans with the linked planner.
func previewEngine() Engine { return &gateEngine{} }

// openStore opens the jobs database: PostgreSQL at url, or SQLite in dir
// when url is "".
func openStore(t testing.TB, url, dir string) store.Store {
	t.Helper()
	var (
		st  store.Store
		err error
	)
	if url != "" {
		st, err = pgstore.Open(context.Background(), url, pgstore.Options{Workers: 2})
	} else {
		st, err = sqlitestore.Open(context.Background(), filepath.Join(dir, "autocut.db"))
	}
	if err != nil {
		t.Fatalf("open the jobs database: %v", err)
	}
	return st
}
