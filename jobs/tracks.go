package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
)

// A job created with options.tracks is a recording of several tracks in
// one file (one microphone per person): each track is analysed and
// stored on its own, the plan is made from all of them (plan.MakeTracks:
// cuts only where nobody speaks) and the output is their mix
// (transcode.RenderTracks). The job's own analysis (record.AnalysisKey)
// is track 0's, which gives the input's type, video and warnings; the
// envelope is the per-frame loudest of the tracks.

// TracksEngine is what an Engine also does to run jobs of several tracks.
// The default engine has it; a job of several tracks on an engine without
// it fails with invalid_parameter.
type TracksEngine interface {
	// ListTracks names the tracks of the file at path as mode
	// (apiv1.TracksStreams, apiv1.TracksChannels) says.
	ListTracks(ctx context.Context, path, mode string) ([]dsp.TrackRef, error)
	// AnalyzeTrack analyses one track.
	AnalyzeTrack(ctx context.Context, t dsp.TrackRef, progress dsp.Progress) (*dsp.Analysis, error)
	// PlanTracks makes the plan of the tracks' analyses (aligned from 0).
	PlanTracks(as []*dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error)
	// RenderTracks writes the mix of the tracks cut by p to w (as Render),
	// each track k turned down outside owned[k] when owned is not nil
	// (export.gateBleed).
	RenderTracks(ctx context.Context, refs []dsp.TrackRef, as []*dsp.Analysis, p *plan.Plan, e apiv1.Export, owned [][]plan.Range, w io.Writer, dir string, progress dsp.Progress) (*Rendered, error)
	// RenderTrack writes track k alone, cut by p as the mix is, into
	// the file out (the CLI's --split-tracks file for it).
	RenderTrack(ctx context.Context, refs []dsp.TrackRef, as []*dsp.Analysis, k int, p *plan.Plan, e apiv1.Export, owned [][]plan.Range, out string, progress dsp.Progress) (*Rendered, error)
}

// Errors of a download of one track (Manager.OpenTrackOutput); both wrap
// plan.ErrInvalidParams (invalid_parameter, 400).
var (
	// ErrNoTracks: the job was not created with options.tracks.
	ErrNoTracks = errors.New("the job is not a recording of several tracks")
	// ErrNoSuchTrack: the track's number is not one of the job's.
	ErrNoSuchTrack = errors.New("no such track")
)

// trackRecord is one track of a job, as stored: which part of the
// original it is (Ref's Path is empty: the original's local copy is
// given at use) and where its analysis is.
type trackRecord struct {
	Ref         dsp.TrackRef `json:"ref"`
	AnalysisKey string       `json:"analysisKey"`
	Info        dsp.Info     `json:"info"`
	Loudness    float64      `json:"loudness"`
}

// checkTracksMode checks options.tracks.
func checkTracksMode(mode string) error {
	switch mode {
	case "", apiv1.TracksStreams, apiv1.TracksChannels:
		return nil
	}
	return invalid("tracks must be %q or %q (got %q)", apiv1.TracksStreams, apiv1.TracksChannels, mode)
}

// tracksEngine returns the engine's TracksEngine, or a job error.
func (m *Manager) tracksEngine() (TracksEngine, error) {
	te, ok := m.engine.(TracksEngine)
	if !ok {
		return nil, invalid("tracks: this server's engine does not handle recordings of several tracks")
	}
	return te, nil
}

// analyzeTracks lists the tracks of the original (a local file) and
// analyses each in turn, storing every track's analysis; it returns track
// 0's, the job's analysis. A file of fewer than 2 tracks, or over
// apiv1.MaxTracks, fails the job with invalid_parameter.
func (r *run) analyzeTracks(ctx context.Context, in *original) (*dsp.Analysis, error) {
	m, rec := r.m, r.rec
	te, err := m.tracksEngine()
	if err != nil {
		return nil, fail(err)
	}
	path, err := in.path(ctx)
	if err != nil {
		return nil, err
	}
	refs, err := te.ListTracks(ctx, path, rec.TracksMode)
	switch {
	case errors.Is(err, dsp.ErrNoTrack):
		return nil, fail(withClientMessage(fmt.Errorf("%w: tracks %q: %w", plan.ErrInvalidParams, rec.TracksMode, err),
			fmt.Sprintf("tracks %q: the file has more than %d %s; at most %d tracks", rec.TracksMode, apiv1.MaxTracks, rec.TracksMode, apiv1.MaxTracks)))
	case errors.Is(err, dsp.ErrUnsupportedFormat):
		// (A stream of more than dsp.MaxChannels channels too: a failed
		// job's unsupported_format shows its fixed message.)
		return nil, fail(err)
	case err != nil:
		return nil, fmt.Errorf("list the tracks: %w", err)
	}
	if len(refs) < 2 {
		what := "audio stream"
		if rec.TracksMode == apiv1.TracksChannels {
			what = "channel"
		}
		return nil, fail(invalid("tracks %q: the file has %d %s; a recording of several tracks needs 2 to %d (omit tracks to cut it as one track)",
			rec.TracksMode, len(refs), what, apiv1.MaxTracks))
	}
	tracks := make([]trackRecord, len(refs))
	var first *dsp.Analysis
	longest := 0.0
	for k, ref := range refs {
		pf := r.progressFunc(ctx)
		a, err := te.AnalyzeTrack(ctx, ref, func(f float64) { pf((float64(k) + f) / float64(len(refs))) })
		if err != nil {
			if errors.Is(err, dsp.ErrUnsupportedFormat) || errors.Is(err, dsp.ErrTooLong) || errors.Is(err, dsp.ErrNoTrack) {
				return nil, fail(err)
			}
			return nil, fmt.Errorf("analyse track %d: %w", k, err)
		}
		if err := m.checkDuration(a.Input.Duration); err != nil {
			d := a.Input.Duration
			rec.Input.Duration = &d
			return nil, err
		}
		a.Input.Name = rec.Input.Name
		key := fmt.Sprintf("analyses/%s.track%d.bin", rec.ID, k)
		if k == 0 {
			key = "analyses/" + rec.ID + ".bin"
			first = a
		}
		if err := r.put(ctx, key, func(w io.Writer) error { _, err := a.WriteTo(w); return err }); err != nil {
			return nil, err
		}
		m.cache.put(key, a)
		ref.Path = ""
		tracks[k] = trackRecord{Ref: ref, AnalysisKey: key, Info: a.Input, Loudness: a.Loudness.Integrated}
		longest = max(longest, a.Input.Duration)
	}
	if first.Input.Type == "video" {
		// As for the CLI: the decoders do not always know the frame rate.
		if info, perr := dsp.Probe(ctx, path); perr == nil {
			in := &first.Input
			in.FrameRate, in.VideoFrames, in.Type = info.FrameRate, info.VideoFrames, info.Type
			in.Width, in.Height = info.Width, info.Height
		}
	}
	rec.Tracks = tracks
	rec.AnalysisKey = tracks[0].AnalysisKey
	info := first.Input
	info.Duration = longest
	rec.Info = &info
	rec.Input.Type = first.Input.Type
	rec.Input.Duration = &longest
	return first, nil
}

// trackAnalyses loads every track's analysis of a job of several tracks.
func (m *Manager) trackAnalyses(ctx context.Context, rec *record) ([]*dsp.Analysis, error) {
	as := make([]*dsp.Analysis, len(rec.Tracks))
	for k, t := range rec.Tracks {
		a, err := m.analysis(ctx, t.AnalysisKey)
		if err != nil {
			return nil, fmt.Errorf("track %d: %w", k, err)
		}
		as[k] = a
	}
	return as, nil
}

// planFor plans a job with params p: from its analysis a, or for a job of
// several tracks from all of theirs.
func (m *Manager) planFor(ctx context.Context, rec *record, a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error) {
	if len(rec.Tracks) == 0 {
		return m.engine.Plan(a, p, extra)
	}
	te, err := m.tracksEngine()
	if err != nil {
		return nil, err
	}
	as, err := m.trackAnalyses(ctx, rec)
	if err != nil {
		return nil, err
	}
	return te.PlanTracks(as, p, extra)
}

// renderTracks renders the mix of a job's tracks (the original at input).
func (m *Manager) renderTracks(ctx context.Context, rec *record, input string, p *plan.Plan, w io.Writer, dir string, progress dsp.Progress) (*Rendered, error) {
	te, refs, as, owned, err := m.trackInputs(ctx, rec, input)
	if err != nil {
		return nil, err
	}
	return te.RenderTracks(ctx, refs, as, p, rec.Export, owned, w, dir, progress)
}

// trackInputs is what a render of a job's tracks needs: the engine, the
// tracks in the original at input, their analyses and, with
// export.gateBleed, each one's own speech.
func (m *Manager) trackInputs(ctx context.Context, rec *record, input string) (TracksEngine, []dsp.TrackRef, []*dsp.Analysis, [][]plan.Range, error) {
	te, err := m.tracksEngine()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	as, err := m.trackAnalyses(ctx, rec)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	refs := make([]dsp.TrackRef, len(rec.Tracks))
	for k, t := range rec.Tracks {
		refs[k] = t.Ref
		refs[k].Path = input
	}
	var owned [][]plan.Range
	if rec.Export.GateBleed {
		// Each track's own voice, told from the others' bleed with the
		// job's parameters (not the plan's, whose threshold is the first
		// track's).
		if owned, err = plan.OwnedSpeech(as, rec.Params); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	return te, refs, as, owned, nil
}

// OpenTrackOutput renders track k (from 0) of a job of several tracks
// alone, cut by the job's plan as its mix is, and opens it: rendered on
// demand into a scratch file, removed when the Download is closed. A job
// created without options.tracks is ErrNoTracks, a k that is not one of
// its tracks ErrNoSuchTrack (both invalid_parameter); a job without a
// rendered mix answers as OpenOutput does, and one whose original
// retention deleted apiv1.ErrOriginalExpired.
func (m *Manager) OpenTrackOutput(ctx context.Context, owner, id string, k int) (_ *Download, err error) {
	defer m.unavailable(&err)
	if err := m.storeFault(); err != nil {
		return nil, err
	}
	rec, err := getRecord(ctx, m.db.read, owner, id)
	if err != nil {
		return nil, err
	}
	if rec.TracksMode == "" {
		msg := fmt.Sprintf("job %s was not created with options.tracks; it has no track to download alone (omit track)", id)
		return nil, withClientMessage(fmt.Errorf("%w: %w: %s", plan.ErrInvalidParams, ErrNoTracks, msg), msg)
	}
	if k < 0 || (len(rec.Tracks) > 0 && k >= len(rec.Tracks)) {
		return nil, errNoSuchTrack(id, k, len(rec.Tracks))
	}
	// Served only where the mix is: a job not yet rendered answers as
	// the plain download (its tracks are known once it is analysed).
	if err := noOutput(rec); err != nil {
		return nil, err
	}
	if k >= len(rec.Tracks) {
		return nil, errNoSuchTrack(id, k, len(rec.Tracks))
	}
	if rec.OriginalExpired || rec.OriginalKey == "" {
		return nil, fmt.Errorf("%w: the original of job %s was deleted after the retention period; its tracks cannot be rendered alone", apiv1.ErrOriginalExpired, id)
	}
	if rec.Plan == nil {
		return nil, fmt.Errorf("%w: job %s has no plan", apiv1.ErrNotRendered, id)
	}
	dir, err := os.MkdirTemp(m.scratch, rec.ID+"-track-*")
	if err != nil {
		return nil, fmt.Errorf("scratch dir: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	input, release, err := m.localPath(ctx, rec.OriginalKey, dir)
	if err != nil {
		if isBlobNotFound(err) {
			return nil, fmt.Errorf("%w: the original of job %s is gone", apiv1.ErrOriginalExpired, id)
		}
		return nil, err
	}
	defer release()
	te, refs, as, owned, err := m.trackInputs(ctx, rec, input)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "track"+transcode.Ext(rec.Export.Format))
	res, err := te.RenderTrack(ctx, refs, as, k, rec.Plan, rec.Export, owned, out, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: track %d: %w", apiv1.ErrRenderFailed, k, err)
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Download{ReadSeekCloser: &scratchFile{File: f, dir: dir}, Name: transcode.SplitNames(rec.Output.Name, len(rec.Tracks))[k],
		ContentType: transcode.ContentType(res.Format), ModTime: st.ModTime(), Size: st.Size()}, nil
}

// errNoSuchTrack is the error of a download of track k of a job of n.
func errNoSuchTrack(id string, k, n int) error {
	msg := fmt.Sprintf("track %d: job %s has tracks 0 to %d", k, id, n-1)
	if n == 0 {
		msg = fmt.Sprintf("track %d: tracks are numbered from 0", k)
	}
	return withClientMessage(fmt.Errorf("%w: %w: %s", plan.ErrInvalidParams, ErrNoSuchTrack, msg), msg)
}

// scratchFile is a rendered scratch file whose Close removes its directory.
type scratchFile struct {
	*os.File
	dir string
}

func (f *scratchFile) Close() error {
	err := f.File.Close()
	_ = os.RemoveAll(f.dir)
	return err
}

// envelopeLevels is the RMS level per frame the envelope shows: the
// analysis's, or for a job of several tracks the loudest track's of each
// frame (over the longest track; a shorter one is silent past its end),
// with each track's own levels over the same frames (nil for one track).
func (m *Manager) envelopeLevels(ctx context.Context, rec *record, a *dsp.Analysis) ([]float32, [][]float32, error) {
	if len(rec.Tracks) == 0 {
		return a.Envelope.RMSDb, nil, nil
	}
	as, err := m.trackAnalyses(ctx, rec)
	if err != nil {
		return nil, nil, err
	}
	n := 0
	for _, t := range as {
		n = max(n, len(t.Envelope.RMSDb))
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = dsp.FloorDb
	}
	tracks := make([][]float32, len(as))
	for k, t := range as {
		tr := make([]float32, n)
		copy(tr, t.Envelope.RMSDb)
		for i := len(t.Envelope.RMSDb); i < n; i++ {
			tr[i] = dsp.FloorDb
		}
		for i, v := range tr {
			out[i] = max(out[i], v)
		}
		tracks[k] = tr
	}
	return out, tracks, nil
}

// wireTracks is the API view of a job's tracks (nil for one track).
func wireTracks(ts []trackRecord) []apiv1.Track {
	if len(ts) == 0 {
		return nil
	}
	out := make([]apiv1.Track, len(ts))
	for k, t := range ts {
		out[k] = apiv1.Track{Index: k, Stream: t.Ref.Stream, Duration: t.Info.Duration, SampleRate: t.Info.SampleRate, Channels: t.Info.Channels}
		if t.Ref.Channel >= 0 {
			c := t.Ref.Channel
			out[k].Channel = &c
		}
		if l := t.Loudness; !math.IsInf(l, 0) && !math.IsNaN(l) && l > -70 {
			out[k].Loudness = &l
		}
	}
	return out
}

// The default engine's TracksEngine.

// RenderTrack renders track k alone into out (transcode.RenderTrack).
func (libEngine) RenderTrack(ctx context.Context, refs []dsp.TrackRef, as []*dsp.Analysis, k int, p *plan.Plan, e apiv1.Export, owned [][]plan.Range, out string, progress dsp.Progress) (*Rendered, error) {
	tracks, err := libTracks(refs, as, owned)
	if err != nil {
		return nil, err
	}
	o := transcode.Options{Format: e.Format, Normalize: e.Normalize, Denoise: e.Denoise, Rumble: e.Rumble}
	res, err := transcode.RenderTrack(ctx, tracks, k, p, o, out, progress)
	if err != nil {
		return nil, err
	}
	return &Rendered{Format: res.Format, Duration: res.Duration, Size: res.Size}, nil
}

// libTracks pairs each track with its analysis and, when owned is not
// nil, its gate.
func libTracks(refs []dsp.TrackRef, as []*dsp.Analysis, owned [][]plan.Range) ([]transcode.Track, error) {
	if len(refs) != len(as) {
		return nil, fmt.Errorf("%w: render: %d tracks, %d analyses", plan.ErrInvalidParams, len(refs), len(as))
	}
	tracks := make([]transcode.Track, len(refs))
	for k := range refs {
		tracks[k] = transcode.Track{Ref: refs[k], Analysis: as[k]}
		if owned != nil {
			tracks[k].Gate, tracks[k].Owned = true, owned[k]
		}
	}
	return tracks, nil
}

func (libEngine) ListTracks(ctx context.Context, path, mode string) ([]dsp.TrackRef, error) {
	return dsp.ListTracks(ctx, dsp.AutoDecoder{}, mode, []string{path})
}

func (libEngine) AnalyzeTrack(ctx context.Context, t dsp.TrackRef, progress dsp.Progress) (*dsp.Analysis, error) {
	return dsp.AnalyzeTrack(ctx, dsp.AutoDecoder{}, t, 0, progress)
}

func (libEngine) PlanTracks(as []*dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error) {
	return plan.MakeTracks(as, p, extra)
}

// RenderTracks renders the mix into a file in dir (transcode.RenderTracks)
// and copies it to w.
func (libEngine) RenderTracks(ctx context.Context, refs []dsp.TrackRef, as []*dsp.Analysis, p *plan.Plan, e apiv1.Export, owned [][]plan.Range, w io.Writer, dir string, progress dsp.Progress) (*Rendered, error) {
	tracks, err := libTracks(refs, as, owned)
	if err != nil {
		return nil, err
	}
	o := transcode.Options{Format: e.Format, Normalize: e.Normalize, Denoise: e.Denoise, Rumble: e.Rumble}
	out := filepath.Join(dir, "mix"+transcode.Ext(e.Format))
	res, err := transcode.RenderTracks(ctx, tracks, p, o, out, progress)
	if err != nil {
		return nil, err
	}
	defer os.Remove(out)
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return nil, fmt.Errorf("copy the rendered file: %w", err)
	}
	return &Rendered{Format: res.Format, Duration: res.Duration, Size: res.Size}, nil
}
