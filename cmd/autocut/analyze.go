package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"

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

// analyzeFlags are the analyze subcommand's options.
type analyzeFlags struct {
	preset    string
	decoder   string
	threshold *float64
	params    plan.Params
	set       map[string]bool // which of the param flags were given
}

// runAnalyze implements `autocut analyze [flags] FILE`: one streaming
// analysis pass, then the cut plan with the preset's params overridden by
// the flags, printed as indented JSON. A plan with nothing to keep is
// still printed (with planError) and exits non-zero.
func runAnalyze(ctx context.Context, e env) error {
	f := analyzeFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: autocut analyze [flags] FILE\n\nflags:\n")
		fs.PrintDefaults()
	}
	f.register(fs)
	var tl timelineFlags
	tl.register(fs)
	pos, err := parseInterspersed(fs, e.args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if len(pos) != 1 {
		return usageError{"need exactly one FILE (autocut analyze [flags] FILE)"}
	}
	params, err := f.resolve()
	if err != nil {
		return usageError{err.Error()}
	}
	if err := tl.check(); err != nil {
		return err
	}
	dec, err := decoderFor(f.decoder)
	if err != nil {
		return usageError{err.Error()}
	}

	a, err := dsp.AnalyzeWith(ctx, dec, pos[0], nil)
	if err != nil {
		return fmt.Errorf("analyse %s: %w", pos[0], err)
	}
	out := analyzeOutput{Analysis: a}
	p, perr := plan.Make(a, params, nil)
	if perr == nil || errors.Is(perr, plan.ErrNothingToKeep) {
		out.Plan = p
	}
	if perr != nil {
		out.PlanError = perr.Error()
	} else {
		if a.Input.Type == "video" && a.Input.FrameRate.Num == 0 {
			if info, err := dsp.Probe(ctx, pos[0]); err == nil {
				a.Input.FrameRate, a.Input.StartTimecode = info.FrameRate, info.StartTimecode
			}
		}
		files, err := tl.write(ctx, pos[0], p.Keep, a.Input)
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
	return perr
}

// register adds the planning flags (--preset --threshold --min-silence
// --keep-silence --min-speech --decoder) to fs; analyze and cut share them.
func (f *analyzeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.decoder, "decoder", "auto", "decoder: auto, native or ffmpeg")
	fs.StringVar(&f.preset, "preset", plan.DefaultPresetName, "preset: podcast, youtube, cours, interview, radical")
	fs.Func("threshold", "silence threshold in dB, -70 to -10 (default: automatic, from the file)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return err
		}
		f.threshold = &v
		return nil
	})
	param := func(name, usage string, dst *float64) {
		fs.Func(name, usage+" (default: the preset's)", func(s string) error {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return err
			}
			*dst, f.set[name] = v, true
			return nil
		})
	}
	param("min-silence", "minimum silence to cut, seconds, 0.2 to 10", &f.params.MinSilenceSec)
	param("keep-silence", "silence kept at each cut, ms, 0 to 2000", &f.params.KeepSilenceMs)
	param("min-speech", "speech islands shorter than this between cuts are cut, ms, 0 to 2000", &f.params.MinSpeechMs)
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
	if f.set["min-silence"] {
		p.MinSilenceSec = f.params.MinSilenceSec
	}
	if f.set["keep-silence"] {
		p.KeepSilenceMs = f.params.KeepSilenceMs
	}
	if f.set["min-speech"] {
		p.MinSpeechMs = f.params.MinSpeechMs
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
	return nil, fmt.Errorf("--decoder %q: allowed auto, native, ffmpeg", name)
}
