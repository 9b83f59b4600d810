package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
)

// planTracks plans the cut of a recording of several tracks from their
// analyses (one per track, aligned from 0).
//
// PLACEHOLDER until plan.MakeTracks (who speaks, bleed told from voices)
// is merged, when this body becomes `return plan.MakeTracks(as, p, nil)`: each
// track is planned on its own (plan.Make) and a stretch is cut only where
// every track's plan cuts it, so a pause of one speaker while another
// talks is kept; a track's bleed counts as speech on it, so some pauses
// where nobody speaks are kept too.
func planTracks(as []*dsp.Analysis, p plan.Params) (*plan.Plan, error) {
	if len(as) == 0 {
		return nil, fmt.Errorf("%w: no track to plan", plan.ErrBadAnalysis)
	}
	plans := make([]*plan.Plan, len(as))
	dur := 0.0
	for i, a := range as {
		pl, err := plan.Make(a, p, nil)
		if err != nil {
			return nil, fmt.Errorf("track %d: %w", i, err)
		}
		plans[i] = pl
		dur = max(dur, planEnd(pl))
	}
	// The cuts every track makes; a track that ends sooner is cut past its end.
	cuts := cutsPast(plans[0], dur)
	for _, pl := range plans[1:] {
		cuts = intersectCuts(cuts, cutsPast(pl, dur))
	}
	out := *plans[0]
	out.Cuts, out.Keep = cuts, nil
	at := 0.0
	for _, c := range cuts {
		if c.Start > at {
			out.Keep = append(out.Keep, dsp.Range{Start: at, End: c.Start})
		}
		at = c.End
	}
	if dur > at {
		out.Keep = append(out.Keep, dsp.Range{Start: at, End: dur})
	}
	final := 0.0
	for _, k := range out.Keep {
		final += k.Len()
	}
	out.Stats = plan.Stats{OriginalSec: dur, FinalSec: final, SavedSec: dur - final, CutsCount: len(cuts)}
	if dur > 0 {
		out.Stats.SavedPct = math.Round(1000*(dur-final)/dur) / 10
	}
	if len(out.Keep) == 0 {
		return nil, plan.ErrNothingToKeep
	}
	return &out, nil
}

// planEnd is the end of what a plan covers.
func planEnd(p *plan.Plan) float64 {
	end := 0.0
	if n := len(p.Keep); n > 0 {
		end = p.Keep[n-1].End
	}
	if n := len(p.Cuts); n > 0 {
		end = max(end, p.Cuts[n-1].End)
	}
	return end
}

// cutsPast is p's cuts and, when p ends before dur, a cut from its end to dur.
func cutsPast(p *plan.Plan, dur float64) []plan.Cut {
	cuts := slices.Clone(p.Cuts)
	if end := planEnd(p); end < dur {
		if n := len(cuts); n > 0 && cuts[n-1].End >= end {
			cuts[n-1].End = dur
		} else {
			cuts = append(cuts, plan.Cut{Start: end, End: dur, Reason: plan.ReasonSilence})
		}
	}
	return cuts
}

// intersectCuts returns the stretches both a and b cut (each sorted and
// disjoint), with a's reasons.
func intersectCuts(a, b []plan.Cut) []plan.Cut {
	var out []plan.Cut
	for i, j := 0, 0; i < len(a) && j < len(b); {
		s, e := max(a[i].Start, b[j].Start), min(a[i].End, b[j].End)
		if e > s {
			out = append(out, plan.Cut{Start: s, End: e, Reason: a[i].Reason})
		}
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// analyzeTracks analyses every track in turn, reporting progress over all.
func analyzeTracks(ctx context.Context, refs []dsp.TrackRef, progress dsp.Progress) ([]transcode.Track, []*dsp.Analysis, error) {
	tracks := make([]transcode.Track, len(refs))
	as := make([]*dsp.Analysis, len(refs))
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

// cutTracks is runCut of a recording of several tracks (refs): each track
// analysed, the plan made from all (planTracks), and their mix rendered to
// out (to stream when it is set), or each track to its own file (outs)
// with split. The outputs were checked by the caller.
func cutTracks(ctx context.Context, e env, bar *progressBar, st *stager, refs []dsp.TrackRef, params plan.Params,
	o transcode.Options, out string, outs []string, stream io.Writer, split bool) error {
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
	return nil
}

// tracksOutput is what `autocut analyze` prints for a recording of
// several tracks: each track's analysis, named, and the one plan (or
// planError).
type tracksOutput struct {
	Tracks    []trackOutput `json:"tracks"`
	Plan      *plan.Plan    `json:"plan"`
	PlanError string        `json:"planError,omitempty"`
}

type trackOutput struct {
	Track dsp.TrackRef `json:"track"`
	*dsp.Analysis
}

// analyzeTracksCmd is runAnalyze of the tracks of one recording (paths,
// held as mode says): every track analysed, the plan made from all
// (planTracks), printed as JSON. As for one file, a plan with nothing to
// keep is printed with planError and a warning, and exits 0.
func analyzeTracksCmd(ctx context.Context, e env, f analyzeFlags, mode string, paths []string) error {
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
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the analyses: %w", err)
	}
	_, err = e.stdout.Write(append(b, '\n'))
	return err
}
