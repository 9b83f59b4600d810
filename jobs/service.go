// Package jobs runs autocut's work as durable queued jobs: it stores inputs
// and outputs in blob storage, keeps the app-owned job records, and runs
// analysis, transcription and rendering through the River queue.
//
// One process (the default): Config.DataDir holds autocut.db (SQLite in WAL
// mode: River's tables and the app-owned autocut_job table, the API's source
// of truth, written in the same transaction as each River insert), media/
// (fileblob: originals/ID, analyses/ID.bin, outputs/ID/GEN/NAME) and
// scratch/ (temporary files of running work, emptied at start). A cluster:
// Config.Database is a postgres:// URL (riverpgxv5) and Config.Storage an
// s3:// bucket shared by every node; Config.Role splits API and worker
// nodes (docs/deploy.md).
//
// A job runs as one River job per run (kind autocut_process, args {job_id,
// gen}): analyse (once; the analysis is stored so PATCH and Preview re-plan
// without decoding), transcribe when asked (one at a time per process),
// plan, render when asked. Each PATCH re-run bumps the record's gen; a
// worker polls its record and cancels its context when the record is
// deleted or its gen moved on, wherever that happened. A running run holds
// a lease on its record that it renews; runs whose lease expired (their
// process died) are re-enqueued by any worker node (lease.go), and a
// single SQLite process re-enqueues its own at start. Deterministic failures
// end the job in StatusFailed with a JobError; a run interrupted by shutdown
// is retried by River.
//
// The River client is generic over the driver's transaction type (queue.go):
// SQLite uses *sql.Tx (sqlite.go), PostgreSQL pgx.Tx (postgres.go); the
// app's statements go through the small execer interface (db.go).
package jobs

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// Errors the HTTP adapter maps to status codes.
var (
	ErrNotFound = errors.New("job not found")             // 404
	ErrConflict = errors.New("job is being processed")    // 409
	ErrTooLarge = errors.New("file too large")            // 413
	ErrExpired  = errors.New("rendered file has expired") // 404 with its own code
)

// Job states.
const (
	StatusAnalyzing    = "analyzing"
	StatusTranscribing = "transcribing"
	StatusRendering    = "rendering"
	StatusDone         = "done"
	StatusFailed       = "failed"
)

// ParamsInput are analysis parameters as a client sends them; nil means unset.
type ParamsInput struct {
	ThresholdDb   *float64 `json:"thresholdDb,omitempty"`
	MinSilenceSec *float64 `json:"minSilenceSec,omitempty"`
	KeepSilenceMs *float64 `json:"keepSilenceMs,omitempty"`
	MinSpeechMs   *float64 `json:"minSpeechMs,omitempty"`
}

// ExportInput are export settings as a client sends them; nil means unset.
type ExportInput struct {
	Format     *string `json:"format,omitempty"`
	Normalize  *string `json:"normalize,omitempty"`
	Denoise    *bool   `json:"denoise,omitempty"`
	Rumble     *bool   `json:"rumble,omitempty"`
	CutFillers *bool   `json:"cutFillers,omitempty"`
}

// Options are the option fields shared by both creation forms.
type Options struct {
	Preset     string       `json:"preset,omitempty"`
	Params     *ParamsInput `json:"params,omitempty"`
	Export     *ExportInput `json:"export,omitempty"`
	Transcribe *bool        `json:"transcribe,omitempty"`
	AutoExport *bool        `json:"autoExport,omitempty"`
}

// CreateRequest creates a job for one owner (an API key's id).
type CreateRequest struct {
	Owner   string
	Name    string // sanitized input file name
	Options Options
}

// PatchRequest changes a job's settings and re-runs it.
//
// Cuts, when present, sets an explicit cut list: the plan then holds
// exactly these cuts (sorted, not overlapping, inside the input; an empty
// list keeps everything), each with the reason of the detected cut it
// equals, else "manual". A later PATCH with params (or action transcribe)
// drops the list and plans from the detection again; one with export only
// keeps it.
type PatchRequest struct {
	Params *ParamsInput  `json:"params,omitempty"`
	Export *ExportInput  `json:"export,omitempty"`
	Cuts   *[]plan.Range `json:"cuts,omitempty"`
	Action string        `json:"action,omitempty"` // "export" or "transcribe"
}

// Export are the effective export settings of a job.
type Export struct {
	Format     string `json:"format"`
	Normalize  string `json:"normalize"`
	Denoise    bool   `json:"denoise"`
	Rumble     bool   `json:"rumble"`
	CutFillers bool   `json:"cutFillers"`
}

// Input describes a job's input.
type Input struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"` // "audio" or "video"; "" until known
	Duration *float64 `json:"duration"`
}

// Output describes a job's rendered file. The HTTP adapter fills URL.
type Output struct {
	URL      string  `json:"url"`
	Format   string  `json:"format"`
	Duration float64 `json:"duration"`
	Name     string  `json:"name"`
	Size     int64   `json:"size"`
}

// JobError is why a job failed. Code is a machine code ("nothing_to_keep",
// "unsupported_format", "too_long", "transcription_unavailable", "internal").
type JobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Job is the app-owned record of a job: the API's source of truth.
type Job struct {
	ID         string      `json:"id"`
	Owner      string      `json:"-"`
	Status     string      `json:"status"`
	Progress   float64     `json:"progress"` // 0..100
	Input      Input       `json:"input"`
	Preset     string      `json:"preset,omitempty"`
	Params     plan.Params `json:"params"`
	Export     Export      `json:"export"`
	Transcribe bool        `json:"transcribe"`
	AutoExport bool        `json:"autoExport"`
	Output     *Output     `json:"output"`
	Plan       *plan.Plan  `json:"plan,omitempty"`
	Transcript any         `json:"transcript,omitempty"` // *transcribe.Transcript
	Error      *JobError   `json:"error,omitempty"`
	CreatedAt  time.Time   `json:"createdAt"`
	UpdatedAt  time.Time   `json:"updatedAt"`
}

// Download is an open rendered file.
type Download struct {
	io.ReadSeekCloser
	Name        string
	ContentType string
	ModTime     time.Time
	Size        int64
}

// Envelope is the original's level curve, downsampled for drawing, with
// the levels the analysis measured on the whole file.
type Envelope struct {
	FrameSec      float64   // seconds per level
	Levels        []float32 // dBFS, the loudest 10 ms RMS level of each FrameSec
	NoiseFloorDb  float64   // the background level
	SpeechLevelDb float64   // the level of speech
	ThresholdDb   float64   // the automatic silence threshold
}

// Media is what timeline writers need of a finished job.
type Media struct {
	Plan *plan.Plan
	Info dsp.Info
}

// Service is what the HTTP adapter needs of the job layer.
type Service interface {
	// Create streams media into storage (ErrTooLarge past the limit,
	// dsp.ErrUnsupportedFormat when the sniffed content is not media,
	// plan.ErrInvalidParams for bad options) and queues analysis.
	Create(ctx context.Context, req CreateRequest, media io.Reader) (*Job, error)
	Get(ctx context.Context, owner, id string) (*Job, error)
	// List returns the owner's jobs newest first, at most limit, after cursor.
	List(ctx context.Context, owner string, limit int, cursor string) (jobs []*Job, next string, err error)
	// Update applies a patch and re-runs (ErrConflict while processing,
	// transcribe.ErrUnavailable when transcription is asked and cannot run).
	Update(ctx context.Context, owner, id string, p PatchRequest) (*Job, error)
	// Delete cancels running work and removes files and record.
	Delete(ctx context.Context, owner, id string) error
	// OpenOutput opens the rendered file (ErrNotFound, ErrExpired).
	OpenOutput(ctx context.Context, owner, id string) (*Download, error)
	// OpenOriginal opens the uploaded original while it is kept (ErrExpired after).
	OpenOriginal(ctx context.Context, owner, id string) (*Download, error)
	// Media returns the plan and input info for timeline exports (ErrConflict before the plan exists).
	Media(ctx context.Context, owner, id string) (*Media, error)
	// Preview re-plans from the stored analysis with other params, without rendering.
	Preview(ctx context.Context, owner, id string, p ParamsInput) (*plan.Plan, error)
	// Envelope returns a downsampled level envelope of the original (about
	// points values, dBFS) and the levels the analysis measured.
	Envelope(ctx context.Context, owner, id string, points int) (*Envelope, error)
}
