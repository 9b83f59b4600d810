// Package client is a typed Go client for autocut's v1 HTTP API: create jobs
// from a file (streamed) or a URL, follow them, download results and
// timelines, re-run, list and delete.
//
// It imports only the standard library and apiv1, the API's wire types:
// linking it does not link the server (River, SQLite, PostgreSQL, object
// storage). Errors the API answers are *apiv1.Error values, which match
// apiv1's sentinels: errors.Is(err, apiv1.ErrNotFound). A method that
// returns an error returns no job, plan or envelope with it, but for Wait,
// which returns the job last seen with a failed job's error or ctx's.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
)

// Client talks to one autocut server with one API key.
type Client struct {
	BaseURL string       // e.g. "http://localhost:8080"
	Key     string       // API key (Bearer)
	HTTP    *http.Client // nil means http.DefaultClient
	// PollInterval is Wait's delay between polls (default 1 s).
	PollInterval time.Duration
}

// New returns a client for the server at baseURL with key.
func New(baseURL, key string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Key: key}
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// do sends a request and returns the response for a 2xx status, else an *apiv1.Error.
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, header map[string]string) (*http.Response, error) {
	u := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		u = c.BaseURL + path
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if sz, ok := header["Content-Length"]; ok {
		req.ContentLength, _ = strconv.ParseInt(sz, 10, 64)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		e := &apiv1.Error{Status: resp.StatusCode}
		if sec, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && sec > 0 {
			e.RetryAfter = time.Duration(min(sec, 3600)) * time.Second
		}
		var eb apiv1.ErrorBody
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &eb) == nil && eb.Error != "" {
			e.Code, e.Message = eb.Code, eb.Error
		} else {
			e.Message = strings.TrimSpace(string(b))
		}
		return nil, e
	}
	return resp, nil
}

// doJSON sends a request and decodes a JSON answer into out (nil: discard).
func (c *Client) doJSON(ctx context.Context, method, path string, body io.Reader, header map[string]string, out any) error {
	resp, err := c.do(ctx, method, path, body, header)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("autocut API: decode %s %s: %w", method, path, err)
	}
	return nil
}

// Create uploads media (streamed, never buffered) as the file name and creates a job.
// size is the body's length when known (-1 otherwise), so the server can refuse it early.
func (c *Client) Create(ctx context.Context, name string, media io.Reader, size int64, o apiv1.Options) (*apiv1.Job, error) {
	opts, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	// The server reads X-Filename percent-decoded, so any name survives the header.
	h := map[string]string{"X-Filename": url.PathEscape(name), "X-Options": string(opts), "Content-Type": "application/octet-stream"}
	if size >= 0 {
		h["Content-Length"] = strconv.FormatInt(size, 10)
	}
	var j apiv1.Job
	if err := c.doJSON(ctx, http.MethodPost, "/api/v1/jobs", media, h, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// CreateFromFile uploads the file at path and creates a job.
func (c *Client) CreateFromFile(ctx context.Context, path string, o apiv1.Options) (*apiv1.Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return c.Create(ctx, filepath.Base(path), f, st.Size(), o)
}

// CreateFromURL asks the server to download the media at mediaURL.
func (c *Client) CreateFromURL(ctx context.Context, mediaURL string, o apiv1.Options) (*apiv1.Job, error) {
	b, err := json.Marshal(apiv1.CreateFromURL{URL: mediaURL, Options: o})
	if err != nil {
		return nil, err
	}
	var j apiv1.Job
	if err := c.doJSON(ctx, http.MethodPost, "/api/v1/jobs", bytes.NewReader(b), map[string]string{"Content-Type": "application/json"}, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// Get returns a job.
func (c *Client) Get(ctx context.Context, id string) (*apiv1.Job, error) {
	var j apiv1.Job
	if err := c.doJSON(ctx, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id), nil, nil, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// Wait polls the job until it is done or failed, or ctx ends. A failed job
// is returned with an *apiv1.Error of Status 0 carrying the job's error
// code and message; when ctx ends, the job last seen with ctx's error.
// It rides out an outage: a 503 (the server's database or storage not
// answering) is asked again after its Retry-After.
func (c *Client) Wait(ctx context.Context, id string) (*apiv1.Job, error) {
	every := c.PollInterval
	if every <= 0 {
		every = time.Second
	}
	var last *apiv1.Job
	for {
		j, err := c.Get(ctx, id)
		if e, ok := errors.AsType[*apiv1.Error](err); ok && e.Status == http.StatusServiceUnavailable {
			select {
			case <-ctx.Done():
				return last, ctx.Err()
			case <-time.After(max(e.RetryAfter, every)):
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		last = j
		switch j.Status {
		case apiv1.StatusDone:
			return j, nil
		case apiv1.StatusFailed:
			e := &apiv1.Error{Code: apiv1.CodeInternal, Message: "job failed"}
			if j.Error != nil {
				e.Code, e.Message = j.Error.Code, j.Error.Message
			}
			return j, e
		}
		select {
		case <-ctx.Done():
			return j, ctx.Err()
		case <-time.After(every):
		}
	}
}

// Download writes the rendered file to w and returns its file name.
func (c *Client) Download(ctx context.Context, id string, w io.Writer) (string, error) {
	resp, err := c.do(ctx, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id)+"/download", nil, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return "", err
	}
	return fileName(resp), nil
}

// TimelineOptions are the query options of a timeline download.
type TimelineOptions struct {
	MediaPath     string // where the editor finds the original
	Rate          string // e.g. "25", "30000/1001" (audio-only inputs)
	FCPXMLVersion string // "1.8" to "1.11" ("" is the server's default, 1.10)
	DropFrame     bool
}

// Timeline writes the timeline of kind (fcpxml, premiere, edl, otio, csv) to w and returns its file name.
func (c *Client) Timeline(ctx context.Context, id, kind string, o TimelineOptions, w io.Writer) (string, error) {
	q := url.Values{}
	if o.MediaPath != "" {
		q.Set("mediaPath", o.MediaPath)
	}
	if o.Rate != "" {
		q.Set("rate", o.Rate)
	}
	if o.FCPXMLVersion != "" {
		q.Set("fcpxmlVersion", o.FCPXMLVersion)
	}
	if o.DropFrame {
		q.Set("dropFrame", "true")
	}
	p := "/api/v1/jobs/" + url.PathEscape(id) + "/timelines/" + url.PathEscape(kind)
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	resp, err := c.do(ctx, http.MethodGet, p, nil, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return "", err
	}
	return fileName(resp), nil
}

// fileName is the file name of a Content-Disposition header: filename, or
// filename* (RFC 2231, how the server sends a non-ASCII name) decoded by
// mime.ParseMediaType. "" when the header has none.
func fileName(resp *http.Response) string {
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	if err != nil {
		return ""
	}
	return params["filename"]
}

// Patch changes settings and re-runs a job (action "export" or "transcribe").
func (c *Client) Patch(ctx context.Context, id string, p apiv1.Patch) (*apiv1.Job, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var j apiv1.Job
	if err := c.doJSON(ctx, http.MethodPatch, "/api/v1/jobs/"+url.PathEscape(id), bytes.NewReader(b), map[string]string{"Content-Type": "application/json"}, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// SetCuts sets an explicit cut list on a job and renders it (PATCH with
// cuts and action export): the plan then holds exactly these cuts, which
// must be sorted, not overlapping and inside the input; a detected cut
// sent as it is keeps its reason, others are "manual". An empty list keeps
// everything. A later Patch with params plans from the detection again.
func (c *Client) SetCuts(ctx context.Context, id string, cuts []apiv1.Range) (*apiv1.Job, error) {
	if cuts == nil {
		cuts = []apiv1.Range{}
	}
	return c.Patch(ctx, id, apiv1.Patch{Cuts: &cuts, Action: apiv1.ActionExport})
}

// Original writes the job's uploaded original (kept 24 hours) to w and
// returns its file name.
func (c *Client) Original(ctx context.Context, id string, w io.Writer) (string, error) {
	resp, err := c.do(ctx, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id)+"/original", nil, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return "", err
	}
	return fileName(resp), nil
}

// List returns a page of the key's jobs, newest first, and the cursor of the next page ("" at the end).
// limit is at most apiv1.MaxListLimit; 0 or less asks for the server's default page. The jobs'
// plans carry no cuts and keep (Plan.CutsOmitted): Get a job for them.
func (c *Client) List(ctx context.Context, limit int, cursor string) ([]apiv1.Job, string, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var r apiv1.JobList
	if err := c.doJSON(ctx, http.MethodGet, "/api/v1/jobs?"+q.Encode(), nil, nil, &r); err != nil {
		return nil, "", err
	}
	next := ""
	if r.NextCursor != nil {
		next = *r.NextCursor
	}
	return r.Jobs, next, nil
}

// Delete cancels a job's work and deletes its files and record.
func (c *Client) Delete(ctx context.Context, id string) error {
	return c.doJSON(ctx, http.MethodDelete, "/api/v1/jobs/"+url.PathEscape(id), nil, nil, nil)
}

// Preview re-plans a finished analysis with other params, without
// rendering: the plan and the analysis's warnings as they hold for it.
func (c *Client) Preview(ctx context.Context, id string, p apiv1.ParamsInput) (*apiv1.Preview, error) {
	q := url.Values{}
	for name, v := range map[string]*float64{"thresholdDb": p.ThresholdDb, "minSilenceSec": p.MinSilenceSec, "keepSilenceMs": p.KeepSilenceMs, "minSpeechMs": p.MinSpeechMs} {
		if v != nil {
			q.Set(name, strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	var r apiv1.Preview
	if err := c.doJSON(ctx, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id)+"/preview?"+q.Encode(), nil, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Envelope returns a downsampled level envelope of the original.
func (c *Client) Envelope(ctx context.Context, id string, points int) (*apiv1.Envelope, error) {
	var r apiv1.Envelope
	if err := c.doJSON(ctx, http.MethodGet, fmt.Sprintf("/api/v1/jobs/%s/envelope?points=%d", url.PathEscape(id), points), nil, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// EnvelopeRange returns the level envelope of the original's stretch
// from..to seconds (to 0: the end), about points levels.
func (c *Client) EnvelopeRange(ctx context.Context, id string, points int, from, to float64) (*apiv1.Envelope, error) {
	q := url.Values{"points": {strconv.Itoa(points)}, "from": {strconv.FormatFloat(from, 'f', -1, 64)}}
	if to > 0 {
		q.Set("to", strconv.FormatFloat(to, 'f', -1, 64))
	}
	var r apiv1.Envelope
	if err := c.doJSON(ctx, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id)+"/envelope?"+q.Encode(), nil, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// IsStatus reports whether err is an API error with the given HTTP status.
func IsStatus(err error, status int) bool {
	var e *apiv1.Error
	return errors.As(err, &e) && e.Status == status
}
