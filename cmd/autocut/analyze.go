package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// analyzeOutput is what `autocut analyze` prints: the analysis fields
// (input, loudness, noiseFloorDb, speechLevelDb, thresholdDb, envelope
// summary) and the plan, or planError when no plan could be made.
type analyzeOutput struct {
	*dsp.Analysis
	Plan      *plan.Plan `json:"plan"`
	PlanError string     `json:"planError,omitempty"`
	Timelines []string   `json:"timelines,omitempty"` // files written by --timelines
}

// analyzeFlags are the planning flags analyze and cut share.
type analyzeFlags struct {
	preset                             string
	decoder                            string
	threshold                          *float64
	minSilence, keepSilence, minSpeech *float64
	crosstalk                          string
}

// runAnalyze implements `autocut analyze [flags] FILE`: one streaming
// analysis pass, then the cut plan with the preset's params overridden by
// the flags, printed as indented JSON on standard output (and, when
// standard error is a terminal, a summary in words there). A plan with
// nothing to keep is still printed, with planError and a warning, and
// exits 0 (cut refuses it).
func runAnalyze(ctx context.Context, e env) error {
	var f analyzeFlags
	var tl timelineFlags
	var ow overwriteFlags
	var tracksMode string
	c := newFlags("analyze", "autocut analyze [flags] FILE [FILE...]",
		"Prints FILE's loudness, levels and cut plan as JSON. With --timelines, also writes edit timelines.\n"+
			"Several FILEs, or --tracks, are the tracks of one recording (see autocut help cut): the JSON has each\n"+
			"track's analysis under \"tracks\" and the one plan.")
	f.register(c)
	tl.register(c, "the current directory")
	ow.register(c)
	c.choice("tracks", "the tracks of one FILE: streams (one per audio stream) or channels (one per channel) (default: each FILE is one track)",
		[]string{dsp.TracksStreams, dsp.TracksChannels}, &tracksMode)
	pos, err := c.parse(e.args, e.stdout)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return flagError{"need a FILE (autocut analyze [flags] FILE [FILE...])"}
	}
	if len(pos) > 1 || tracksMode != "" {
		return analyzeTracksCmd(ctx, e, f, tracksMode, pos, &tl, ow)
	}
	in := pos[0]
	if err := ow.check(); err != nil {
		return err
	}
	params, err := f.resolve()
	if err != nil {
		return usageError{err.Error()}
	}
	if err := checkInput(in); err != nil {
		return err
	}
	tlPaths, err := tl.check(in, ".")
	if err != nil {
		return err
	}
	for _, p := range tlPaths {
		if err := checkPath(in, p, ow); err != nil {
			return err
		}
	}
	dec, err := decoderFor(f.decoder)
	if err != nil {
		return usageError{err.Error()}
	}
	st := newStager(e.cleanup, ow.yes)
	defer st.close()
	if err := tl.stage(st, "."); err != nil {
		return err
	}
	if tl.kinds != "" {
		// Timelines the rate cannot have are refused before the analysis;
		// where the probe fails, the analysis says why.
		if info, err := dsp.Probe(ctx, in); err == nil {
			if err := tl.validate(info); err != nil {
				return err
			}
		}
	}

	a, err := dsp.AnalyzeWith(ctx, dec, in, nil)
	if err != nil {
		return analysisError(in, err)
	}
	out := analyzeOutput{Analysis: a}
	p, perr := plan.Make(a, params, nil)
	if perr == nil || errors.Is(perr, plan.ErrNothingToKeep) {
		out.Plan = p
	}
	a.Warnings = plan.Warnings(a.Warnings, p)
	planErr := perr
	if perr != nil {
		out.PlanError = perr.Error()
		if errors.Is(perr, plan.ErrNothingToKeep) {
			a.Warnings = append(a.Warnings, perr.Error())
			fmt.Fprintf(e.stderr, "autocut analyze: warning: %v\n", flagWords(perr))
			perr = nil
		}
	} else {
		if a.Input.Type == "video" && a.Input.FrameRate.Num == 0 {
			if info, err := dsp.Probe(ctx, in); err == nil {
				a.Input.FrameRate, a.Input.StartTimecode, a.Input.VideoFrames = info.FrameRate, info.StartTimecode, info.VideoFrames
				a.Input.Width, a.Input.Height = info.Width, info.Height
			}
		}
		files, err := tl.write(st, ".", in, p.Keep, a.Input, func(err error) {
			fmt.Fprintf(e.stderr, "autocut analyze: warning: %v\n", err)
		})
		if err != nil {
			return err
		}
		out.Timelines = files
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the analysis: %w", err)
	}
	if _, err := e.stdout.Write(append(b, '\n')); err != nil {
		return err
	}
	if e.stderrTTY {
		printSummary(e.stderr, a, p, flagWords(planErr), f, out.Timelines)
	}
	return perr
}

// printSummary writes one paragraph in words about the analysis and plan:
// levels, threshold, cuts and time saved.
func printSummary(w io.Writer, a *dsp.Analysis, p *plan.Plan, perr error, f analyzeFlags, timelines []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s", filepath.Base(a.Input.Name), clock(a.Input.Duration), a.Input.Type)
	if l := a.Loudness.Integrated; l > -200 {
		fmt.Fprintf(&b, ", %.1f LUFS integrated, true peak %.1f dBTP", l, a.Loudness.TruePeak)
	}
	if a.NoiseFloorDb <= dsp.FloorDb {
		fmt.Fprintf(&b, "; pauses of digital silence, speech %.0f dB. ", a.SpeechLevelDb)
	} else {
		fmt.Fprintf(&b, "; noise floor %.0f dB, speech %.0f dB. ", a.NoiseFloorDb, a.SpeechLevelDb)
	}
	if p != nil {
		how := "automatic"
		if f.threshold != nil {
			how = "given"
		}
		fmt.Fprintf(&b, "Silence threshold %.0f dB (%s). ", p.ThresholdDb, how)
	}
	preset := f.preset
	if preset == "" {
		preset = plan.DefaultPresetName
	}
	switch {
	case perr != nil && p != nil:
		fmt.Fprintf(&b, "With the %s preset nothing would be kept: %v.", preset, perr)
	case perr != nil:
		fmt.Fprintf(&b, "No plan: %v.", perr)
	default:
		s := p.Stats
		fmt.Fprintf(&b, "The %s preset makes %s, saving %s (%.1f%%): %s remain.", preset, counted(s.CutsCount, "cut"), clock(s.SavedSec), s.SavedPct, clock(s.FinalSec))
	}
	if len(timelines) > 0 {
		fmt.Fprintf(&b, " Wrote %s.", strings.Join(timelines, ", "))
	}
	fmt.Fprintln(w, b.String())
}

// counted says n nouns: "1 cut", "3 cuts".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// clock formats seconds as "4.2 s" under a minute, "1:02:03" or "12:34" above.
func clock(sec float64) string {
	if sec < 60 {
		return fmt.Sprintf("%.1f s", sec)
	}
	t := int64(sec + 0.5)
	if t >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
	}
	return fmt.Sprintf("%d:%02d", t/60, t%60)
}

// register adds the planning flags (--preset --threshold --min-silence
// --keep-silence --min-speech --decoder).
func (f *analyzeFlags) register(c *cmdFlags) {
	f.decoder, f.preset = "auto", plan.DefaultPresetName
	c.choice("decoder", "`decoder`: auto, native or ffmpeg (default auto)", []string{"auto", "native", "ffmpeg"}, &f.decoder)
	var names []string
	for _, p := range plan.Presets() {
		names = append(names, p.Name)
	}
	c.choice("preset", "`preset`: "+strings.Join(names, ", ")+" (default "+plan.DefaultPresetName+")", names, &f.preset)
	c.number("threshold", fmt.Sprintf("silence threshold in `dB`, %g to %g (default: automatic, from the file)", plan.MinThresholdDb, plan.MaxThresholdDb),
		plan.MinThresholdDb, plan.MaxThresholdDb, "dB", &f.threshold)
	c.duration("min-silence", fmt.Sprintf("minimum `duration` of a silence to cut, %g to %g s: 0.6s, 600ms, or bare seconds (default: the preset's)", plan.MinMinSilenceSec, plan.MaxMinSilenceSec),
		"s", plan.MinMinSilenceSec, plan.MaxMinSilenceSec, &f.minSilence)
	c.duration("keep-silence", fmt.Sprintf("`duration` of silence kept at each cut, %g to %g ms: 250ms, 0.25s, or bare milliseconds (default: the preset's)", plan.MinKeepSilenceMs, plan.MaxKeepSilenceMs),
		"ms", plan.MinKeepSilenceMs, plan.MaxKeepSilenceMs, &f.keepSilence)
	c.duration("min-speech", fmt.Sprintf("sounds shorter than this `duration` between cuts are cut too, %g to %g ms: 120ms, or bare milliseconds (default: the preset's)", plan.MinMinSpeechMs, plan.MaxMinSpeechMs),
		"ms", plan.MinMinSpeechMs, plan.MaxMinSpeechMs, &f.minSpeech)
	c.choice("crosstalk", "what a voice well under the main one is: `keep` (speech: a call's far side, a guest off-mic; the default) or cut (another speaker's bleed on one person's microphone)",
		plan.CrosstalkModes(), &f.crosstalk)
}

// resolve returns the preset's params overridden by the flags given,
// validated.
func (f analyzeFlags) resolve() (plan.Params, error) {
	pr, err := plan.LookupPreset(f.preset)
	if err != nil {
		return plan.Params{}, err
	}
	p := pr.Params
	if f.threshold != nil {
		p.ThresholdDb = f.threshold
	}
	if f.minSilence != nil {
		p.MinSilenceSec = *f.minSilence
	}
	if f.keepSilence != nil {
		p.KeepSilenceMs = *f.keepSilence
	}
	if f.minSpeech != nil {
		p.MinSpeechMs = *f.minSpeech
	}
	if f.crosstalk != "" {
		p.Crosstalk = f.crosstalk
	}
	return p, p.Validate()
}

// decoderFor maps --decoder to a dsp decoder: auto (native WAV, ffmpeg for
// the rest when installed), native (WAV and MP3 in Go) or ffmpeg.
func decoderFor(name string) (dsp.Decoder, error) {
	switch name {
	case "auto":
		return dsp.AutoDecoder{}, nil
	case "native":
		return dsp.NativeDecoder{}, nil
	case "ffmpeg":
		return dsp.FFmpegDecoder{}, nil
	}
	return nil, fmt.Errorf("--decoder %s: allowed auto, native, ffmpeg", name)
}
