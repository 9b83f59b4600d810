package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
)

// planTracks plans the cut of a recording of several tracks from their
// analyses (one per track, aligned from 0): plan.MakeTracks, which cuts
// only where nobody speaks and tells a track's bleed from its own voice.
func planTracks(as []*dsp.Analysis, p plan.Params) (*plan.Plan, error) {
	return plan.MakeTracks(as, p, nil)
}

// analyzeTracks analyses every track in turn, reporting progress over all.
func analyzeTracks(ctx context.Context, refs []dsp.TrackRef, progress dsp.Progress) ([]transcode.Track, []*dsp.Analysis, error) {
	tracks := make([]transcode.Track, len(refs))
	as := make([]*dsp.Analysis, len(refs))
	if dsp.OneDecode(refs) { // channels of one stream: decoded once
		got, err := dsp.AnalyzeTrackSet(ctx, dsp.AutoDecoder{}, refs, 0, progress)
		if err != nil {
			return nil, nil, analysisError(filepath.Base(refs[0].Path), err)
		}
		for k, r := range refs {
			tracks[k] = transcode.Track{Ref: r, Analysis: got[k]}
		}
		return tracks, got, nil
	}
	for k, r := range refs {
		var pk dsp.Progress
		if progress != nil {
			pk = func(f float64) { progress((float64(k) + f) / float64(len(refs))) }
		}
		a, err := dsp.AnalyzeTrack(ctx, dsp.AutoDecoder{}, r, 0, pk)
		if err != nil {
			return nil, nil, analysisError(filepath.Base(r.Path), err)
		}
		tracks[k] = transcode.Track{Ref: r, Analysis: a}
		as[k] = a
	}
	return tracks, as, nil
}

// trackOptions are cut's choices for a recording of several tracks.
type trackOptions struct {
	split bool // one file per track (--split-tracks)
	gate  bool // the bleed gate (--gate-bleed)
}

// cutTracks is runCut of a recording of several tracks (refs): each track
// analysed, the plan made from all (planTracks), and their mix rendered to
// out (to stream when it is set), or each track to its own file (outs)
// with to.split, each track gated outside its own voice with to.gate
// (plan.OwnedSpeech, transcode.Track.Gate), and the timelines tl asks written into tlDir, N audio
// tracks cut alike (timelineFlags.writeTracks). The outputs were checked
// by the caller.
func cutTracks(ctx context.Context, e env, bar *progressBar, st *stager, refs []dsp.TrackRef, params plan.Params,
	o transcode.Options, out string, outs []string, stream io.Writer, to trackOptions, tl *timelineFlags, tlDir string) error {
	split := to.split
	bar.stage("analysing")
	tracks, as, err := analyzeTracks(ctx, refs, bar.update)
	if err != nil {
		return err
	}
	if as[0].Input.Type == "video" {
		// (As for one file: the decoders do not always know the frame rate.)
		if info, perr := dsp.Probe(ctx, refs[0].Path); perr == nil {
			a := as[0]
			a.Input.FrameRate, a.Input.VideoFrames, a.Input.Type = info.FrameRate, info.VideoFrames, info.Type
			a.Input.Width, a.Input.Height = info.Width, info.Height
		}
	}
	if transcode.ContainerOf(o.Format) == "mp4" && as[0].Input.Type != "video" {
		return audioOnlyError(refs[0].Path, o.Format)
	}
	if err := o.Validate(as[0].Input); err != nil {
		return usageError{err.Error()}
	}
	p, err := planTracks(as, params)
	if err != nil {
		return flagWords(err)
	}
	if to.gate {
		// Each track's own voice, told from the others' bleed with the
		// parameters asked (not the plan's, whose threshold is the first
		// track's).
		owned, err := plan.OwnedSpeech(as, params)
		if err != nil {
			return flagWords(err)
		}
		for k := range tracks {
			tracks[k].Gate, tracks[k].Owned = true, owned[k]
		}
	}
	bar.stage("rendering")
	var results []*transcode.Result
	names := outs
	switch {
	case split:
		staged := make([]string, len(outs))
		for k, path := range outs {
			if staged[k], err = st.path(path); err != nil {
				return err
			}
		}
		if results, err = transcode.RenderSplit(ctx, tracks, p, o, staged, bar.update); err == nil {
			for k := range outs {
				if err = st.commit(staged[k], outs[k]); err != nil {
					break
				}
			}
		}
	case stream != nil:
		var res *transcode.Result
		res, err = transcode.RenderTracksTo(ctx, tracks, p, o, stream, bar.update)
		results = []*transcode.Result{res}
		if out == "-" {
			names = []string{"standard output"}
		}
	default:
		var staged string
		var res *transcode.Result
		if staged, err = st.path(out); err == nil {
			if res, err = transcode.RenderTracks(ctx, tracks, p, o, staged, bar.update); err == nil {
				err = st.commit(staged, out)
			}
		}
		results = []*transcode.Result{res}
	}
	bar.done()
	if err != nil {
		return err
	}
	for k, res := range results {
		what := fmt.Sprintf("the mix of %d tracks", len(refs))
		if split {
			what = "track " + refs[k].String()
		}
		fmt.Fprintf(e.stderr, "wrote %s: %s, %s -> %s (%s, %.1f%% saved), %s %s\n", names[k], what,
			clock(p.Stats.OriginalSec), clock(res.Duration), counted(p.Stats.CutsCount, "cut"), p.Stats.SavedPct, res.Format, humanBytes(res.Size))
		for i, g := range res.TrackGainDb {
			fmt.Fprintf(e.stderr, "  track %s: %+.1f dB to the others' loudness\n", refs[i].String(), g)
		}
	}
	infos := make([]dsp.Info, len(as))
	for k, a := range as {
		infos[k] = a.Input
	}
	files, err := tl.writeTracks(st, tlDir, refs, p.Keep, infos, func(err error) {
		fmt.Fprintf(e.stderr, "autocut cut: warning: %v\n", err)
	})
	for _, f := range files {
		fmt.Fprintf(e.stderr, "wrote %s\n", f)
	}
	return err
}

// tracksOutput is what `autocut analyze` prints for a recording of
// several tracks: each track's analysis, named, and the one plan (or
// planError).
type tracksOutput struct {
	Tracks    []trackOutput `json:"tracks"`
	Plan      *plan.Plan    `json:"plan"`
	PlanError string        `json:"planError,omitempty"`
	Timelines []string      `json:"timelines,omitempty"` // files written by --timelines
}

type trackOutput struct {
	Track dsp.TrackRef `json:"track"`
	*dsp.Analysis
}

// analyzeTracksCmd is runAnalyze of the tracks of one recording (paths,
// held as mode says): every track analysed, the plan made from all
// (planTracks), printed as JSON, and the timelines tl asks written in the
// current directory (timelineFlags.writeTracks) unless the plan failed.
// As for one file, a plan with nothing to keep is printed with planError
// and a warning, and exits 0.
func analyzeTracksCmd(ctx context.Context, e env, f analyzeFlags, mode string, paths []string, tl *timelineFlags, ow overwriteFlags) error {
	if err := ow.check(); err != nil {
		return err
	}
	if tl.mediaPath != "" && len(paths) > 1 {
		return usageError{"--timeline-media-path with several files: it names one file; each track's timeline media is its file's absolute path"}
	}
	params, err := f.resolve()
	if err != nil {
		return usageError{err.Error()}
	}
	for _, in := range paths {
		if err := checkInput(in); err != nil {
			return err
		}
	}
	refs, err := dsp.ListTracks(ctx, dsp.AutoDecoder{}, mode, paths)
	if err != nil {
		return usageError{err.Error()}
	}
	tlPaths, err := tl.check(paths[0], ".")
	if err != nil {
		return err
	}
	tlPaths = append(tlPaths, tl.trackEDLs(paths[0], ".", len(refs))...)
	for _, p := range tlPaths {
		for _, in := range paths {
			if err := checkPath(in, p, ow); err != nil {
				return err
			}
		}
	}
	st := newStager(e.cleanup, ow.yes)
	defer st.close()
	if err := tl.stage(st, "."); err != nil {
		return err
	}
	if tl.kinds != "" {
		if info, err := dsp.Probe(ctx, paths[0]); err == nil {
			if err := tl.validate(info); err != nil {
				return err
			}
		}
	}
	_, as, err := analyzeTracks(ctx, refs, nil)
	if err != nil {
		return err
	}
	var out tracksOutput
	for k, a := range as {
		out.Tracks = append(out.Tracks, trackOutput{Track: refs[k], Analysis: a})
	}
	p, perr := planTracks(as, params)
	out.Plan = p
	if perr != nil {
		out.PlanError = perr.Error()
		if !errors.Is(perr, plan.ErrNothingToKeep) {
			return flagWords(perr)
		}
		fmt.Fprintf(e.stderr, "autocut analyze: warning: %v\n", flagWords(perr))
	} else if tl.kinds != "" {
		if a := as[0]; a.Input.Type == "video" {
			if info, err := dsp.Probe(ctx, refs[0].Path); err == nil {
				a.Input.FrameRate, a.Input.StartTimecode, a.Input.VideoFrames = info.FrameRate, info.StartTimecode, info.VideoFrames
				a.Input.Width, a.Input.Height = info.Width, info.Height
			}
		}
		infos := make([]dsp.Info, len(as))
		for k, a := range as {
			infos[k] = a.Input
		}
		files, err := tl.writeTracks(st, ".", refs, p.Keep, infos, func(err error) {
			fmt.Fprintf(e.stderr, "autocut analyze: warning: %v\n", err)
		})
		if err != nil {
			return err
		}
		out.Timelines = files
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the analyses: %w", err)
	}
	_, err = e.stdout.Write(append(b, '\n'))
	return err
}
