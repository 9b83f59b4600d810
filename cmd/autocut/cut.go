package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
	"github.com/autocut-dev/autocut/transcribe"
)

// runCut implements `autocut cut [flags] -o OUT FILE`: analyse, plan and
// render the cut file (flags may also follow FILE).
func runCut(ctx context.Context, e env) error {
	f := analyzeFlags{set: map[string]bool{}}
	var out, format, normalize string
	var denoise, rumble boolFlag
	var doTranscribe bool
	var model string
	tcfg := transcribe.ConfigFromEnv()
	fs := flag.NewFlagSet("cut", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: autocut cut [flags] -o OUT FILE\n\nflags:\n")
		fs.PrintDefaults()
	}
	f.register(fs)
	fs.StringVar(&out, "o", "", "output file (required)")
	fs.StringVar(&format, "format", "", "output format: mp3, mp3_320, wav, m4a, mp4, mp4_hq (default: from -o's extension, else mp3)")
	fs.StringVar(&normalize, "normalize", "", "loudness normalization: none, podcast (-16 LUFS), youtube (-14 LUFS) (default: the preset's)")
	fs.Var(&denoise, "denoise", "noise reduction, true or false (default: the preset's)")
	fs.Var(&rumble, "rumble", "70 Hz high-pass filter, true or false (default: the preset's)")
	fs.BoolVar(&doTranscribe, "transcribe", false, "transcribe and cut filler words (um, uh, euh, ...)")
	fs.StringVar(&model, "model", "", "whisper model for --transcribe, pulled with 'autocut models pull NAME' (default: the first one pulled)")
	fs.StringVar(&tcfg.WhisperModel, "whisper-model", tcfg.WhisperModel, "whisper.cpp model file for --transcribe (env AUTOCUT_WHISPER_MODEL)")
	fs.StringVar(&tcfg.WhisperCLI, "whisper-cli", tcfg.WhisperCLI, "whisper-cli binary (env AUTOCUT_WHISPER_CLI)")
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
		return usageError{"need exactly one FILE (autocut cut [flags] -o OUT FILE)"}
	}
	if out == "" {
		return usageError{"-o OUT is required"}
	}
	in := pos[0]
	if err := tl.check(); err != nil {
		return err
	}
	params, err := f.resolve()
	if err != nil {
		return usageError{err.Error()}
	}
	preset, _ := plan.LookupPreset(f.preset)
	o := transcode.Options{Format: format, Normalize: preset.Normalize, Denoise: preset.Denoise, Rumble: preset.Rumble}
	if o.Format == "" {
		o.Format = formatFromExt(out)
	}
	if normalize != "" {
		o.Normalize = normalize
	}
	if denoise.set {
		o.Denoise = denoise.v
	}
	if rumble.set {
		o.Rumble = rumble.v
	}
	dec, err := decoderFor(f.decoder)
	if err != nil {
		return usageError{err.Error()}
	}

	bar := newProgressBar(e.stderr)
	bar.stage("analysing")
	a, err := dsp.AnalyzeWith(ctx, dec, in, bar.update)
	if err != nil {
		return fmt.Errorf("analyse %s: %w", in, err)
	}
	if a.Input.Type == "video" {
		// The decoders that read the audio do not always know the frame rate.
		if info, perr := dsp.Probe(ctx, in); perr == nil {
			a.Input.FrameRate, a.Input.VideoFrames, a.Input.Type = info.FrameRate, info.VideoFrames, info.Type
		}
	}
	if err := o.Validate(a.Input); err != nil {
		return usageError{err.Error()}
	}
	var fillers []plan.Cut
	if doTranscribe {
		if model != "" {
			if tcfg.WhisperModel, err = modelPath(model); err != nil {
				return err
			}
		}
		t, err := transcribe.New(tcfg)
		if err != nil {
			return err
		}
		bar.stage("transcribing")
		tr, err := t.Transcribe(ctx, in, "", bar.update)
		if err != nil {
			return err
		}
		fillers = transcribe.FillerCuts(tr, 0.04)
		fmt.Fprintf(e.stderr, "%s found %d filler words\n", t.Name(), len(tr.Fillers))
	}
	p, err := plan.Make(a, params, fillers)
	if err != nil {
		return err
	}
	bar.stage("rendering")
	res, err := transcode.Render(ctx, in, a, p, o, out, bar.update)
	bar.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%s: %.1f s -> %.1f s (%d cuts, %.1f%% saved), %s %s\n", filepath.Base(out),
		p.Stats.OriginalSec, res.Duration, p.Stats.CutsCount, p.Stats.SavedPct, res.Format, humanBytes(res.Size))
	files, err := tl.write(ctx, in, p.Keep, a.Input)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(e.stderr, "timeline: %s\n", f)
	}
	return nil
}

// formatFromExt picks the output format from a file name's extension.
func formatFromExt(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".wav":
		return "wav"
	case ".m4a", ".aac":
		return "m4a"
	case ".mp4", ".mov":
		return "mp4"
	}
	return "mp3"
}

// boolFlag is a boolean flag that remembers whether it was given.
type boolFlag struct{ v, set bool }

func (b *boolFlag) String() string   { return fmt.Sprint(b.v) }
func (b *boolFlag) IsBoolFlag() bool { return true }
func (b *boolFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		b.v = true
	case "false", "0", "no", "off":
		b.v = false
	default:
		return fmt.Errorf("want true or false, got %q", s)
	}
	b.set = true
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
}

// progressBar draws a bar on a terminal, or prints plain lines every 10%.
type progressBar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	name     string
	last     float64
	lastDraw time.Time
}

func newProgressBar(w io.Writer) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressBar{w: w, tty: tty}
}

func (b *progressBar) stage(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty && b.name != "" {
		fmt.Fprintln(b.w)
	}
	b.name, b.last = name, -1
}

func (b *progressBar) update(f float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty {
		if time.Since(b.lastDraw) < 100*time.Millisecond && f < 1 {
			return
		}
		b.lastDraw = time.Now()
		n := int(f * 30)
		fmt.Fprintf(b.w, "\r%-10s [%s%s] %3.0f%%", b.name, strings.Repeat("#", n), strings.Repeat(".", 30-n), f*100)
		return
	}
	if step := float64(int(f*10)) / 10; step > b.last {
		b.last = step
		fmt.Fprintf(b.w, "%s %3.0f%%\n", b.name, step*100)
	}
}

func (b *progressBar) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty {
		fmt.Fprintln(b.w)
	}
}
