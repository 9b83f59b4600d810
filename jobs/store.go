package jobs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/jobs/store"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcribe"
)

// record is a job as stored. Gen counts runs: every (re)run changes it,
// and a worker whose gen no longer matches (or whose record is gone) stops.
// Version counts document writes, so that concurrent writers (a PATCH and a
// retention sweep) never overwrite each other.
type record struct {
	ID         string       `json:"-"`
	Owner      string       `json:"-"`
	Status     apiv1.Status `json:"-"`
	Progress   float64      `json:"-"`
	Gen        int64        `json:"-"`
	Version    int64        `json:"-"`
	RiverID    int64        `json:"-"`
	CreatedAt  time.Time    `json:"-"`
	UpdatedAt  time.Time    `json:"-"`
	OriginalAt time.Time    `json:"-"` // zero once the original is deleted
	OutputAt   time.Time    `json:"-"` // zero when there is no rendered file

	Input      apiv1.Input            `json:"input"`
	Container  string                 `json:"container,omitempty"` // sniffed
	Info       *dsp.Info              `json:"info,omitempty"`
	Preset     string                 `json:"preset,omitempty"`
	Params     plan.Params            `json:"params"`
	Export     apiv1.Export           `json:"export"`
	Transcribe bool                   `json:"transcribe"`
	Language   string                 `json:"language,omitempty"` // asked for transcription; "" detects
	AutoExport bool                   `json:"autoExport"`
	Render     bool                   `json:"render"` // the queued run renders
	Output     *apiv1.Output          `json:"output,omitempty"`
	Plan       *plan.Plan             `json:"plan,omitempty"`
	Warnings   []string               `json:"warnings,omitempty"` // the analysis's, as they hold for Plan
	Cuts       []plan.Range           `json:"cuts"`               // an explicit cut list (PATCH cuts); nil: the detection's
	Transcript *transcribe.Transcript `json:"transcript,omitempty"`
	Error      *apiv1.JobError        `json:"error,omitempty"`

	OriginalKey     string `json:"originalKey"`
	AnalysisKey     string `json:"analysisKey,omitempty"`
	OutputKey       string `json:"outputKey,omitempty"`
	OriginalExpired bool   `json:"originalExpired,omitempty"`
	OutputExpired   bool   `json:"outputExpired,omitempty"`

	// TracksMode is options.tracks; Tracks the tracks once analysed
	// (none for a job of one track).
	TracksMode string        `json:"tracksMode,omitempty"`
	Tracks     []trackRecord `json:"tracks,omitempty"`
}

const recordCols = store.JobColumns

func scanRecord(s scanner) (*record, error) {
	var (
		r                                  record
		created, updated, origAt, outputAt int64
		doc                                string
	)
	if err := s.Scan(&r.ID, &r.Owner, &r.Status, &r.Progress, &r.Gen, &r.Version, &r.RiverID, &created, &updated, &origAt, &outputAt, &doc); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(doc), &r); err != nil {
		return nil, fmt.Errorf("job %s: corrupt record: %w", r.ID, err)
	}
	r.CreatedAt, r.UpdatedAt = fromNanos(created), fromNanos(updated)
	r.OriginalAt, r.OutputAt = fromNanos(origAt), fromNanos(outputAt)
	return &r, nil
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// getRecord loads a job; owner "" matches any owner (workers, retention).
func getRecord(ctx context.Context, ex execer, owner, id string) (*record, error) {
	q := `SELECT ` + recordCols + ` FROM autocut_job WHERE id = ?`
	args := []any{id}
	if owner != "" {
		q += ` AND owner = ?`
		args = append(args, owner)
	}
	r, err := scanRecord(ex.QueryRow(ctx, q, args...))
	if isNoRows(err) {
		return nil, fmt.Errorf("%w: %s", apiv1.ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("load job %s: %w", id, err)
	}
	return r, nil
}

// listCols are recordCols with the summary in place of the document
// (the document of a row written before summaries existed).
var listCols = strings.TrimSuffix(recordCols, "doc") + "CASE WHEN summary <> '' THEN summary ELSE doc END"

// encode returns r's document and its summary: the document without the
// lists that grow with the input (the plan's cuts and keep, an explicit
// cut list), which the job list shows without.
func (r *record) encode() (doc, summary []byte, err error) {
	doc, err = json.Marshal(r)
	if err != nil {
		return nil, nil, fmt.Errorf("encode job: %w", err)
	}
	s := *r
	s.Cuts = nil
	if r.Plan != nil {
		p := *r.Plan
		p.Cuts, p.Keep = nil, nil
		s.Plan = &p
	}
	if summary, err = json.Marshal(&s); err != nil {
		return nil, nil, fmt.Errorf("encode job: %w", err)
	}
	return doc, summary, nil
}

func insertRecord(ctx context.Context, ex execer, r *record) error {
	doc, summary, err := r.encode()
	if err != nil {
		return err
	}
	_, err = ex.Exec(ctx, `INSERT INTO autocut_job (`+recordCols+`, summary) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, r.Owner, r.Status, r.Progress, r.Gen, r.Version, r.RiverID, nanos(r.CreatedAt), nanos(r.UpdatedAt),
		nanos(r.OriginalAt), nanos(r.OutputAt), string(doc), string(summary))
	if err != nil {
		return fmt.Errorf("insert job: %w", err)
	}
	return nil
}

// errStale reports that a record changed under a writer (deleted or re-run).
var errStale = errors.New("job changed meanwhile")

// saveRecord writes r if its stored gen is still wantGen and nobody wrote
// it since it was read (errStale otherwise); r.Version moves on.
func saveRecord(ctx context.Context, ex execer, r *record, wantGen int64) error {
	doc, summary, err := r.encode()
	if err != nil {
		return err
	}
	n, err := ex.Exec(ctx, `UPDATE autocut_job SET status = ?, progress = ?, gen = ?, version = version + 1,
		river_id = ?, updated_at = ?, original_at = ?, output_at = ?, doc = ?, summary = ? WHERE id = ? AND gen = ? AND version = ?`,
		r.Status, r.Progress, r.Gen, r.RiverID, nanos(r.UpdatedAt), nanos(r.OriginalAt), nanos(r.OutputAt),
		string(doc), string(summary), r.ID, wantGen, r.Version)
	if err != nil {
		return fmt.Errorf("save job %s: %w", r.ID, err)
	}
	if n == 0 {
		return errStale
	}
	r.Version++
	return nil
}

// setProgress records a running job's status and progress (errStale when gen moved on).
func setProgress(ctx context.Context, ex execer, id string, gen int64, status apiv1.Status, progress float64) error {
	n, err := ex.Exec(ctx, `UPDATE autocut_job SET status = ?, progress = ?, updated_at = ? WHERE id = ? AND gen = ?`,
		status, progress, time.Now().UnixNano(), id, gen)
	if err != nil {
		return fmt.Errorf("save progress of job %s: %w", id, err)
	}
	if n == 0 {
		return errStale
	}
	return nil
}

// cursor is an opaque position in a newest-first listing.
func encodeCursor(r *record) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(r.CreatedAt.UnixNano(), 10) + "." + r.ID))
}

func decodeCursor(s string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		t, id, ok := strings.Cut(string(b), ".")
		if n, perr := strconv.ParseInt(t, 10, 64); ok && perr == nil && id != "" {
			return n, id, nil
		}
	}
	return 0, "", fmt.Errorf("%w: cursor is not one this server returned", apiv1.ErrBadRequest)
}
