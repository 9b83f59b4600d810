package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
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
	// (A later issue adds the timelines written by --timelines here.)
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
	fs.StringVar(&f.preset, "preset", plan.DefaultPresetName, "preset: podcast, youtube, cours, interview, radical")
	fs.StringVar(&f.decoder, "decoder", "auto", "decoder: auto, native or ffmpeg")
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
	// Timeline export flags (--timelines ...) are added here by the
	// timelines issue.
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
	dec, err := decoderFor(f.decoder)
	if err != nil {
		return usageError{err.Error()}
	}

	st, err := dec(ctx, pos[0])
	if err != nil {
		return err
	}
	a, err := dsp.Analyze(ctx, st, st.Info(), nil)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = cerr
	}
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

// openFunc opens a file for streaming decode.
type openFunc func(ctx context.Context, path string) (dsp.Stream, error)

// decoderFor maps --decoder to an opener.
//
// The dsp decoders (dsp.Open and the native WAV/MP3 decoder) are not in
// the tree yet; until they land, auto and ffmpeg both stream through an
// ffmpeg child process and native is refused with a clear error.
func decoderFor(name string) (openFunc, error) {
	switch name {
	case "auto", "ffmpeg":
		return openFFmpeg, nil
	case "native":
		return nil, errors.New("--decoder native: the native decoder is not part of this build yet; use auto or ffmpeg")
	}
	return nil, fmt.Errorf("--decoder %q: allowed auto, native, ffmpeg", name)
}

// ffmpegStream is a dsp.Stream of float32 samples piped from ffmpeg.
type ffmpegStream struct {
	info   dsp.Info
	format dsp.Format
	cmd    *exec.Cmd
	r      *bufio.Reader
	stderr bytes.Buffer
	buf    []byte
	done   bool
}

// openFFmpeg probes path with ffprobe and starts ffmpeg decoding its first
// audio stream to interleaved float32 at the native rate and channels.
func openFFmpeg(ctx context.Context, path string) (dsp.Stream, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("ffprobe"); err != nil {
		return nil, dsp.ErrFFmpegMissing
	}
	out, err := exec.CommandContext(ctx, "ffprobe", "-v", "error", "-select_streams", "a:0",
		"-show_entries", "stream=sample_rate,channels,codec_name,duration:format=format_name,duration",
		"-of", "json", path).Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w (ffprobe: %v)", path, dsp.ErrUnsupportedFormat, err)
	}
	var pr struct {
		Streams []struct {
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
			Codec      string `json:"codec_name"`
		} `json:"streams"`
		Format struct {
			Name     string `json:"format_name"`
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &pr); err != nil || len(pr.Streams) == 0 {
		return nil, fmt.Errorf("%s: no audio stream: %w", path, dsp.ErrUnsupportedFormat)
	}
	rate, _ := strconv.Atoi(pr.Streams[0].SampleRate)
	ch := pr.Streams[0].Channels
	if rate <= 0 || ch <= 0 {
		return nil, fmt.Errorf("%s: sample rate %q, %d channels: %w", path, pr.Streams[0].SampleRate, ch, dsp.ErrUnsupportedFormat)
	}
	dur, _ := strconv.ParseFloat(pr.Format.Duration, 64)
	s := &ffmpegStream{
		info: dsp.Info{Name: filepath.Base(path), Type: "audio", Format: strings.Split(pr.Format.Name, ",")[0],
			Codec: pr.Streams[0].Codec, SampleRate: rate, Channels: ch, Duration: dur, Frames: -1},
		format: dsp.Format{SampleRate: rate, Channels: ch},
	}
	s.cmd = exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a:0",
		"-f", "f32le", "-acodec", "pcm_f32le", "-")
	s.cmd.Stderr = &s.stderr
	pipe, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	s.r = bufio.NewReaderSize(pipe, 1<<16)
	return s, nil
}

func (s *ffmpegStream) Format() dsp.Format { return s.format }
func (s *ffmpegStream) Info() dsp.Info     { return s.info }

// Read fills p with whole frames of samples.
func (s *ffmpegStream) Read(p []float32) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	ch := s.format.Channels
	n := len(p) - len(p)%ch
	if n == 0 {
		return 0, nil
	}
	if cap(s.buf) < 4*n {
		s.buf = make([]byte, 4*n)
	}
	b := s.buf[:4*n]
	got, err := io.ReadAtLeast(s.r, b, 4*ch)
	got -= got % (4 * ch)
	for i := 0; i < got/4; i++ {
		p[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		s.done = true
		if werr := s.cmd.Wait(); werr != nil {
			return got / 4, fmt.Errorf("ffmpeg: %v: %s", werr, strings.TrimSpace(s.stderr.String()))
		}
		s.cmd = nil
		if got == 0 {
			return 0, io.EOF
		}
		return got / 4, nil
	}
	return got / 4, err
}

// Close stops ffmpeg if it is still running.
func (s *ffmpegStream) Close() error {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
	return nil
}
