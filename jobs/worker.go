package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/riverqueue/river"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
	"github.com/autocut-dev/autocut/transcribe"
)

// processTimeout bounds one run of a job (a render of a 3-hour video with
// the slow preset on a small machine stays well under it).
const processTimeout = 12 * time.Hour

// processArgs queues one run of a job; Gen must match the record's.
type processArgs struct {
	JobID string `json:"job_id"`
	Gen   int64  `json:"gen"`
}

// Kind names the River job kind.
func (processArgs) Kind() string { return "autocut_process" }

// processWorker runs a job: analyse, transcribe, plan, render.
type processWorker struct {
	river.WorkerDefaults[processArgs]
	m *Manager
}

// Timeout overrides River's 1-minute default.
func (w *processWorker) Timeout(*river.Job[processArgs]) time.Duration { return processTimeout }

// NextRetry retries soon: retries happen after a shutdown cancelled a run
// or a transient storage error.
func (w *processWorker) NextRetry(j *river.Job[processArgs]) time.Time {
	return time.Now().Add(time.Duration(j.Attempt) * time.Second)
}

// errCancelled is the cancel cause when the job was deleted or re-run.
var errCancelled = errors.New("job deleted or re-run")

// jobFailure is a failure recorded on the job (not retried); its code is
// ErrorCode(err), the same as an HTTP answer for that error would carry.
type jobFailure struct{ err error }

func (f *jobFailure) Error() string { return f.err.Error() }
func (f *jobFailure) Unwrap() error { return f.err }

func fail(err error) error { return &jobFailure{err: err} }

// Work runs one job run.
func (w *processWorker) Work(ctx context.Context, j *river.Job[processArgs]) error {
	m := w.m
	rec, err := getRecord(ctx, m.db.read, "", j.Args.JobID)
	if errors.Is(err, apiv1.ErrNotFound) {
		return nil // deleted
	}
	if err != nil {
		return err
	}
	if rec.Gen != j.Args.Gen || !rec.Status.Busy() {
		return nil // superseded by a newer run
	}
	if err := m.claim(ctx, rec.ID, rec.Gen); err != nil {
		if errors.Is(err, errLeaseHeld) {
			// A live worker runs this gen already (River retried a run it
			// thought stuck); should that worker die, the rescue task
			// re-enqueues the job.
			m.log.Info("run already held by another worker", "job", rec.ID, "gen", rec.Gen)
			return nil
		}
		return err
	}
	defer m.release(context.WithoutCancel(ctx), rec.ID, rec.Gen)
	ctx, cancel := context.WithCancelCause(ctx)
	// The watch ends before the run returns (and before its lease is
	// released above: a renewal after the release would hold it again).
	var watching sync.WaitGroup
	defer watching.Wait()
	defer cancel(nil)
	watching.Go(func() { m.watch(ctx, cancel, rec.ID, rec.Gen) })

	r := &run{m: m, rec: rec, gen: rec.Gen, log: m.log.With("job", rec.ID, "gen", rec.Gen)}
	err = r.do(ctx)
	superseded := errors.Is(context.Cause(ctx), errCancelled) || errors.Is(err, errStale)
	if err != nil && !superseded && ctx.Err() != nil {
		// Stopped from outside: River's cancellation (PostgreSQL delivers
		// JobCancel to the node running the job), a shutdown or a timeout.
		// The record tells whether the job was deleted or re-run meanwhile.
		cur, gerr := getRecord(context.WithoutCancel(ctx), m.db.read, "", rec.ID)
		superseded = errors.Is(gerr, apiv1.ErrNotFound) || (gerr == nil && cur.Gen != rec.Gen)
	}
	if len(r.created) > 0 && superseded {
		if _, gerr := getRecord(context.WithoutCancel(ctx), m.db.read, "", rec.ID); errors.Is(gerr, apiv1.ErrNotFound) {
			m.deleteBlobs(context.WithoutCancel(ctx), r.created...)
		}
	}
	switch {
	case err == nil:
		return nil
	case superseded:
		r.log.Info("run stopped: job deleted or re-run")
		return nil
	case errors.Is(err, errTranscriptionBusy):
		// Back in the queue without counting an attempt; the worker slot
		// is free meanwhile. (Each try writes the record a few times: not
		// more often than once a second; a transcription takes minutes.)
		return river.JobSnooze(max(m.cfg.PollInterval, time.Second))
	}
	if (errors.Is(err, syscall.ENOSPC) || errors.Is(err, errNoSpace)) && ctx.Err() == nil && time.Since(j.CreatedAt) < processTimeout {
		// The disk is full: the run waits for space as for an outage,
		// without counting a run (up to the time a run may take).
		r.log.Warn("run stopped: no space left on the server's disk; it runs again once there is space", "err", err, "disk", m.diskFull())
		return river.JobSnooze(outageRetry)
	}
	var jf *jobFailure
	if !errors.As(err, &jf) {
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return err // shutdown: River runs it again
		}
		if ctx.Err() == nil && time.Since(j.CreatedAt) < processTimeout {
			if oerr := m.outage(); oerr != nil {
				// The database or the media storage does not answer: the
				// run waits for them, without counting a run, as long as
				// a run may take (an outage outlasting that fails it as
				// below).
				r.log.Warn("run failed during an outage; it runs again once storage answers", "err", err, "outage", oerr)
				return river.JobSnooze(outageRetry)
			}
		}
		if ctx.Err() == nil && j.Attempt < transientAttempts {
			// Neither the input's fault nor the request's (storage, the
			// database, a tool that stopped): run again after a pause
			// (NextRetry), from the phases the record holds as done; the
			// job shows its phase meanwhile.
			r.log.Warn("run failed; it runs again", "attempt", j.Attempt, "err", err)
			return err
		}
		jf = &jobFailure{err: err}
	}
	return r.failed(context.WithoutCancel(ctx), jf)
}

// transientAttempts is how many runs an error that is not a job failure
// (storage, the database) gets before the job fails with code internal,
// when both answer (a run that fails while one of them does not waits
// for it, every outageRetry).
const transientAttempts = 3

// errNoSpace marks a run that failed for want of disk space.
var errNoSpace = errors.New("no space left on the server's disk")

// outageRetry is how soon a run that failed during an outage runs again.
const outageRetry = 2 * time.Second

// watch cancels a run when its record is deleted or re-run, wherever that
// happened (River's own cancellation does not reach a running worker on
// SQLite), and renews the run's lease. A run that cannot renew its lease
// before it expires stops: another worker may take the job over then.
func (m *Manager) watch(ctx context.Context, cancel context.CancelCauseFunc, id string, gen int64) {
	t := time.NewTicker(m.cfg.PollInterval)
	defer t.Stop()
	renewEvery := m.cfg.LeaseTTL / 3
	renewed := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(renewed) >= renewEvery {
			err := m.renew(ctx, id, gen)
			switch {
			case err == nil:
				renewed = time.Now()
			case errors.Is(err, errStale):
				cancel(errCancelled)
				return
			case time.Since(renewed) > m.cfg.LeaseTTL-m.cfg.PollInterval:
				m.log.Error("lost the lease of a run: stopping it", "job", id, "gen", gen, "err", err)
				cancel(errCancelled)
				return
			}
			continue
		}
		var g int64
		err := m.db.read.QueryRow(ctx, `SELECT gen FROM autocut_job WHERE id = ?`, id).Scan(&g)
		if isNoRows(err) || (err == nil && g != gen) {
			cancel(errCancelled)
			return
		}
	}
}

// run is one run of a job.
type run struct {
	m       *Manager
	rec     *record
	gen     int64
	log     *slog.Logger
	created []string // blob keys written by this run

	phases, phase int     // progress: phase index of phases
	floor         float64 // progress never shown below: a resumed run's (snoozed, retried, taken over) saved progress
	status        apiv1.Status
	lastSave      time.Time
	lastPct       float64
}

func (r *run) do(ctx context.Context) error {
	m, rec := r.m, r.rec
	// A new run (creation, re-run) starts at 0; a resumed one (snoozed,
	// retried, taken over from a dead worker) counts fewer phases when its
	// analysis is done, and its progress holds where it stood until the
	// run passes it: a poller never sees it go back.
	r.floor = rec.Progress
	needAnalysis := rec.AnalysisKey == ""
	needTranscript := rec.Transcribe && (rec.Transcript == nil || rec.Transcript.Status != apiv1.TranscriptDone)
	r.phases = 1 // plan
	for _, b := range []bool{needAnalysis, needTranscript, rec.Render} {
		if b {
			r.phases++
		}
	}
	if rec.OriginalExpired && (needAnalysis || needTranscript || rec.Render) {
		return fail(fmt.Errorf("%w: the original was deleted after the retention period", apiv1.ErrOriginalExpired))
	}
	dir, err := os.MkdirTemp(m.scratch, rec.ID+"-*")
	if err != nil {
		return fmt.Errorf("scratch dir: %w", err)
	}
	defer os.RemoveAll(dir)
	in := &original{m: m, key: rec.OriginalKey, dir: dir}
	defer in.close()

	var a *dsp.Analysis
	if needAnalysis {
		if err := r.enter(ctx, apiv1.StatusAnalyzing); err != nil {
			return err
		}
		start := time.Now()
		if rec.TracksMode != "" {
			a, err = r.analyzeTracks(ctx, in)
		} else {
			a, err = r.analyze(ctx, in, needTranscript || rec.Render)
		}
		if err != nil {
			return err
		}
		m.metrics.phase.WithLabelValues("analyze").Observe(time.Since(start).Seconds())
		r.phase++
	} else {
		if a, err = m.analysis(ctx, rec.AnalysisKey); err != nil {
			return err
		}
	}
	if err := checkFormatFor(rec.Input.Type, rec.Export.Format); err != nil {
		return fail(err)
	}

	if needTranscript {
		if err := r.enter(ctx, apiv1.StatusTranscribing); err != nil {
			return err
		}
		if err := r.transcribe(ctx, in); err != nil {
			return err
		}
		r.phase++
	}

	p, err := m.makePlan(ctx, a, rec)
	if errors.Is(err, plan.ErrNothingToKeep) || errors.Is(err, plan.ErrInvalidParams) || errors.Is(err, apiv1.ErrTooManyCuts) {
		return fail(err)
	}
	if err != nil {
		return err
	}
	rec.Plan = p
	r.phase++

	if rec.Render {
		if err := r.enter(ctx, apiv1.StatusRendering); err != nil {
			return err
		}
		input, err := in.path(ctx)
		if err != nil {
			return err
		}
		start := time.Now()
		if err := r.render(ctx, input, dir, a, p); err != nil {
			return err
		}
		m.metrics.phase.WithLabelValues("render").Observe(time.Since(start).Seconds())
		r.phase++
	}
	rec.Status, rec.Progress, rec.Error, rec.Render = apiv1.StatusDone, 100, nil, false
	rec.UpdatedAt = time.Now().UTC()
	if err := saveRecord(ctx, m.db.write, rec, r.gen); err != nil {
		return err
	}
	m.metrics.finished.WithLabelValues(string(apiv1.StatusDone), "").Inc()
	return nil
}

// enter starts a phase: status set, progress at the phase's start. It saves
// the whole record, so that what the earlier phases found (the input's
// duration and type, the analysis, the plan) shows while this phase runs:
// a rendering job has its plan and timelines.
func (r *run) enter(ctx context.Context, status apiv1.Status) error {
	r.status = status
	r.rec.Status = status
	r.lastPct, r.lastSave = r.percent(0), time.Now()
	r.rec.Progress = r.lastPct
	r.rec.UpdatedAt = r.lastSave.UTC()
	return saveRecord(ctx, r.m.db.write, r.rec, r.gen)
}

// percent is the job's progress at the fraction f of the current phase:
// never under the floor, 100 only when done.
func (r *run) percent(f float64) float64 {
	pct := 100 * (float64(r.phase) + min(max(f, 0), 1)) / float64(r.phases)
	pct = float64(int(pct*10)) / 10
	return min(max(pct, r.floor), 99.9)
}

// progress records the fraction f of the current phase (throttled).
func (r *run) progress(ctx context.Context, f float64) error {
	pct := r.percent(f)
	// Throttled: at most every 250 ms unless it moved 10 points.
	if d := pct - r.lastPct; d < 1 || (d < 10 && time.Since(r.lastSave) < 250*time.Millisecond) {
		return nil
	}
	r.lastPct, r.lastSave = pct, time.Now()
	r.rec.Progress = pct
	return setProgress(ctx, r.m.db.write, r.rec.ID, r.gen, r.status, pct)
}

// progressFunc adapts progress for dsp.Progress callbacks.
func (r *run) progressFunc(ctx context.Context) dsp.Progress {
	return func(f float64) {
		if err := r.progress(ctx, f); err != nil && errors.Is(err, errStale) {
			r.log.Info("progress: job changed meanwhile")
		}
	}
}

// analyze reads the original once and analyses it; keep says whether a
// later phase of the run needs the original as a file.
func (r *run) analyze(ctx context.Context, in *original, keep bool) (*dsp.Analysis, error) {
	m, rec := r.m, r.rec
	var a *dsp.Analysis
	err := in.read(ctx, keep, func(src io.Reader) (err error) {
		a, err = m.engine.Analyze(ctx, src, rec.Input.Name, m.cfg.MaxDuration, r.progressFunc(ctx))
		return err
	})
	if err != nil {
		if tl := (*dsp.TooLongError)(nil); errors.As(err, &tl) {
			d := tl.Duration // what the header gives: the job shows it
			rec.Input.Duration = &d
		}
		if errors.Is(err, dsp.ErrUnsupportedFormat) || errors.Is(err, dsp.ErrTooLong) {
			return nil, fail(err)
		}
		return nil, fmt.Errorf("analyse: %w", err)
	}
	if err := m.checkDuration(a.Input.Duration); err != nil {
		d := a.Input.Duration
		rec.Input.Duration = &d
		return nil, err
	}
	a.Input.Name = rec.Input.Name
	key := "analyses/" + rec.ID + ".bin"
	if err := r.put(ctx, key, func(w io.Writer) error { _, err := a.WriteTo(w); return err }); err != nil {
		return nil, err
	}
	m.cache.put(key, a)
	d := a.Input.Duration
	rec.AnalysisKey = key
	info := a.Input
	rec.Info = &info
	rec.Input.Type = a.Input.Type
	rec.Input.Duration = &d
	return a, nil
}

func (m *Manager) checkDuration(sec float64) error {
	if max := m.cfg.MaxDuration.Seconds(); sec > max {
		return fail(fmt.Errorf("%w: %.0f s is longer than the %.0f s limit", dsp.ErrTooLong, sec, max))
	}
	return nil
}

// errTranscriptionBusy ends a run whose transcription waits for the
// server's one transcription slot: the run saves what it has done and gives
// its worker slot back (Work snoozes it), so that waiting for a
// transcription never keeps other jobs from the workers.
var errTranscriptionBusy = errors.New("the transcription slot is busy")

func (r *run) transcribe(ctx context.Context, in *original) error {
	m, rec := r.m, r.rec
	if err := m.transcriberReady(ctx); err != nil {
		return fail(err)
	}
	rec.Transcript = &transcribe.Transcript{Status: apiv1.TranscriptPending}
	select { // one transcription at a time per server; waiting shows progress 0
	case m.transSem <- struct{}{}:
	default:
		// The analysis is kept: the next try starts here.
		if err := saveRecord(ctx, m.db.write, rec, r.gen); err != nil {
			return err
		}
		return errTranscriptionBusy
	}
	defer func() { <-m.transSem }()
	input, err := in.path(ctx)
	if err != nil {
		return err
	}
	rec.Transcript.Status = apiv1.TranscriptRunning
	if err := saveRecord(ctx, m.db.write, rec, r.gen); err != nil {
		return err
	}
	start := time.Now()
	t, err := m.cfg.Transcriber.Transcribe(ctx, input, rec.Language, r.progressFunc(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		rec.Transcript = &transcribe.Transcript{Status: apiv1.TranscriptFailed}
		if errors.Is(err, transcribe.ErrUnavailable) {
			return fail(fmt.Errorf("transcribe: %w", err))
		}
		return fail(fmt.Errorf("%w: %w", apiv1.ErrTranscriptionFailed, err))
	}
	m.metrics.phase.WithLabelValues("transcribe").Observe(time.Since(start).Seconds())
	t.Status = apiv1.TranscriptDone
	rec.Transcript = t
	return nil
}

// render writes the cut file straight into the output blob (the engine
// may render into a file in dir first: see Engine.Render).
func (r *run) render(ctx context.Context, input, dir string, a *dsp.Analysis, p *plan.Plan) error {
	m, rec := r.m, r.rec
	name := m.engine.OutputName(rec.Input.Name, rec.Export.Format)
	key := fmt.Sprintf("outputs/%s/%d/%s", rec.ID, r.gen, name)
	var (
		res       *Rendered
		renderErr error
	)
	err := r.put(ctx, key, func(w io.Writer) error {
		if len(rec.Tracks) > 0 {
			res, renderErr = m.renderTracks(ctx, rec, input, p, w, dir, r.progressFunc(ctx))
		} else {
			res, renderErr = m.engine.Render(ctx, input, a, p, rec.Export, w, dir, r.progressFunc(ctx))
		}
		return renderErr
	}, &blob.WriterOptions{ContentType: transcode.ContentType(transcode.ContainerOf(rec.Export.Format)),
		ContentDisposition: fmt.Sprintf("attachment; filename=%q", name)})
	switch {
	case renderErr != nil && ctx.Err() != nil:
		return renderErr
	case renderErr != nil && (errors.Is(renderErr, syscall.ENOSPC) || m.diskFull() != nil):
		// The encoder or the write ran out of disk (an encoder says so
		// only in its output: the disk is looked at): not the input's
		// fault, the run waits for space (Work).
		return fmt.Errorf("render: %w: %w", errNoSpace, renderErr)
	case renderErr != nil && ErrorCode(renderErr) != apiv1.CodeInternal:
		return fail(renderErr) // bad options, unreadable input, nothing left to keep
	case renderErr != nil:
		return fail(fmt.Errorf("%w: %w", apiv1.ErrRenderFailed, renderErr))
	case err != nil:
		return err // storage: retried
	}
	rec.Output = &apiv1.Output{Format: res.Format, Duration: res.Duration, Name: name, Size: res.Size}
	rec.OutputKey, rec.OutputAt, rec.OutputExpired = key, time.Now().UTC(), false
	return nil
}

// put writes a blob through fn; a failed write keeps nothing.
func (r *run) put(ctx context.Context, key string, fn func(w io.Writer) error, opts ...*blob.WriterOptions) error {
	o := r.m.writerOptions()
	if len(opts) > 0 {
		o.ContentType, o.ContentDisposition = opts[0].ContentType, opts[0].ContentDisposition
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := r.m.bucket.NewWriter(wctx, key, o)
	if err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	if err := fn(r.m.writer(key, w)); err != nil {
		cancel()
		_ = w.Close()
		return fmt.Errorf("store %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	r.created = append(r.created, key)
	return nil
}

// failed records a failure on the job (the River job completes: no retry).
func (r *run) failed(ctx context.Context, jf *jobFailure) error {
	rec := r.rec
	code := ErrorCode(jf.err)
	if !code.IsJobCode() {
		r.log.Error("a job failure without a job error code: recorded as internal", "code", code, "err", jf.err)
		code = apiv1.CodeInternal
	}
	rec.Status, rec.Error, rec.Render = apiv1.StatusFailed, &apiv1.JobError{Code: code, Message: ClientMessage(jf.err)}, false
	rec.UpdatedAt = time.Now().UTC()
	if err := saveRecord(ctx, r.m.db.write, rec, r.gen); err != nil {
		if errors.Is(err, errStale) {
			return nil
		}
		return err
	}
	r.m.metrics.finished.WithLabelValues(string(apiv1.StatusFailed), string(code)).Inc()
	// The client sees ClientMessage; the details (paths, tool output) are here.
	r.m.log.Info("job failed", "job", rec.ID, "code", code, "err", jf.err)
	return nil
}

func isBlobNotFound(err error) bool { return gcerrors.Code(err) == gcerrors.NotFound }
