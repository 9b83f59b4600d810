// Package jobs runs autocut's work as durable queued jobs: it stores inputs
// and outputs in blob storage, keeps the app-owned job records, and runs
// analysis, transcription and rendering through the River queue.
//
// One process: a SQLite database (sqlitestore, e.g. DataDir/autocut.db in
// WAL mode: River's tables and the app-owned autocut_job table, the API's
// source of truth, written in the same transaction as each River insert);
// Config.DataDir holds media/ (fileblob: originals/ID, analyses/ID.bin,
// outputs/ID/GEN/NAME) and scratch/ (temporary files of running work,
// emptied at start). A cluster:
// a PostgreSQL database (pgstore, riverpgxv5) and Config.Storage an
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
// end the job in apiv1.StatusFailed with an apiv1.JobError whose code is
// ErrorCode's; a run interrupted by shutdown
// is retried by River.
//
// The package links neither database driver nor any object storage but
// the local one: Config.Store is a database opened by a sub-package of
// store (sqlitestore for one process, pgstore for a cluster; River's
// client is generic over their transaction types, store.NewQueue), and an
// s3:// Config.Storage needs the program to link gocloud.dev/blob/s3blob
// (cmd/autocut does).
package jobs

import (
	"context"
	"io"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// CreateRequest creates a job for one owner (an API key's id).
type CreateRequest struct {
	Owner   string
	Name    string // sanitized input file name
	Options apiv1.Options
	Size    int64 // the media's declared length in bytes; 0 when unknown
}

// Download is an open rendered file.
type Download struct {
	io.ReadSeekCloser
	Name        string
	ContentType string
	ModTime     time.Time
	Size        int64
}

// EnvelopeQuery asks for an envelope: about Points levels (1000 when 0)
// over the stretch From..To seconds of the original (the whole file when
// To is 0; a stretch past the end is cut at the end). A page zoomed in asks
// for the stretch it shows, at the analysis's own 10 ms where it can.
type EnvelopeQuery struct {
	Points   int
	From, To float64
}

// Envelope is the original's level curve, downsampled for drawing, with
// the levels the analysis measured on the whole file.
type Envelope struct {
	Start    float64   // seconds: the time of the first level
	FrameSec float64   // seconds per level
	Levels   []float32 // dBFS, the loudest 10 ms RMS level of each FrameSec
	// Tracks holds, for a job of several tracks, each track's levels
	// over the same frames as Levels (which is their loudest); nil for
	// one track.
	Tracks        [][]float32
	NoiseFloorDb  float64 // the background level
	SpeechLevelDb float64 // the level of speech
	ThresholdDb   float64 // the automatic silence threshold
}

// TimelineSource is what the timeline writers need of a job whose plan
// exists: the plan and what the analysis learnt of the input.
type TimelineSource struct {
	Plan *plan.Plan
	Info dsp.Info
}

// Service is what the HTTP adapter needs of the job layer. Its errors are
// apiv1's (apiv1.ErrNotFound, apiv1.ErrProcessing, ...) or the library
// packages' (dsp.ErrUnsupportedFormat, plan.ErrInvalidParams, ...);
// ErrorCode gives each its API code.
type Service interface {
	// Create streams media into storage (apiv1.ErrFileTooLarge past the
	// limit, dsp.ErrUnsupportedFormat when the sniffed content is not media,
	// plan.ErrInvalidParams for bad options) and queues analysis. The job's
	// URLs (output, timelines) are left for the HTTP adapter to fill.
	Create(ctx context.Context, req CreateRequest, media io.Reader) (*apiv1.Job, error)
	Get(ctx context.Context, owner, id string) (*apiv1.Job, error)
	// List returns the owner's jobs newest first, at most limit, after cursor.
	List(ctx context.Context, owner string, limit int, cursor string) (jobs []*apiv1.Job, next string, err error)
	// Update applies a patch and re-runs (apiv1.ErrProcessing while
	// processing, transcribe.ErrUnavailable when transcription is asked and
	// cannot run, apiv1.ErrOriginalExpired when a re-run needs an original
	// that retention deleted).
	Update(ctx context.Context, owner, id string, p apiv1.Patch) (*apiv1.Job, error)
	// Delete cancels running work and removes files and record.
	Delete(ctx context.Context, owner, id string) error
	// OpenOutput opens the rendered file (apiv1.ErrNotFound, apiv1.ErrOutputExpired;
	// apiv1.ErrProcessing while the job runs, apiv1.ErrNotRendered when it
	// finished without one).
	OpenOutput(ctx context.Context, owner, id string) (*Download, error)
	// OpenOriginal opens the uploaded original while it is kept
	// (apiv1.ErrOriginalExpired after its retention period).
	OpenOriginal(ctx context.Context, owner, id string) (*Download, error)
	// TimelineSource returns the plan and input info for timeline exports
	// (apiv1.ErrProcessing while the job runs without a plan,
	// apiv1.ErrNotRendered when it failed without one).
	TimelineSource(ctx context.Context, owner, id string) (*TimelineSource, error)
	// Preview re-plans from the stored analysis with other params, without
	// rendering (apiv1.ErrProcessing while the job runs without an
	// analysis, apiv1.ErrNotRendered when it failed without one), with the
	// analysis's warnings as they hold for that plan.
	Preview(ctx context.Context, owner, id string, p apiv1.ParamsInput) (*apiv1.Preview, error)
	// Envelope returns a downsampled level envelope of the original, or
	// of the stretch q asks (about q.Points values, dBFS), and the levels
	// the analysis measured on the whole file (errors as Preview's).
	Envelope(ctx context.Context, owner, id string, q EnvelopeQuery) (*Envelope, error)
}
