// Package transcode renders the cut file: it decodes the input, keeps the
// plan's ranges with de-click fades, filters (rumble, denoise), normalises
// loudness with two passes of our own (measure, then gain + true-peak
// limiter) and encodes: WAV in Go, mp3/m4a/mp4 through one ffmpeg process
// fed by a pipe. Nothing is written to temporary full-length files.
package transcode

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/tail"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
)

// ErrFFmpegMissing reports that ffmpeg is needed for the format but is not installed.
var ErrFFmpegMissing = dsp.ErrFFmpegMissing

// Export formats.
var formats = map[string]struct{ container, ext string }{
	"mp3":     {"mp3", ".mp3"},
	"mp3_320": {"mp3", ".mp3"},
	"wav":     {"wav", ".wav"},
	"m4a":     {"m4a", ".m4a"},
	"mp4":     {"mp4", ".mp4"},
	"mp4_hq":  {"mp4", ".mp4"},
}

// Loudness targets of the normalize option, LUFS.
var targets = map[string]float64{"podcast": -16, "youtube": -14}

// Options are the export settings of a render.
type Options struct {
	Format    string // mp3, mp3_320, wav, m4a, mp4, mp4_hq
	Normalize string // none, podcast, youtube
	Denoise   bool
	Rumble    bool
	FFmpeg    string // ffmpeg binary; "" means ffmpeg on PATH
}

// Result describes the written file.
type Result struct {
	Format   string  // container: mp3, wav, m4a, mp4
	Duration float64 // seconds, measured on the written file
	Name     string  // file name
	Size     int64   // bytes
	// LoudnessIn is the measured integrated loudness before the normalization gain (LUFS).
	LoudnessIn float64
	// GainDb is the normalization gain applied.
	GainDb float64
}

// ContainerOf returns the container of an export format ("mp3" for mp3_320).
func ContainerOf(format string) string { return formats[format].container }

// OutputName returns the input name with an -autocut suffix and the format's extension.
func OutputName(inputName, format string) string {
	stem := strings.TrimSuffix(inputName, filepath.Ext(inputName))
	if stem == "" {
		stem = "output"
	}
	return stem + "-autocut" + formats[format].ext
}

// Validate checks options against the input (mp4 only for video).
func (o Options) Validate(info dsp.Info) error {
	if _, ok := formats[o.Format]; !ok {
		return fmt.Errorf("%w: export.format %q: allowed mp3, mp3_320, wav, m4a, mp4, mp4_hq", plan.ErrInvalidParams, o.Format)
	}
	if n := o.Normalize; n != "" && n != "none" && targets[n] == 0 {
		return fmt.Errorf("%w: export.normalize %q: allowed none, podcast, youtube", plan.ErrInvalidParams, n)
	}
	if ContainerOf(o.Format) == "mp4" && info.Type != "video" {
		return fmt.Errorf("%w: export.format %q needs a video input; %s is audio only (choose mp3, mp3_320, wav or m4a)", plan.ErrInvalidParams, o.Format, info.Name)
	}
	return nil
}

// Render writes the cut file for plan p of the input at inputPath to out.
// a is the input's analysis (for its duration, loudness blocks and noise).
// Progress reports the fraction of the output written. On error or
// cancellation the partial output is removed.
func Render(ctx context.Context, inputPath string, a *dsp.Analysis, p *plan.Plan, o Options, out string, progress dsp.Progress) (res *Result, err error) {
	if err := o.Validate(a.Input); err != nil {
		return nil, err
	}
	if len(p.Keep) == 0 {
		return nil, plan.ErrNothingToKeep
	}
	defer func() {
		if err != nil {
			os.Remove(out)
		}
	}()
	rate := a.Input.SampleRate
	keep := p.Keep
	var segs []timeline.Segment
	video := ContainerOf(o.Format) == "mp4"
	if video {
		// Audio follows the video's frame-snapped cut exactly, so A/V stay in sync.
		segs = timeline.FrameList(p.Keep, a.Input.FrameRate, a.Input.Duration)
		keep = make([]dsp.Range, len(segs))
		for i, s := range segs {
			keep[i] = dsp.Range{Start: timeline.FrameToSec(s.SrcIn, a.Input.FrameRate), End: timeline.FrameToSec(s.SrcOut, a.Input.FrameRate)}
		}
		if len(keep) == 0 {
			return nil, plan.ErrNothingToKeep
		}
	}
	spans := spansOf(keep, rate)
	totalOut := framesOf(spans)
	res = &Result{Format: ContainerOf(o.Format), Name: filepath.Base(out), LoudnessIn: math.Inf(-1)}

	// Pass 1: loudness of the chain's output.
	gain := 1.0
	if target, ok := targets[o.Normalize]; ok {
		var lufs float64
		if !o.Rumble && !o.Denoise {
			lufs = a.LoudnessOf(keep) // the kept audio is unchanged but for fades: no decode needed
		} else {
			lufs, err = measureChain(ctx, inputPath, a, p.Cuts, spans, o)
			if err != nil {
				return nil, err
			}
		}
		res.LoudnessIn = lufs
		if !math.IsInf(lufs, -1) && !math.IsNaN(lufs) {
			res.GainDb = target - lufs
			gain = math.Pow(10, res.GainDb/20)
		}
	}

	ceiling := -1.3 // dBTP, with margin for the limiter's estimate
	if res.Format != "wav" {
		ceiling = -2.0 // lossy encoders overshoot the input's true peak a little
	}
	normalize := o.Normalize != "" && o.Normalize != "none"
	if target, ok := targets[o.Normalize]; ok && res.GainDb != 0 && a.Loudness.TruePeak+res.GainDb > ceiling-0.5 {
		// The limiter will work and lower the loudness a little: measure the
		// limited result and correct the gain (at most three passes).
		for i := 0; i < 3; i++ {
			got, err := measureLimited(ctx, inputPath, a, p.Cuts, spans, o, gain, ceiling)
			if err != nil {
				return nil, err
			}
			if math.IsInf(got, -1) || math.Abs(target-got) < 0.15 {
				break
			}
			res.GainDb += target - got
			gain = math.Pow(10, res.GainDb/20)
		}
	}

	// Pass 2: the chain, then the encoder.
	src, closeSrc, err := buildChain(ctx, inputPath, a, p.Cuts, spans, o)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	if normalize {
		src = newLimiter(&gainSource{src: src, gain: float32(gain)}, ceiling, 0.005)
	}
	src = &countSource{src: src, total: totalOut, progress: progress}

	if res.Format == "wav" {
		bits := 16
		if a.Input.BitsPerSample > 16 {
			bits = 24
		}
		err = writeWAV(ctx, src, out, bits)
	} else {
		err = encodeFFmpeg(ctx, src, inputPath, a.Input, segs, o, out)
	}
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil, err
	}
	res.Size = st.Size()
	if res.Format == "wav" {
		res.Duration = float64(totalOut) / float64(rate)
	} else if res.Duration, err = probeDuration(ctx, o, out); err != nil {
		return nil, err
	}
	return res, nil
}

// buildChain opens the input and stacks the stages before gain: keep
// ranges with fades, then rumble and denoise.
func buildChain(ctx context.Context, inputPath string, a *dsp.Analysis, cuts []plan.Cut, spans [][2]int64, o Options) (dsp.Source, func(), error) {
	st, err := dsp.Open(ctx, inputPath)
	if err != nil {
		return nil, nil, err
	}
	var src dsp.Source = newKeepSource(st, spans, a.Input.Frames, 0.005)
	if o.Rumble {
		src = newHighPass(src, 70)
	}
	if o.Denoise {
		src, err = newDenoiser(ctx, inputPath, a, cuts, src)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
	}
	return src, func() { st.Close() }, nil
}

// measureChain runs the chain once and measures its integrated loudness.
func measureChain(ctx context.Context, inputPath string, a *dsp.Analysis, cuts []plan.Cut, spans [][2]int64, o Options) (float64, error) {
	src, closeSrc, err := buildChain(ctx, inputPath, a, cuts, spans, o)
	if err != nil {
		return 0, err
	}
	defer closeSrc()
	an, err := dsp.Analyze(ctx, src, dsp.Info{}, nil)
	if err != nil {
		return 0, err
	}
	return an.Loudness.Integrated, nil
}

// measureLimited runs the chain through gain and limiter and measures the result's integrated loudness.
func measureLimited(ctx context.Context, inputPath string, a *dsp.Analysis, cuts []plan.Cut, spans [][2]int64, o Options, gain, ceiling float64) (float64, error) {
	src, closeSrc, err := buildChain(ctx, inputPath, a, cuts, spans, o)
	if err != nil {
		return 0, err
	}
	defer closeSrc()
	an, err := dsp.Analyze(ctx, newLimiter(&gainSource{src: src, gain: float32(gain)}, ceiling, 0.005), dsp.Info{}, nil)
	if err != nil {
		return 0, err
	}
	return an.Loudness.Integrated, nil
}

// pump reads src to the end, handing each buffer to sink.
func pump(ctx context.Context, src dsp.Source, sink func([]float32) error) error {
	buf := make([]float32, stageBufFrames*src.Format().Channels)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := src.Read(buf)
		if n > 0 {
			if werr := sink(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func writeWAV(ctx context.Context, src dsp.Source, out string, bits int) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := newWAVWriter(f, src.Format(), bits)
	if err != nil {
		return err
	}
	if err := pump(ctx, src, w.write); err != nil {
		return err
	}
	if err := w.finish(); err != nil {
		return err
	}
	return f.Close()
}

// encodeFFmpeg feeds f32le from src to one ffmpeg process that encodes the
// audio (and, for mp4, cuts the input's video at segs and muxes both).
func encodeFFmpeg(ctx context.Context, src dsp.Source, inputPath string, info dsp.Info, segs []timeline.Segment, o Options, out string) error {
	bin := o.FFmpeg
	if bin == "" {
		bin = "ffmpeg"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return fmt.Errorf("%w (%v)", ErrFFmpegMissing, err)
	}
	f := src.Format()
	args := []string{"-nostdin", "-v", "error", "-y"}
	pcm := []string{"-f", "f32le", "-ar", strconv.Itoa(f.SampleRate), "-ac", strconv.Itoa(f.Channels), "-i", "pipe:0"}
	switch o.Format {
	case "mp3":
		args = append(append(args, pcm...), "-c:a", "libmp3lame", "-q:a", "2", "-f", "mp3")
	case "mp3_320":
		args = append(append(args, pcm...), "-c:a", "libmp3lame", "-b:a", "320k", "-f", "mp3")
		if f.SampleRate < 32000 {
			// 320 kbit/s exists only in MPEG-1 Layer III (32, 44.1, 48 kHz).
			args = append(args, "-ar", mpeg1Rate(f.SampleRate))
		}
	case "m4a":
		args = append(append(args, pcm...), "-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart", "-f", "ipod")
	case "mp4", "mp4_hq":
		sel := make([]string, len(segs))
		for i, s := range segs {
			sel[i] = fmt.Sprintf("between(n,%d,%d)", s.SrcIn, s.SrcOut-1)
		}
		vf := fmt.Sprintf("select='%s',setpts=N/FRAME_RATE/TB", balancedSum(sel))
		crf, preset, abr := "23", "veryfast", "192k"
		if o.Format == "mp4_hq" {
			crf, preset, abr = "18", "slow", "256k"
		}
		args = append(args, "-i", inputPath)
		args = append(args, pcm...)
		args = append(args, "-filter_complex", "[0:v:0]"+vf+"[v]", "-map", "[v]", "-map", "1:a",
			"-r", info.FrameRate.String(), "-c:v", "libx264", "-crf", crf, "-preset", preset, "-pix_fmt", "yuv420p",
			"-c:a", "aac", "-b:a", abr, "-movflags", "+faststart", "-f", "mp4")
	}
	args = append(args, out)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 16 << 10}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	var b []byte
	perr := pump(ctx, src, func(p []float32) error {
		if cap(b) < 4*len(p) {
			b = make([]byte, 4*len(p))
		}
		b = b[:4*len(p)]
		for i, v := range p {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		_, err := stdin.Write(b)
		return err
	})
	stdin.Close()
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if werr != nil {
		return fmt.Errorf("ffmpeg encoding %s failed: %v: %s", o.Format, werr, tail.Lines(stderr.String(), 5))
	}
	if perr != nil && !errors.Is(perr, os.ErrClosed) {
		return fmt.Errorf("render: %w", perr)
	}
	return nil
}

// readHead returns up to n first bytes of a file.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:k], err
}

// balancedSum joins terms with + as a balanced tree of parentheses: ffmpeg's
// expression parser recurses once per operator of a flat chain, and fails
// (out of memory) on a chain of a couple hundred terms.
func balancedSum(terms []string) string {
	if len(terms) == 1 {
		return terms[0]
	}
	mid := len(terms) / 2
	return "(" + balancedSum(terms[:mid]) + "+" + balancedSum(terms[mid:]) + ")"
}

// mpeg1Rate picks the MPEG-1 rate a lower rate resamples to most simply.
func mpeg1Rate(rate int) string {
	if 48000%rate == 0 {
		return "48000"
	}
	return "44100"
}

// limitedWriter keeps at most n bytes.
type limitedWriter struct {
	w interface{ WriteString(string) (int, error) }
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.WriteString(string(p[:k]))
		l.n -= k
	}
	return len(p), nil
}

// probeDuration measures the written file's duration: for MP3 from its
// Xing/LAME tag (frames minus encoder delay and padding, which ffprobe's
// container duration still counts), else with ffprobe.
func probeDuration(ctx context.Context, o Options, path string) (float64, error) {
	if ContainerOf(o.Format) == "mp3" {
		if head, err := readHead(path, 1<<16); err == nil {
			if d, ok := dsp.MP3GaplessDuration(head); ok {
				return d, nil
			}
		}
	}
	info, err := dsp.FFmpegDecoder{}.Probe(ctx, path)
	if err != nil {
		return 0, fmt.Errorf("measure output: %w", err)
	}
	return info.Duration, nil
}
