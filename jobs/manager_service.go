package jobs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
	"github.com/autocut-dev/autocut/transcribe"
)

// sniffLen is how many leading bytes Create sniffs.
const sniffLen = 4096

// audioOnly are sniffed containers that never hold video.
var audioOnly = map[string]bool{"wav": true, "rf64": true, "w64": true, "mp3": true, "flac": true, "aac": true, "aiff": true}

// sniffedType is the input type known from the first bytes alone: "audio"
// for a container that never holds video, or an MP4 whose major brand is
// an audio one (M4A, M4B, M4P); "" for the containers that may hold video
// (MP4, QuickTime, Matroska/WebM, AVI, MPEG-TS, Ogg), which the analysis
// tells apart.
func sniffedType(container string, head []byte) string {
	if audioOnly[container] {
		return "audio"
	}
	if container == "mp4" && len(head) >= 12 {
		switch string(head[8:12]) {
		case "M4A ", "M4B ", "M4P ":
			return "audio"
		}
	}
	return ""
}

func newID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "job_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{plan.ErrInvalidParams}, args...)...)
}

func applyParams(p *plan.Params, in *apiv1.ParamsInput) {
	if in == nil {
		return
	}
	if in.ThresholdDb != nil {
		v := *in.ThresholdDb
		p.ThresholdDb = &v
	}
	if in.MinSilenceSec != nil {
		p.MinSilenceSec = *in.MinSilenceSec
	}
	if in.KeepSilenceMs != nil {
		p.KeepSilenceMs = *in.KeepSilenceMs
	}
	if in.MinSpeechMs != nil {
		p.MinSpeechMs = *in.MinSpeechMs
	}
	if in.Crosstalk != nil {
		p.Crosstalk = *in.Crosstalk
	}
}

func applyExport(e *apiv1.Export, in *apiv1.ExportInput) error {
	if in == nil {
		return nil
	}
	if err := CheckExport(in); err != nil {
		return err
	}
	if in.Format != nil {
		e.Format = *in.Format
	}
	if in.Normalize != nil {
		e.Normalize = *in.Normalize
	}
	if in.Denoise != nil {
		e.Denoise = *in.Denoise
	}
	if in.Rumble != nil {
		e.Rumble = *in.Rumble
	}
	if in.CutFillers != nil {
		e.CutFillers = *in.CutFillers
	}
	if in.GateBleed != nil {
		e.GateBleed = *in.GateBleed
	}
	return nil
}

// checkGate refuses export.gateBleed on a job of one track: there is no
// other track whose voice could leak into it.
func checkGate(e apiv1.Export, tracksMode string) error {
	if e.GateBleed && tracksMode == "" {
		return invalid("export.gateBleed needs a recording of several tracks (options.tracks \"streams\" or \"channels\")")
	}
	return nil
}

// checkFormatFor refuses a video export for a known audio-only input.
func checkFormatFor(inputType, format string) error {
	if inputType == "audio" && transcode.NeedsVideo(format) {
		return invalid("export.format %q needs a video input; this input is audio (use mp3, mp3_320, wav or m4a)", format)
	}
	return nil
}

// transcriberReady reports transcribe.ErrUnavailable when transcription cannot run.
func (m *Manager) transcriberReady(ctx context.Context) error {
	if m.cfg.Transcriber == nil {
		return fmt.Errorf("%w: no transcription engine is configured on this server", transcribe.ErrUnavailable)
	}
	if err := m.cfg.Transcriber.Available(ctx); err != nil {
		if errors.Is(err, transcribe.ErrUnavailable) {
			return err
		}
		return fmt.Errorf("%w: %s: %v", transcribe.ErrUnavailable, m.cfg.Transcriber.Name(), err)
	}
	return nil
}

// Create streams media into storage and queues the job's analysis.
func (m *Manager) Create(ctx context.Context, req CreateRequest, media io.Reader) (_ *apiv1.Job, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	o := req.Options
	if pr, err := plan.LookupPreset(o.Preset); err == nil {
		o.Preset = pr.Name // the canonical name ("Podcast" is podcast); none given is the default's
	}
	params, export, err := m.engine.Preset(o.Preset)
	if err != nil {
		return nil, err
	}
	if export.Format == "" {
		export.Format = transcode.DefaultFormat
	}
	if export.Normalize == "" {
		export.Normalize = plan.NormalizeNone
	}
	wantTranscribe := o.Transcribe != nil && *o.Transcribe
	export.CutFillers = wantTranscribe
	applyParams(&params, o.Params)
	if err := m.engine.Validate(params); err != nil {
		return nil, err
	}
	if err := applyExport(&export, o.Export); err != nil {
		return nil, err
	}
	if wantTranscribe {
		if err := m.transcriberReady(ctx); err != nil {
			return nil, err
		}
	}
	lang, err := language(o.Language)
	if err != nil {
		return nil, err
	}
	if err := checkTracksMode(o.Tracks); err != nil {
		return nil, err
	}
	if err := checkGate(export, o.Tracks); err != nil {
		return nil, err
	}
	name := req.Name
	if name == "" {
		name = "input"
	}

	head := make([]byte, sniffLen)
	n, err := io.ReadFull(media, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	head = head[:n]
	if n == 0 {
		err := fmt.Errorf("%w: the file is empty", dsp.ErrUnsupportedFormat)
		return nil, withClientMessage(err, err.Error())
	}
	container := m.engine.Sniff(head)
	if container == "" {
		// The first bytes go to the log only: for a URL job they are
		// the fetched resource's.
		return nil, withClientMessage(fmt.Errorf("%w: content is not audio or video this server reads (starts with %q)", dsp.ErrUnsupportedFormat, head[:min(n, 12)]),
			"unsupported format: the content is not audio or video this server reads")
	}
	inputType := sniffedType(container, head)
	if err := checkFormatFor(inputType, export.Format); err != nil {
		return nil, err
	}

	maxBytes, err := m.lengthLimit(container, head, req.Size, name)
	if err != nil {
		return nil, err // too long by its header: nothing stored
	}
	id := newID()
	key := "originals/" + id
	var body io.Reader = io.MultiReader(bytes.NewReader(head), media)
	if maxBytes > 0 {
		body = &durationLimitReader{r: body, left: maxBytes, max: maxBytes, limit: m.cfg.MaxDuration.Seconds()}
	}
	size, err := m.store(ctx, key, body)
	if err != nil {
		return nil, err
	}
	m.log.Debug("stored original", "job", id, "bytes", size, "container", container)

	now := time.Now().UTC()
	rec := &record{
		ID: id, Owner: req.Owner, Status: apiv1.StatusAnalyzing, Gen: 1, Version: 1, CreatedAt: now, UpdatedAt: now, OriginalAt: now,
		Input:     apiv1.Input{Name: name, Type: inputType},
		Container: container, Preset: o.Preset, Params: params, Export: export,
		Transcribe: wantTranscribe, Language: lang, AutoExport: o.AutoExport == nil || *o.AutoExport,
		OriginalKey: key, TracksMode: o.Tracks,
	}
	rec.Render = rec.AutoExport
	if wantTranscribe {
		rec.Transcript = &transcribe.Transcript{Status: apiv1.TranscriptPending}
	}
	err = m.q.InTx(ctx, func(ex execer, enqueue enqueueFunc) error {
		rid, err := enqueue(ctx, processArgs{JobID: id, Gen: 1}, processInsertOpts())
		if err != nil {
			return err
		}
		rec.RiverID = rid
		return insertRecord(ctx, ex, rec)
	})
	if err != nil {
		_ = m.bucket.Delete(context.WithoutCancel(ctx), key)
		return nil, err
	}
	return rec.job(), nil
}

// store streams r into the bucket under key with the size limit.
func (m *Manager) store(ctx context.Context, key string, r io.Reader) (int64, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := m.bucket.NewWriter(wctx, key, m.writerOptions())
	if err != nil {
		return 0, fmt.Errorf("store upload: %w", err)
	}
	limit := m.cfg.MaxInputBytes
	n, err := io.Copy(m.writer(key, w), io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%w: more than %d bytes", apiv1.ErrFileTooLarge, limit)
	} else if err != nil {
		err = fmt.Errorf("store upload: %w", err)
	}
	if err != nil {
		cancel() // aborts the write: nothing is kept
		_ = w.Close()
		return n, err
	}
	if err := w.Close(); err != nil {
		return n, fmt.Errorf("store upload: %w", err)
	}
	return n, nil
}

// Get returns one of the owner's jobs.
func (m *Manager) Get(ctx context.Context, owner, id string) (_ *apiv1.Job, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	var r *record
	if m.db.getJob != nil && owner != "" {
		r, err = scanRecord(m.db.getJob.QueryRow(ctx, id, owner))
		if isNoRows(err) {
			err = fmt.Errorf("%w: %s", apiv1.ErrNotFound, id)
		} else if err != nil {
			err = fmt.Errorf("load job %s: %w", id, err)
		}
	} else {
		r, err = getRecord(ctx, m.db.read, owner, id)
	}
	if err != nil {
		return nil, err
	}
	return r.job(), nil
}

// List returns the owner's jobs newest first, at most limit (<= 50), after
// cursor. Their plans leave out the cut and keep lists (CutsOmitted): a
// page costs what 50 small records cost, whatever cut lists they hold.
func (m *Manager) List(ctx context.Context, owner string, limit int, cursor string) (_ []*apiv1.Job, _ string, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, "", err
	}
	if limit <= 0 || limit > apiv1.MaxListLimit {
		limit = apiv1.MaxListLimit
	}
	q := `SELECT ` + listCols + ` FROM autocut_job WHERE owner = ?`
	args := []any{owner}
	if cursor != "" {
		t, id, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (created_at < ? OR (created_at = ? AND id < ?))`
		args = append(args, t, t, id)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := m.db.read.Query(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	var recs []*record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list jobs: %w", err)
		}
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	next := ""
	if len(recs) > limit {
		recs = recs[:limit]
		next = encodeCursor(recs[limit-1])
	}
	jobs := make([]*apiv1.Job, len(recs))
	for i, r := range recs {
		if r.Plan != nil { // the list shows plans without their lists (a summary's are nil)
			r.Plan.Cuts, r.Plan.Keep = nil, nil
		}
		jobs[i] = r.job()
		if jobs[i].Plan != nil {
			jobs[i].Plan.CutsOmitted = true
		}
	}
	return jobs, next, nil
}

// Update applies a patch: new params/export re-plan from the stored
// analysis; action "export" re-renders, "transcribe" transcribes first.
func (m *Manager) Update(ctx context.Context, owner, id string, p apiv1.Patch) (_ *apiv1.Job, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	switch p.Action {
	case "", apiv1.ActionExport, apiv1.ActionTranscribe:
	default:
		return nil, invalid("action must be \"export\" or \"transcribe\" (got %q)", p.Action)
	}
	rec, err := getRecord(ctx, m.db.read, owner, id)
	if err != nil {
		return nil, err
	}
	if rec.Status.Busy() {
		return nil, fmt.Errorf("%w: job %s is %s", apiv1.ErrProcessing, id, rec.Status)
	}
	oldGen := rec.Gen
	if p.Fillers != nil {
		if p.Cuts != nil {
			return nil, invalid("fillers cannot go with cuts: a cut list is exact; review the fillers, or send the cuts")
		}
		if p.Action == "transcribe" || p.Language != nil {
			return nil, invalid("fillers cannot go with a new transcription (action transcribe or language): their ids are the current transcript's")
		}
		if rec.Transcript == nil || rec.Transcript.Status != apiv1.TranscriptDone {
			return nil, invalid("fillers: job %s has no finished transcript to review (PATCH action transcribe makes one)", id)
		}
		if err := transcribe.Review(rec.Transcript, p.Fillers.Accept, p.Fillers.Reject); err != nil {
			return nil, invalid("fillers: %v", err)
		}
		rec.Cuts = nil // plan from the detection and the reviewed fillers
	}
	action := p.Action
	if p.Language != nil {
		lang, err := language(p.Language)
		if err != nil {
			return nil, err
		}
		if lang != rec.Language {
			rec.Language = lang
			if rec.Transcribe && action == "" {
				action = apiv1.ActionTranscribe // the transcript was of the other language
			}
		}
	}
	if p.Cuts != nil {
		if action == "transcribe" {
			return nil, invalid("cuts cannot go with action transcribe: transcription plans the cuts again")
		}
		if rec.AnalysisKey == "" && !rec.Status.Busy() {
			return nil, errFinishedWithout(id, rec.Status, "analysis")
		}
		if rec.AnalysisKey == "" {
			return nil, fmt.Errorf("%w: job %s is not analysed yet: a cut list needs the input's duration", apiv1.ErrProcessing, id)
		}
	}
	if p.Params != nil || action == "transcribe" {
		rec.Cuts = nil // plan from the detection again
	}
	if p.Cuts != nil {
		rec.Cuts = make([]plan.Range, len(*p.Cuts))
		for i, c := range *p.Cuts {
			rec.Cuts[i] = plan.Range(c)
		}
	}
	applyParams(&rec.Params, p.Params)
	if err := m.engine.Validate(rec.Params); err != nil {
		return nil, err
	}
	if err := applyExport(&rec.Export, p.Export); err != nil {
		return nil, err
	}
	if err := checkFormatFor(rec.Input.Type, rec.Export.Format); err != nil {
		return nil, err
	}
	if err := checkGate(rec.Export, rec.TracksMode); err != nil {
		return nil, err
	}
	if action == "" && rec.AutoExport && (p.Params != nil || p.Export != nil || p.Cuts != nil || p.Fillers != nil) {
		action = "export" // changed settings of an auto-exported job re-render
	}
	if action == "transcribe" {
		if err := m.transcriberReady(ctx); err != nil {
			return nil, err
		}
		rec.Transcribe = true
		if p.Export == nil || p.Export.CutFillers == nil {
			rec.Export.CutFillers = true
		}
		rec.Transcript = &transcribe.Transcript{Status: apiv1.TranscriptPending}
		rec.Render = rec.AutoExport || rec.Output != nil
	}
	if action == "export" {
		rec.Render = true
	}
	if action != "" && rec.OriginalExpired {
		return nil, fmt.Errorf("%w: the original of job %s was deleted after the retention period; upload it again", apiv1.ErrOriginalExpired, id)
	}
	// Judge what can be judged now: a plan with nothing to keep is refused
	// before anything is queued (no transcription pending to add cuts).
	var newPlan *plan.Plan
	if rec.AnalysisKey != "" && action != "transcribe" {
		a, err := m.analysis(ctx, rec.AnalysisKey)
		if err != nil {
			return nil, err
		}
		newPlan, err = m.makePlan(ctx, a, rec)
		if err != nil {
			return nil, err
		}
	}
	now := time.Now().UTC()
	rec.UpdatedAt = now
	var oldOutput string
	if action == "" {
		if newPlan != nil {
			rec.Plan = newPlan
		}
		err = m.q.InTx(ctx, func(ex execer, _ enqueueFunc) error { return saveRecord(ctx, ex, rec, oldGen) })
	} else {
		rec.Gen++
		rec.Error = nil
		rec.Progress = 0
		switch {
		case rec.AnalysisKey == "":
			rec.Status = apiv1.StatusAnalyzing
		case action == "transcribe":
			rec.Status = apiv1.StatusTranscribing
		default:
			rec.Status = apiv1.StatusRendering
		}
		if newPlan != nil {
			rec.Plan = newPlan
		}
		if rec.Render && rec.OutputKey != "" {
			oldOutput = rec.OutputKey
			rec.Output, rec.OutputKey, rec.OutputAt = nil, "", time.Time{}
		}
		err = m.q.InTx(ctx, func(ex execer, enqueue enqueueFunc) error {
			rid, err := enqueue(ctx, processArgs{JobID: id, Gen: rec.Gen}, processInsertOpts())
			if err != nil {
				return err
			}
			rec.RiverID = rid
			return saveRecord(ctx, ex, rec, oldGen)
		})
	}
	if errors.Is(err, errStale) {
		return nil, fmt.Errorf("%w: job %s changed meanwhile", apiv1.ErrProcessing, id)
	}
	if err != nil {
		return nil, err
	}
	if oldOutput != "" {
		m.deleteBlobs(context.WithoutCancel(ctx), oldOutput)
	}
	return rec.job(), nil
}

// errFinishedWithout is the error of a request for what a run makes (what:
// "analysis", "plan") of a job that is no longer running and has none, a
// failed one: apiv1.ErrNotRendered, as a download of a failed job
// answers, not apiv1.ErrProcessing, which would tell the client to wait
// for a job that does not change. A PATCH with an action runs it again.
func errFinishedWithout(id string, status apiv1.Status, what string) error {
	msg := fmt.Sprintf("job %s has no %s and is not being processed (status %s): see its error; PATCH action export runs it again", id, what, status)
	return withClientMessage(fmt.Errorf("%w: %s", apiv1.ErrNotRendered, msg), msg)
}

// Delete cancels running work and removes the job's files and record.
func (m *Manager) Delete(ctx context.Context, owner, id string) (err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return err
	}
	var rec *record
	err = m.q.InTx(ctx, func(ex execer, _ enqueueFunc) error {
		r, err := getRecord(ctx, ex, owner, id)
		if err != nil {
			return err
		}
		rec = r
		_, err = ex.Exec(ctx, `DELETE FROM autocut_job WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return err
	}
	// The worker notices the missing record within PollInterval and stops;
	// a queued River job is cancelled so it never starts.
	if rec.Status.Busy() && rec.RiverID != 0 {
		if err := m.q.Cancel(ctx, rec.RiverID); err != nil {
			m.log.Warn("cancel queued work", "job", id, "err", err)
		}
	}
	m.deleteBlobs(context.WithoutCancel(ctx), rec.OriginalKey, rec.AnalysisKey, rec.OutputKey)
	if rec.AnalysisKey != "" {
		m.cache.drop(rec.AnalysisKey)
	}
	for _, t := range rec.Tracks {
		if t.AnalysisKey != rec.AnalysisKey {
			m.deleteBlobs(context.WithoutCancel(ctx), t.AnalysisKey)
			m.cache.drop(t.AnalysisKey)
		}
	}
	return nil
}

func (m *Manager) deleteBlobs(ctx context.Context, keys ...string) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if err := m.bucket.Delete(ctx, k); err != nil && !isBlobNotFound(err) {
			m.log.Warn("delete file", "key", k, "err", err)
			continue
		}
		m.pruneDirs(k)
	}
}

// OpenOutput opens the rendered file.
func (m *Manager) OpenOutput(ctx context.Context, owner, id string) (_ *Download, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	rec, err := getRecord(ctx, m.db.read, owner, id)
	if err != nil {
		return nil, err
	}
	if err := noOutput(rec); err != nil {
		return nil, err
	}
	r, err := m.bucket.NewReader(ctx, rec.OutputKey, nil)
	if err != nil {
		if isBlobNotFound(err) {
			return nil, fmt.Errorf("%w: the rendered file of job %s is gone", apiv1.ErrOutputExpired, id)
		}
		return nil, fmt.Errorf("open rendered file: %w", err)
	}
	return &Download{ReadSeekCloser: r, Name: rec.Output.Name, ContentType: transcode.ContentType(rec.Output.Format),
		ModTime: r.ModTime(), Size: r.Size()}, nil
}

// noOutput says why a job has no rendered file to download (nil when it
// has one).
func noOutput(rec *record) error {
	if rec.Output != nil && rec.OutputKey != "" {
		return nil
	}
	id := rec.ID
	switch {
	case rec.OutputExpired && rec.OriginalExpired:
		return fmt.Errorf("%w: the rendered file of job %s was deleted after the retention period, and its original before it; upload the file again", apiv1.ErrOutputExpired, id)
	case rec.OutputExpired:
		return fmt.Errorf("%w: the rendered file of job %s was deleted after the retention period; re-export it (PATCH action export)", apiv1.ErrOutputExpired, id)
	case rec.Status.Busy():
		return fmt.Errorf("%w: job %s is %s; its rendered file is not ready yet", apiv1.ErrProcessing, id, rec.Status)
	case rec.Status == apiv1.StatusFailed:
		return fmt.Errorf("%w: job %s failed; it has no rendered file (see its error; PATCH action export retries)", apiv1.ErrNotRendered, id)
	}
	return fmt.Errorf("%w: job %s has no rendered file (it was created with autoExport false): render it with PATCH action export", apiv1.ErrNotRendered, id)
}

// OpenOriginal opens the uploaded original, for playing it beside the cut.
func (m *Manager) OpenOriginal(ctx context.Context, owner, id string) (_ *Download, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	rec, err := getRecord(ctx, m.db.read, owner, id)
	if err != nil {
		return nil, err
	}
	if rec.OriginalExpired || rec.OriginalKey == "" {
		return nil, fmt.Errorf("%w: the original of job %s was deleted after the retention period", apiv1.ErrOriginalExpired, id)
	}
	r, err := m.bucket.NewReader(ctx, rec.OriginalKey, nil)
	if err != nil {
		if isBlobNotFound(err) {
			return nil, fmt.Errorf("%w: the original of job %s is gone", apiv1.ErrOriginalExpired, id)
		}
		return nil, fmt.Errorf("open original: %w", err)
	}
	return &Download{ReadSeekCloser: r, Name: rec.Input.Name, ContentType: originalType(rec),
		ModTime: r.ModTime(), Size: r.Size()}, nil
}

// originalType is the media type of a stored original, from the container
// sniffed at upload (or found by the analysis) and whether it has video.
func originalType(rec *record) string {
	c := rec.Container
	if rec.Info != nil && rec.Info.Format != "" {
		c = rec.Info.Format
	}
	video := rec.Input.Type == "video"
	switch c {
	case "wav", "rf64":
		return "audio/wav"
	case "mp3":
		return "audio/mpeg"
	case "flac":
		return "audio/flac"
	case "ogg":
		return "audio/ogg"
	case "mp4", "mov", "m4a":
		if video {
			return "video/mp4"
		}
		return "audio/mp4"
	case "matroska", "webm":
		if video {
			return "video/webm"
		}
		return "audio/webm"
	}
	return "application/octet-stream"
}

// TimelineSource returns the plan and input info for timeline exports.
func (m *Manager) TimelineSource(ctx context.Context, owner, id string) (_ *TimelineSource, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	rec, err := getRecord(ctx, m.db.read, owner, id)
	if err != nil {
		return nil, err
	}
	if (rec.Plan == nil || rec.Info == nil) && !rec.Status.Busy() {
		return nil, errFinishedWithout(id, rec.Status, "plan")
	}
	if rec.Plan == nil || rec.Info == nil {
		return nil, fmt.Errorf("%w: job %s has no plan yet (status %s)", apiv1.ErrProcessing, id, rec.Status)
	}
	return &TimelineSource{Plan: rec.Plan, Info: *rec.Info}, nil
}

// Preview re-plans from the stored analysis with other params, without
// rendering, and says which of the analysis's warnings hold for that plan.
func (m *Manager) Preview(ctx context.Context, owner, id string, in apiv1.ParamsInput) (_ *apiv1.Preview, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	rec, err := getRecord(ctx, m.db.read, owner, id)
	if err != nil {
		return nil, err
	}
	if rec.AnalysisKey == "" && !rec.Status.Busy() {
		return nil, errFinishedWithout(id, rec.Status, "analysis")
	}
	if rec.AnalysisKey == "" {
		return nil, fmt.Errorf("%w: job %s is not analysed yet", apiv1.ErrProcessing, id)
	}
	p := rec.Params
	applyParams(&p, &in)
	if err := m.engine.Validate(p); err != nil {
		return nil, err
	}
	a, err := m.analysis(ctx, rec.AnalysisKey)
	if err != nil {
		return nil, err
	}
	pl, err := m.planFor(ctx, rec, a, p, fillerCuts(rec))
	if err != nil {
		return nil, err
	}
	return &apiv1.Preview{Plan: *wirePlan(pl), Warnings: plan.Warnings(a.Warnings, pl)}, nil
}

// Envelope returns about points levels of the original (dBFS): the loudest
// RMS frame of each bucket, so short words stay visible; each track's, for
// a job of several tracks; and the analysis's levels.
func (m *Manager) Envelope(ctx context.Context, owner, id string, q EnvelopeQuery) (_ *Envelope, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	rec, err := getRecord(ctx, m.db.read, owner, id)
	if err != nil {
		return nil, err
	}
	if rec.AnalysisKey == "" && !rec.Status.Busy() {
		return nil, errFinishedWithout(id, rec.Status, "analysis")
	}
	if rec.AnalysisKey == "" {
		return nil, fmt.Errorf("%w: job %s is not analysed yet", apiv1.ErrProcessing, id)
	}
	a, err := m.analysis(ctx, rec.AnalysisKey)
	if err != nil {
		return nil, err
	}
	rms, tracks, err := m.envelopeLevels(ctx, rec, a)
	if err != nil {
		return nil, err
	}
	i, j := window(a.Envelope.FrameSec, len(rms), q.From, q.To)
	fs, lv := downsample(a.Envelope.FrameSec, rms[i:j], q.Points)
	env := &Envelope{Start: float64(i) * a.Envelope.FrameSec, FrameSec: fs, Levels: lv,
		NoiseFloorDb: a.NoiseFloorDb, SpeechLevelDb: a.SpeechLevelDb, ThresholdDb: a.ThresholdDb}
	for _, t := range tracks {
		_, tl := downsample(a.Envelope.FrameSec, t[i:j], q.Points)
		env.Tracks = append(env.Tracks, tl)
	}
	return env, nil
}

// frameEps absorbs the rounding of a time given in seconds on a frame
// boundary (0.95/0.01 is 94.99999999999999).
const frameEps = 1e-6

// window returns the frames [i, j) of n frames of frameSec seconds that
// hold from..to seconds (all of them when to is 0 or less), cut at the
// end.
func window(frameSec float64, n int, from, to float64) (i, j int) {
	if frameSec <= 0 {
		return 0, n
	}
	i, j = 0, n
	if from > 0 {
		i = min(n, int(math.Floor(from/frameSec+frameEps)))
	}
	if to > 0 {
		j = max(i, min(n, int(math.Ceil(to/frameSec-frameEps))))
	}
	return i, j
}

// downsample keeps the maximum of each bucket of frames.
func downsample(frameSec float64, src []float32, points int) (float64, []float32) {
	if points <= 0 {
		points = 1000
	}
	if len(src) == 0 {
		return frameSec, []float32{}
	}
	per := int(math.Ceil(float64(len(src)) / float64(points)))
	if per < 1 {
		per = 1
	}
	out := make([]float32, 0, (len(src)+per-1)/per)
	for i := 0; i < len(src); i += per {
		mx := float32(math.Inf(-1))
		for _, v := range src[i:min(i+per, len(src))] {
			mx = max(mx, v)
		}
		out = append(out, mx)
	}
	return frameSec * float64(per), out
}

// language checks a job's language option ("" when absent).
func language(l *string) (string, error) {
	if l == nil {
		return "", nil
	}
	lang, err := transcribe.NormalizeLanguage(*l)
	if err != nil {
		return "", invalid("%v", err)
	}
	return lang, nil
}

// fillerCuts are the transcript's fillers marked cut as extra cuts, when
// asked.
func fillerCuts(r *record) []plan.Cut {
	if !r.Export.CutFillers || r.Transcript == nil || r.Transcript.Status != apiv1.TranscriptDone {
		return nil
	}
	// Padded a little so the join does not keep the filler's onset or
	// release; the planner merges them with neighbouring silences.
	return transcribe.FillerCuts(r.Transcript, fillerPadSec)
}

// fillerPadSec is the padding on each side of a cut filler.
const fillerPadSec = 0.04

func processInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: 10}
}
