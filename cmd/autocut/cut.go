package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
	"github.com/autocut-dev/autocut/transcribe"
)

// runCut implements `autocut cut [flags] [-o OUT] FILE [FILE...]`:
// analyse, plan and render the cut file (flags may also follow FILE), and
// write the asked timelines next to it. Several files, or --tracks, are
// the tracks of one recording (cutTracks).
func runCut(ctx context.Context, e env) error {
	var f analyzeFlags
	var out, format, normalize string
	var denoise, rumble boolFlag
	var doTranscribe bool
	var model string
	var ow overwriteFlags
	var tl timelineFlags
	var tracksMode string
	var splitTracks, gateBleed bool
	tcfg := transcribe.ConfigFromEnv()
	c := newFlags("cut", "autocut cut [flags] [-o OUT] FILE [FILE...]",
		"Writes FILE without its silences (and, with --transcribe, its filler words) to OUT, and the edit timelines\n"+
			"asked with --timelines next to it. OUT's extension says the format (.mp3, .wav, .m4a, .mp4), or --format does;\n"+
			"without -o, OUT is FILE's name with -autocut, next to it, in FILE's format or --format's (talk.wav:\n"+
			"talk-autocut.wav). -o - writes to standard output. MP3 written to a stream (standard output, a pipe) is\n"+
			"constant 192 kb/s: a stream cannot take the VBR header, written last at the front; a file's MP3 is VBR V2.\n"+
			"An existing OUT is replaced only with -y; OUT may never be FILE.\n"+
			"Several FILEs are the tracks of one recording, one microphone each, aligned from 0 (the first names OUT):\n"+
			"they are cut alike and mixed, each brought to the same loudness first, or written one file per track with\n"+
			"--split-tracks (OUT's name with -1, -2, ...). --tracks streams takes one FILE's audio streams as the tracks\n"+
			"(OBS's MKV), --tracks channels its channels (a stereo file is one track unless asked). --gate-bleed turns each\n"+
			"track down 20 dB where it does not speak its own voice (the others' bleed, its bed between its turns), in the\n"+
			"mix and in each track's file. The timelines carry one audio track per track, all cut alike (an EDL per track).")
	c.StringVar(&out, "o", "", "output `file`, or - for standard output (default: FILE's name with -autocut, next to it)")
	ow.register(c)
	c.choice("format", "output `format`: "+strings.Join(transcode.Formats(), ", ")+" (default: from -o's extension, or without -o FILE's)", transcode.Formats(), &format)
	f.register(c)
	c.choice("normalize", "loudness `target`: none, podcast (-16 LUFS), youtube (-14 LUFS) (default: the preset's)",
		transcode.Normalizations(), &normalize)
	c.boolean("denoise", "noise reduction, true or false (default: the preset's)", &denoise)
	c.boolean("rumble", "70 Hz high-pass filter, true or false (default: the preset's)", &rumble)
	c.BoolVar(&doTranscribe, "transcribe", false, "transcribe and cut filler words (um, uh, euh, ...)")
	c.StringVar(&model, "model", "", "whisper model `name` for --transcribe (an error without it), pulled with 'autocut models pull NAME' (default: the first pulled of base.en, base, small.en, small, then the rest)")
	c.StringVar(&tcfg.WhisperModel, "whisper-model", tcfg.WhisperModel, "whisper.cpp model `file` for --transcribe (env AUTOCUT_WHISPER_MODEL)")
	c.StringVar(&tcfg.WhisperCLI, "whisper-cli", tcfg.WhisperCLI, "whisper-cli `binary` (env AUTOCUT_WHISPER_CLI)")
	tl.register(c, "the output's directory")
	c.choice("tracks", "the tracks of one FILE: streams (one per audio stream) or channels (one per channel) (default: each FILE is one track)",
		[]string{dsp.TracksStreams, dsp.TracksChannels}, &tracksMode)
	c.BoolVar(&splitTracks, "split-tracks", false, "write each track to its own file (OUT's name with -1, -2, ...) rather than their mix")
	c.BoolVar(&gateBleed, "gate-bleed", false, "with several tracks: turn each track down 20 dB where it does not speak its own voice (the others' bleed), before the mix")
	pos, err := c.parse(e.args, e.stdout)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return flagError{"need a FILE (autocut cut [flags] [-o OUT] FILE [FILE...])"}
	}
	multi := len(pos) > 1 || tracksMode != "" || splitTracks
	if multi {
		switch {
		case doTranscribe:
			return usageError{"--transcribe with several tracks: not supported yet; transcribe one track at a time"}
		case tl.mediaPath != "" && len(pos) > 1:
			return usageError{"--timeline-media-path with several files: it names one file; each track's timeline media is its file's absolute path"}
		case out == "-" && splitTracks:
			return usageError{"-o - with --split-tracks: one stream cannot hold several files; name the output"}
		}
	}
	if gateBleed && !multi {
		return usageError{"--gate-bleed: the gate is for several tracks (one microphone per person); give each track's FILE, or --tracks"}
	}
	if model != "" && !doTranscribe {
		return usageError{fmt.Sprintf("--model %s: the model is for --transcribe; add --transcribe to cut filler words", model)}
	}
	in := pos[0]
	if out == "" {
		if out, err = defaultOutput(in, format); err != nil {
			return err
		}
	}
	if err := ow.check(); err != nil {
		return err
	}
	params, err := f.resolve()
	if err != nil {
		return usageError{err.Error()}
	}
	preset, _ := plan.LookupPreset(f.preset)
	o := transcode.Options{Normalize: preset.Normalize, Denoise: preset.Denoise, Rumble: preset.Rumble}
	if o.Format, err = formatForOutput(out, format); err != nil {
		return err
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
	for _, in := range pos {
		if err := checkInput(in); err != nil {
			return err
		}
	}
	var refs []dsp.TrackRef
	outs := []string{out}
	if multi {
		if refs, err = dsp.ListTracks(ctx, dsp.AutoDecoder{}, tracksMode, pos); err != nil {
			return usageError{err.Error()}
		}
		if splitTracks {
			outs = transcode.SplitNames(out, len(refs))
		}
		for _, o := range outs {
			for _, in := range pos[1:] {
				if err := checkPath(in, o, ow); err != nil {
					return err
				}
			}
			if splitTracks {
				if _, err := checkOutput(in, o, ow); err != nil {
					return err
				}
			}
		}
		if err := distinct(outs); err != nil {
			return err
		}
	}

	// Every output is checked before any work, and before anything is
	// opened for writing.
	var stream io.Writer
	tlDir := "."
	if out == "-" {
		if e.stdoutTTY {
			return usageError{"-o -: standard output is a terminal; redirect it to a file or a pipe"}
		}
		stream = e.stdout
	} else if splitTracks { // (each track's file is checked above)
		tlDir = filepath.Dir(out)
	} else {
		chk, err := checkOutput(in, out, ow)
		if err != nil {
			return err
		}
		if !chk.stream {
			tlDir = filepath.Dir(out)
		} else {
			// An existing device or FIFO (/dev/null, a named pipe): written in place.
			w, err := os.OpenFile(out, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer w.Close()
			stream = w
		}
	}
	tlPaths, err := tl.check(in, tlDir)
	if err != nil {
		return err
	}
	tlPaths = append(tlPaths, tl.trackEDLs(in, tlDir, len(refs))...)
	for _, p := range tlPaths {
		for _, in := range pos {
			if err := checkPath(in, p, ow); err != nil {
				return err
			}
		}
	}
	if out != "-" {
		if err := distinct(append(slices.Clone(outs), tlPaths...)); err != nil {
			return err
		}
	}

	// ffmpeg, which encodes every format but WAV, is looked for before the
	// analysis: missing, it fails at once, not after the analysis.
	if transcode.ContainerOf(o.Format) != "wav" {
		if _, err := exec.LookPath("ffmpeg"); err != nil {
			return fmt.Errorf("%w (%v)", transcode.ErrFFmpegMissing, err)
		}
	}

	// The staging directories are made now: a directory autocut cannot
	// write in fails before the work, not after the render.
	st := newStager(e.cleanup, ow.yes)
	defer st.close()
	if stream == nil {
		if _, err := st.dir(filepath.Dir(out)); err != nil {
			return err
		}
	}
	if err := tl.stage(st, tlDir); err != nil {
		return err
	}

	// What the input's header tells is checked before the analysis too:
	// mp4 of an audio-only input, timelines the rate cannot have. Where
	// the probe fails, the analysis says why.
	if tl.kinds != "" || transcode.ContainerOf(o.Format) == "mp4" {
		if info, err := dsp.Probe(ctx, in); err == nil {
			if transcode.ContainerOf(o.Format) == "mp4" && info.Type != "video" {
				return audioOnlyError(in, o.Format)
			}
			if err := tl.validate(info); err != nil {
				return err
			}
		}
	}

	// The transcriber (and --model's file) is found before the analysis:
	// a model not pulled fails at once, not after minutes of work.
	var t transcribe.Transcriber
	if doTranscribe {
		if model != "" {
			if tcfg.WhisperModel, err = modelPath(model); err != nil {
				return err
			}
		}
		if t, err = transcribe.New(ctx, tcfg); err != nil {
			return err
		}
	}

	bar := newProgressBar(e.stderr, e.stderrTTY)
	defer bar.done()
	if multi {
		return cutTracks(ctx, e, bar, st, refs, params, o, out, outs, stream, trackOptions{split: splitTracks, gate: gateBleed}, &tl, tlDir)
	}
	bar.stage("analysing")
	a, err := dsp.AnalyzeWith(ctx, dec, in, bar.update)
	if err != nil {
		return analysisError(in, err)
	}
	for _, w := range a.Warnings {
		if strings.HasPrefix(w, dsp.WarnTruncated) {
			fmt.Fprintf(e.stderr, "autocut cut: %s: warning: %s\n", filepath.Base(in), w)
		}
	}
	if a.Input.Type == "video" {
		// The decoders that read the audio do not always know the frame rate.
		if info, perr := dsp.Probe(ctx, in); perr == nil {
			a.Input.FrameRate, a.Input.VideoFrames, a.Input.Type = info.FrameRate, info.VideoFrames, info.Type
			a.Input.Width, a.Input.Height = info.Width, info.Height
		}
	}
	if transcode.ContainerOf(o.Format) == "mp4" && a.Input.Type != "video" {
		return audioOnlyError(in, o.Format)
	}
	if err := o.Validate(a.Input); err != nil {
		return usageError{err.Error()}
	}
	var fillers []plan.Cut
	if doTranscribe {
		bar.stage("transcribing")
		tr, err := t.Transcribe(ctx, in, "", bar.update)
		if err != nil {
			return err
		}
		fillers = transcribe.FillerCuts(tr, 0.04)
		sure := 0
		for _, f := range tr.Fillers {
			if f.Cut {
				sure++
			}
		}
		bar.println(fmt.Sprintf("%s found %d filler words, %d sure enough to cut (the others are suggestions, not cut: review them in the page or with the API)", orDefaultName(tr.Engine, t.Name()), len(tr.Fillers), sure))
		if tr.Warning != "" {
			bar.println("warning: " + tr.Warning)
		}
	}
	p, err := plan.Make(a, params, fillers)
	if err != nil {
		return flagWords(err)
	}

	bar.stage("rendering")
	var res *transcode.Result
	name := out
	if stream != nil {
		res, err = transcode.RenderTo(ctx, in, a, p, o, stream, bar.update)
		if out == "-" {
			name = "standard output"
		}
	} else {
		var staged string
		if staged, err = st.path(out); err == nil {
			if res, err = transcode.Render(ctx, in, a, p, o, staged, bar.update); err == nil {
				err = st.commit(staged, out)
			}
		}
	}
	bar.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s: %s -> %s (%s, %.1f%% saved), %s %s\n", name,
		clock(p.Stats.OriginalSec), clock(res.Duration), counted(p.Stats.CutsCount, "cut"), p.Stats.SavedPct, res.Format, humanBytes(res.Size))
	files, err := tl.write(st, tlDir, in, p.Keep, a.Input, func(err error) {
		fmt.Fprintf(e.stderr, "autocut cut: warning: %v\n", err)
	})
	for _, f := range files {
		fmt.Fprintf(e.stderr, "wrote %s\n", f)
	}
	return err
}

// audioOnlyError refuses to write format (mp4, mp4_hq) from the audio-only in.
func audioOnlyError(in, format string) error {
	audio := slices.DeleteFunc(transcode.Formats(), func(f string) bool { return transcode.ContainerOf(f) == "mp4" })
	return usageError{fmt.Sprintf("%s is audio only: %s needs a video input (write %s)", in, format, strings.Join(audio, ", "))}
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

func newProgressBar(w io.Writer, tty bool) *progressBar {
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

// done ends the bar's line on a terminal (once: later calls do nothing).
func (b *progressBar) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty && b.name != "" {
		fmt.Fprintln(b.w)
	}
	b.name = ""
}

// println prints a line of its own between the bar's updates.
func (b *progressBar) println(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty && b.name != "" {
		fmt.Fprint(b.w, "\r\033[K")
	}
	fmt.Fprintln(b.w, s)
}

// orDefaultName is name, or def when name is "".
func orDefaultName(name, def string) string {
	if name != "" {
		return name
	}
	return def
}
