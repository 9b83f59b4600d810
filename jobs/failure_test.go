package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcribe"
)

func TestCreateRefusals(t *testing.T) {
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, func(c *Config) { c.MaxInputBytes = 1000 })
	ctx := context.Background()
	tests := []struct {
		name  string
		opts  apiv1.Options
		media string
		want  error
	}{
		{"not media", apiv1.Options{}, "<html>hello</html>", dsp.ErrUnsupportedFormat},
		{"empty", apiv1.Options{}, "", dsp.ErrUnsupportedFormat},
		{"too large", apiv1.Options{}, "RIFF 3 " + strings.Repeat("x", 2000), apiv1.ErrFileTooLarge},
		{"exactly the limit", apiv1.Options{}, "RIFF 3 " + strings.Repeat("x", 993), nil},
		{"bad format", apiv1.Options{Export: &apiv1.ExportInput{Format: ptr("ogg")}}, "RIFF 3", plan.ErrInvalidParams},
		{"bad normalize", apiv1.Options{Export: &apiv1.ExportInput{Normalize: ptr("loud")}}, "RIFF 3", plan.ErrInvalidParams},
		{"mp4 for audio", apiv1.Options{Export: &apiv1.ExportInput{Format: ptr("mp4")}}, "RIFF 3", plan.ErrInvalidParams},
		{"bad param", apiv1.Options{Params: &apiv1.ParamsInput{MinSilenceSec: ptr(0.0)}}, "RIFF 3", plan.ErrInvalidParams},
		{"unknown preset", apiv1.Options{Preset: "loud"}, "RIFF 3", plan.ErrInvalidParams},
		{"preset in capitals", apiv1.Options{Preset: "PodCast"}, "RIFF 3", nil},
		{"transcribe without engine", apiv1.Options{Transcribe: ptr(true)}, "RIFF 3", transcribe.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "x.wav", Options: tc.opts}, strings.NewReader(tc.media))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				if j.Status != apiv1.StatusAnalyzing {
					t.Fatalf("status %s", j.Status)
				}
				want := strings.ToLower(tc.opts.Preset)
				if want == "" {
					want = plan.DefaultPresetName // shown when none was named
				}
				if j.Preset != want {
					t.Errorf("preset %q, want the canonical %q", j.Preset, want)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Create: err = %v, want %v", err, tc.want)
			}
		})
	}
	// Refused uploads leave no file behind.
	ents, _ := os.ReadDir(filepath.Join(dir, "media", "originals"))
	var names []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".attrs") {
			names = append(names, e.Name())
		}
	}
	if len(names) != 2 {
		t.Errorf("stored originals = %v, want only the two accepted ones", names)
	}
}

func TestFailedStates(t *testing.T) {
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.MaxDuration = 20 * time.Second })
	ctx := context.Background()
	tests := []struct {
		name     string
		opts     apiv1.Options
		media    string
		code     apiv1.ErrorCode
		duration float64 // input.duration of the failed job (0: null)
	}{
		{"nothing to keep", apiv1.Options{Params: &apiv1.ParamsInput{ThresholdDb: ptr(-10.0)}}, "RIFF 4", "nothing_to_keep", 4},
		{"undecodable", apiv1.Options{}, "RIFF garbage", "unsupported_format", 0},
		// A too-long input shows its length: the decoded one, or the
		// one its header gives when that stopped the analysis.
		{"too long", apiv1.Options{}, "RIFF 30", "too_long", 30},
		{"too long by its header", apiv1.Options{}, "RIFF 40 header", "too_long", 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "x.wav", Options: tc.opts}, strings.NewReader(tc.media))
			if err != nil {
				t.Fatal(err)
			}
			j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusFailed))
			if j.Error == nil || j.Error.Code != tc.code || j.Error.Message == "" || j.Output != nil {
				t.Fatalf("failed job: error %+v output %+v", j.Error, j.Output)
			}
			if d := j.Input.Duration; (d == nil) != (tc.duration == 0) || d != nil && *d != tc.duration {
				t.Errorf("input.duration %v, want %g (0: null)", fmtPtr(d), tc.duration)
			}
		})
	}
	// A failed job can be re-run with better params.
	jobs, _, err := m.List(ctx, "o", 10, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Error.Code != "nothing_to_keep" {
			continue
		}
		if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Params: &apiv1.ParamsInput{ThresholdDb: ptr(-40.0)}, Action: "export"}); err != nil {
			t.Fatal(err)
		}
		j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
		if j.Error != nil || j.Output == nil {
			t.Fatalf("re-run: %+v", j)
		}
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "autocut_jobs" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			got[mt.GetLabel()[0].GetValue()] = mt.GetGauge().GetValue()
		}
	}
	want := map[string]float64{"analyzing": 0, "transcribing": 0, "rendering": 0, "done": 1, "failed": 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("autocut_jobs (-want +got):\n%s", diff)
	}
	if err := m.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
}

// fakeTranscriber finds one filler per call and records concurrency.
type fakeTranscriber struct {
	running, peak atomic.Int32
	mu            sync.Mutex
	calls         int
	hold          time.Duration
}

func (f *fakeTranscriber) Name() string                        { return "fake" }
func (f *fakeTranscriber) Available(ctx context.Context) error { return nil }
func (f *fakeTranscriber) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*transcribe.Transcript, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	progress(0.5)
	select {
	case <-time.After(f.hold):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// The fake media are loud from 0 to 1 s: "um" at 0.2..0.5 s, confident
	// enough to be cut.
	t := &transcribe.Transcript{Language: "en", Engine: "fake",
		Words:   []transcribe.Word{{Word: "um", Start: 0.2, End: 0.5, Confidence: 0.9}},
		Fillers: []transcribe.Filler{{Word: "um", Start: 0.2, End: 0.5, Kind: "filler", Confidence: 0.9}}}
	transcribe.MarkFillers(t, 0.5)
	return t, nil
}

func TestTranscriptionOneAtATime(t *testing.T) {
	tr := &fakeTranscriber{hold: 300 * time.Millisecond}
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.Transcriber = tr; c.Workers = 3 })
	ctx := context.Background()
	var ids []string
	for range 3 {
		j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "x.wav", Options: apiv1.Options{Transcribe: ptr(true)}}, fakeMedia(4))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	// While one transcribes, the others wait in transcribing at their phase start.
	sawWaiting := false
	deadline := time.Now().Add(15 * time.Second)
	for done := 0; done < len(ids); {
		done = 0
		transcribing := 0
		for _, id := range ids {
			j, err := m.Get(ctx, "o", id)
			if err != nil {
				t.Fatal(err)
			}
			switch j.Status {
			case apiv1.StatusDone:
				done++
			case apiv1.StatusTranscribing:
				transcribing++
			case apiv1.StatusFailed:
				t.Fatalf("job failed: %+v", j.Error)
			}
		}
		if transcribing >= 2 {
			sawWaiting = true
		}
		if time.Now().After(deadline) {
			t.Fatal("jobs did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := tr.peak.Load(); got != 1 {
		t.Errorf("peak concurrent transcriptions = %d, want 1", got)
	}
	if !sawWaiting {
		t.Errorf("never saw a job waiting in transcribing")
	}
	j, _ := m.Get(ctx, "o", ids[0])
	tt := j.Transcript
	if tt == nil || tt.Status != apiv1.TranscriptDone || len(tt.Fillers) != 1 {
		t.Fatalf("transcript %#v", j.Transcript)
	}
	fillers := countReason(j.Plan.Cuts, plan.ReasonFiller)
	if !j.Export.CutFillers || fillers != 1 {
		t.Errorf("cutFillers %v, filler cuts %d in %+v", j.Export.CutFillers, fillers, j.Plan.Cuts)
	}
	// PATCH action transcribe on a job that did not ask for it.
	j2, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "y.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j2.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	up, err := m.Update(ctx, "o", j2.ID, apiv1.Patch{Action: "transcribe"})
	if err != nil || up.Status != apiv1.StatusTranscribing {
		t.Fatalf("PATCH transcribe: %+v %v", up, err)
	}
	j3 := waitJob(t, m, "o", j2.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if j3.Output == nil || j3.Transcript == nil || !j3.Export.CutFillers {
		t.Fatalf("after transcribe: %+v", j3)
	}
	if n := countReason(j3.Plan.Cuts, plan.ReasonFiller); n != 1 {
		t.Fatalf("filler cuts after PATCH transcribe = %d in %+v", n, j3.Plan.Cuts)
	}
}

func countReason(cuts []apiv1.Cut, reason string) int {
	n := 0
	for _, c := range cuts {
		if c.Reason == reason {
			n++
		}
	}
	return n
}

// codeEngine is a gateEngine whose sniffing cannot tell audio from video
// and whose renders can fail.
type codeEngine struct {
	gateEngine
	renderErr error
}

func (c *codeEngine) Sniff(head []byte) string {
	if c.gateEngine.Sniff(head) != "" {
		return "mp4" // a container that may hold video: the analysis tells
	}
	return ""
}

func (c *codeEngine) Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e apiv1.Export, w io.Writer, dir string, progress dsp.Progress) (*Rendered, error) {
	if c.renderErr != nil {
		return nil, c.renderErr
	}
	return c.gateEngine.Render(ctx, path, a, p, e, w, dir, progress)
}

// failingTranscriber is available but fails on every file.
type failingTranscriber struct{}

func (failingTranscriber) Name() string                        { return "failing" }
func (failingTranscriber) Available(ctx context.Context) error { return nil }
func (failingTranscriber) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*transcribe.Transcript, error) {
	return nil, errors.New("model file is corrupt")
}

// TestJobErrorCodes checks the codes failed jobs record through the one
// error table (jobs.ErrorCode): the same codes HTTP answers carry for the
// same errors, and the job-only ones (render_failed, transcription_failed).
func TestJobErrorCodes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		renderErr error
		tr        transcribe.Transcriber
		opts      apiv1.Options
		want      apiv1.ErrorCode
	}{
		// The sniffed container might hold video; the analysis finds audio only.
		{"video format for audio", nil, nil, apiv1.Options{Export: &apiv1.ExportInput{Format: ptr("mp4")}}, apiv1.CodeInvalidParameter},
		{"encoder fails", errors.New("ffmpeg: exit status 1"), nil, apiv1.Options{}, apiv1.CodeRenderFailed},
		{"render finds nothing to keep", fmt.Errorf("render: %w", plan.ErrNothingToKeep), nil, apiv1.Options{}, apiv1.CodeNothingToKeep},
		{"transcriber fails", nil, failingTranscriber{}, apiv1.Options{Transcribe: ptr(true)}, apiv1.CodeTranscriptionFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := testManager(t, t.TempDir(), &codeEngine{renderErr: tc.renderErr}, func(c *Config) { c.Transcriber = tc.tr })
			j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "x.mp4", Options: tc.opts}, fakeMedia(4))
			if err != nil {
				t.Fatal(err)
			}
			j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusFailed))
			if j.Error == nil || j.Error.Code != tc.want || j.Error.Message == "" {
				t.Fatalf("failed job error %+v, want code %s", j.Error, tc.want)
			}
			if !j.Error.Code.IsJobCode() {
				t.Errorf("%s is not a job code", j.Error.Code)
			}
		})
	}
}

// gatedTranscriber transcribes when its gate opens.
type gatedTranscriber struct {
	fakeTranscriber
	gate    chan struct{}
	started chan struct{} // receives when a transcription starts (buffered)
}

func (g *gatedTranscriber) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*transcribe.Transcript, error) {
	select {
	case g.started <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.fakeTranscriber.Transcribe(ctx, path, lang, progress)
}

// TestTranscriptionWaitHoldsNoWorker: a job waiting for the one
// transcription slot gives its worker slot back, so an unrelated job runs
// meanwhile (with 2 workers, one transcribing and one waiting used to
// leave none); the waiting job's progress does not go back; it transcribes
// once the slot is free.
func TestTranscriptionWaitHoldsNoWorker(t *testing.T) {
	tr := &gatedTranscriber{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.Transcriber = tr; c.Workers = 2 })
	ctx := context.Background()
	create := func(transcribe bool) string {
		t.Helper()
		j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "x.wav", Options: apiv1.Options{Transcribe: ptr(transcribe)}}, fakeMedia(4))
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	first := create(true)
	select {
	case <-tr.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the first transcription did not start")
	}
	waiting := create(true)
	w := waitJob(t, m, "o", waiting, 10*time.Second, isStatus(apiv1.StatusTranscribing))
	plain := create(false)
	waitJob(t, m, "o", plain, 10*time.Second, isStatus(apiv1.StatusDone))
	// The waiting job is still waiting, its progress where it stood.
	w2, err := m.Get(ctx, "o", waiting)
	if err != nil {
		t.Fatal(err)
	}
	if w2.Status != apiv1.StatusTranscribing || w2.Transcript == nil || w2.Transcript.Status != apiv1.TranscriptPending || w2.Progress < w.Progress {
		t.Errorf("waiting job: status %s transcript %+v progress %.1f (was %.1f)", w2.Status, w2.Transcript, w2.Progress, w.Progress)
	}
	close(tr.gate)
	for _, id := range []string{first, waiting} {
		j := waitJob(t, m, "o", id, 15*time.Second, isStatus(apiv1.StatusDone))
		if j.Transcript == nil || j.Transcript.Status != apiv1.TranscriptDone {
			t.Errorf("%s: transcript %+v", id, j.Transcript)
		}
	}
	if got := tr.peak.Load(); got != 1 {
		t.Errorf("peak concurrent transcriptions = %d, want 1", got)
	}
}

// fmtPtr formats an optional number for a message.
func fmtPtr(d *float64) string {
	if d == nil {
		return "null"
	}
	return fmt.Sprint(*d)
}

// TestTransientErrorRunsAgain: an error that is neither the input's nor
// the request's (a storage read, the database) runs the job again, up to
// transientAttempts runs, instead of failing it at once with code
// internal (a busy moment of the test machine failed a job so).
func TestTransientErrorRunsAgain(t *testing.T) {
	for _, c := range []struct {
		name  string
		fails int32
		want  apiv1.Status
		runs  int32
	}{
		{"once", 1, apiv1.StatusDone, 2},
		{"every time", 1000, apiv1.StatusFailed, transientAttempts},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &gateEngine{}
			g.analyzeErrs.Store(c.fails)
			m := testManager(t, t.TempDir(), g, nil)
			j, err := m.Create(context.Background(), CreateRequest{Owner: "o", Name: "talk.wav"}, fakeMedia(10))
			if err != nil {
				t.Fatal(err)
			}
			j = waitJob(t, m, "o", j.ID, 60*time.Second, func(j *apiv1.Job) bool { return !j.Status.Busy() })
			if j.Status != c.want || g.analyses.Load() != c.runs {
				t.Fatalf("status %s after %d analyses (error %+v); want %s after %d", j.Status, g.analyses.Load(), j.Error, c.want, c.runs)
			}
			if c.want == apiv1.StatusFailed && (j.Error == nil || j.Error.Code != apiv1.CodeInternal) {
				t.Errorf("error %+v, want code internal", j.Error)
			}
		})
	}
}
