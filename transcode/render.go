// Package transcode renders the cut file: it decodes the input, keeps the
// plan's ranges with de-click fades, filters (rumble, denoise), normalises
// loudness with two passes of our own (measure, then gain + true-peak
// limiter) and encodes: WAV in Go, mp3/m4a/mp4 through one ffmpeg process
// fed by a pipe. Nothing is written to temporary full-length files but the
// output itself, which Render writes under a temporary name and renames into
// place when complete; RenderTo streams it to an io.Writer.
package transcode

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/halves"
	"github.com/autocut-dev/autocut/internal/proc"
	"github.com/autocut-dev/autocut/internal/tail"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
)

// ErrFFmpegMissing reports that ffmpeg is needed for the format but is not installed.
var ErrFFmpegMissing = dsp.ErrFFmpegMissing

// Options are the export settings of a render.
type Options struct {
	Format    string // mp3, mp3_320, wav, m4a, mp4, mp4_hq; "" is invalid (DefaultFormat is the API's and CLI's choice)
	Normalize string // none, podcast, youtube; "" is none
	Denoise   bool
	Rumble    bool
	FFmpeg    string // ffmpeg binary; "" means ffmpeg on PATH
}

// Result describes the written file.
type Result struct {
	Format string // container: mp3, wav, m4a, mp4
	// Duration is in seconds: measured on the written file by Render of the
	// compressed formats, else the kept audio's length (frames / rate).
	Duration float64
	Name     string // file name (Render), "" (RenderTo)
	Size     int64  // bytes written
	// LoudnessIn is the measured integrated loudness before the
	// normalization gain (LUFS); -Inf (math.Inf(-1), which encoding/json
	// refuses) when Normalize asks for none, as nothing is measured then.
	LoudnessIn float64
	// GainDb is the normalization gain applied.
	GainDb float64
	// TrackLoudness and TrackGainDb are, for a mix of tracks
	// (RenderTracks), each track's loudness in the mix before its gain
	// (LUFS, -Inf for a silent one) and the gain (dB) that brought it to
	// the others' loudness, before the normalization; nil otherwise.
	TrackLoudness []float64
	TrackGainDb   []float64
}

// OutputName returns the input name with an -autocut suffix and the format's extension.
func OutputName(inputName, format string) string {
	stem := strings.TrimSuffix(inputName, filepath.Ext(inputName))
	if stem == "" {
		stem = "output"
	}
	return stem + "-autocut" + formatOf(format).ext
}

// Validate checks options against the input (mp4 only for video).
func (o Options) Validate(info dsp.Info) error {
	if formatOf(o.Format).name == "" {
		return fmt.Errorf("%w: export.format %q: allowed %s", plan.ErrInvalidParams, o.Format, strings.Join(Formats(), ", "))
	}
	if _, ok := normalizationOf(o.Normalize); !ok && o.Normalize != "" {
		return fmt.Errorf("%w: export.normalize %q: allowed %s", plan.ErrInvalidParams, o.Normalize, strings.Join(Normalizations(), ", "))
	}
	if ContainerOf(o.Format) == "mp4" && info.Type != "video" {
		return fmt.Errorf("%w: export.format %q needs a video input; %s is audio only (choose mp3, mp3_320, wav or m4a)", plan.ErrInvalidParams, o.Format, info.Name)
	}
	return nil
}

// Render writes the cut file for plan p of the input at inputPath to the
// file out. a is the input's analysis (for its duration, loudness blocks and
// noise). Progress reports the fraction of the output written.
//
// Before any work, a nil analysis or one whose sample format the analyzer
// does not measure (dsp.MinSampleRate, dsp.MaxChannels) wraps
// plan.ErrBadAnalysis; a nil plan, kept ranges that are not finite, sorted,
// disjoint and within the analysed input, invalid options (Validate) or an
// empty out wrap plan.ErrInvalidParams; a plan with nothing to keep is
// plan.ErrNothingToKeep.
//
// The file is written under a temporary name in out's directory and renamed
// to out only when complete (after an fsync), so out never holds a partial
// file: on error or cancellation the temporary file is removed and an
// existing out is left as it was; when complete, an existing out is
// replaced, and the new file takes its permissions. Unlike RenderTo, the encoder may seek in its output: MP3 carries
// its Xing/LAME tag (exact gapless length, VBR seek table) and M4A/MP4 keep
// their index at the front (faststart). Result.Duration is measured on the
// written file.
func Render(ctx context.Context, inputPath string, a *dsp.Analysis, p *plan.Plan, o Options, out string, progress dsp.Progress) (res *Result, err error) {
	if err := checkInput(a, p, o); err != nil {
		return nil, err
	}
	return renderFile(ctx, source{path: inputPath}, a, p, o, out, progress)
}

// renderFile is Render of the input src, checked by the caller.
func renderFile(ctx context.Context, src source, a *dsp.Analysis, p *plan.Plan, o Options, out string, progress dsp.Progress) (res *Result, err error) {
	if out == "" {
		return nil, fmt.Errorf("%w: render: no output path", plan.ErrInvalidParams)
	}
	tmp, err := createTemp(filepath.Dir(out), "."+filepath.Base(out)+".")
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	dst := output{path: tmp.Name()}
	if ContainerOf(o.Format) == "wav" {
		dst = output{w: tmp}
	}
	res, err = render(ctx, src, a, p, o, dst, progress)
	if err != nil {
		return nil, err
	}
	// ffmpeg wrote the file by its name; the handle still points at it.
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	st, err := tmp.Stat()
	if err != nil {
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	res.Name, res.Size = filepath.Base(out), st.Size()
	if res.Format != "wav" {
		if res.Duration, err = probeDuration(ctx, o, tmp.Name()); err != nil {
			return nil, err
		}
	}
	// A file replaced keeps its permissions, as sed -i does.
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() {
		_ = os.Chmod(tmp.Name(), st.Mode().Perm())
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return res, nil
}

// RenderTo writes the cut file for plan p of the input at inputPath to w,
// front to back, never seeking: w may be a pipe, a socket, an HTTP response
// or a bytes.Buffer. a is the input's analysis. Progress reports the fraction
// of the output written. On error, what was written to w is incomplete.
// The arguments are checked as Render checks them.
//
// Every format streams, with a layout that needs no seeking:
//   - wav: the header is written first with the exact sizes, computed from
//     the plan (the kept sample count is known before the first sample is
//     decoded), RF64 past 4 GB. Should the decoder deliver fewer samples than
//     the analysis counted (the input changed since), the data is padded
//     with silence up to the declared length, so the file stays valid.
//   - mp3, mp3_320: no Xing/LAME tag (it is written last, at the front).
//     mp3 is therefore encoded at a constant 192 kbit/s rather than VBR V2,
//     so players that estimate the duration from the bitrate get it right;
//     the decoded stream keeps the encoder's delay and padding (about 50 ms).
//   - m4a, mp4, mp4_hq: fragmented MP4 (an index without samples first,
//     written once the first fragment is encoded so that its edit lists
//     start the video at 0 and skip the AAC priming, then self-contained
//     fragments), which browsers, ffmpeg and current players read; some old
//     tools want the faststart layout that Render writes.
//
// Result.Size is the number of bytes written and Result.Duration the kept
// audio's length (frames / rate); Result.Name is empty.
func RenderTo(ctx context.Context, inputPath string, a *dsp.Analysis, p *plan.Plan, o Options, w io.Writer, progress dsp.Progress) (*Result, error) {
	if err := checkInput(a, p, o); err != nil {
		return nil, err
	}
	if w == nil {
		return nil, fmt.Errorf("%w: render: nil writer", plan.ErrInvalidParams)
	}
	cw := &countingWriter{w: w}
	res, err := render(ctx, source{path: inputPath}, a, p, o, output{w: cw, stream: true}, progress)
	if err != nil {
		return nil, err
	}
	res.Size = cw.n
	return res, nil
}

// keepSlackSec is how far a kept range may end past the analysis's
// duration: the planner rounds times to the microsecond.
const keepSlackSec = 0.001

// checkInput checks what Render and RenderTo are given before any work:
// an analysis with a format the analyzer measures (else plan.ErrBadAnalysis), the options
// (Validate) and a plan whose kept ranges are finite, sorted, disjoint and
// within the analysed input (else plan.ErrInvalidParams), of which one at
// least is not empty (else plan.ErrNothingToKeep).
func checkInput(a *dsp.Analysis, p *plan.Plan, o Options) error {
	if a == nil {
		return fmt.Errorf("render: nil analysis: %w", plan.ErrBadAnalysis)
	}
	if in := a.Input; in.SampleRate < dsp.MinSampleRate || in.SampleRate > dsp.MaxSampleRate || in.Channels < 1 || in.Channels > dsp.MaxChannels {
		return fmt.Errorf("render: analysis of %d Hz x %d channels: %w", in.SampleRate, in.Channels, plan.ErrBadAnalysis)
	}
	if err := o.Validate(a.Input); err != nil {
		return err
	}
	if p == nil {
		return fmt.Errorf("%w: render: nil plan", plan.ErrInvalidParams)
	}
	dur := a.Input.Duration
	if !(dur > 0) || math.IsInf(dur, 0) {
		dur = float64(a.Envelope.Frames()) * a.Envelope.FrameSec // as the planner measures it
	}
	prev := 0.0
	for i, r := range p.Keep {
		if !(r.Start >= prev && r.End >= r.Start && r.End <= dur+keepSlackSec) { // (false for NaN)
			return fmt.Errorf("%w: render: kept range %d [%v, %v] is not sorted, disjoint and within the input's %.3f s",
				plan.ErrInvalidParams, i, r.Start, r.End, dur)
		}
		prev = r.End
	}
	if len(p.Keep) == 0 {
		return plan.ErrNothingToKeep
	}
	return nil
}

// output is where render sends the encoded file: to w, or, for the ffmpeg
// formats, to the file at path, which ffmpeg opens itself (and may seek in).
// stream asks the ffmpeg formats for their non-seeking layouts.
type output struct {
	w      io.Writer
	path   string
	stream bool
}

// source is what a render reads: the file at path (whose video an mp4
// export cuts), decoded by open when that is set (a mix of tracks, one
// track of several), else by dsp.Open. mixed says that the analysis does
// not measure what open yields (a mix): its loudness is then measured.
type source struct {
	path  string
	open  opener
	mixed bool
}

// opener starts decoding a render's input; the func closes it.
type opener func(ctx context.Context) (dsp.Source, func(), error)

// render runs the passes and the encoder; Result.Duration is the kept
// audio's length, Size and Name are left to the caller.
func render(ctx context.Context, in source, a *dsp.Analysis, p *plan.Plan, o Options, dst output, progress dsp.Progress) (res *Result, err error) {
	inputPath := in.path
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
	if totalOut == 0 {
		return nil, plan.ErrNothingToKeep
	}
	res = &Result{Format: ContainerOf(o.Format), LoudnessIn: math.Inf(-1)}
	if res.Format != "wav" {
		if err := o.lookFFmpeg(); err != nil {
			return nil, err
		}
	}

	ceiling := -1.3 // dBTP, with margin for the limiter's estimate
	if res.Format != "wav" {
		ceiling = -2.0 // lossy encoders overshoot the input's true peak a little
	}
	normalize := o.Normalize != "" && o.Normalize != plan.NormalizeNone
	gain := 1.0
	c := chain{input: inputPath, open: in.open, mixed: in.mixed, a: a, cuts: p.Cuts, spans: spans, o: o, noise: new([]float64)}
	if target, ok := normalizationOf(o.Normalize); ok && normalize {
		if res.LoudnessIn, res.GainDb, err = c.normalizationGain(ctx, keep, target, ceiling); err != nil {
			return nil, err
		}
		gain = math.Pow(10, res.GainDb/20)
	}

	// The encode: the chain and gain in a goroutine of their own, the
	// limiter and the encoder in this one (and ffmpeg in its process); a
	// WAV or MP3 file in two halves side by side when it can
	// (encodeWAVHalves, encodeMP3Halves).
	progress = progress.Rising() // (a fallback to one piece starts over)
	encodeSource := func(ctx context.Context, from, to int64) (dsp.Source, func(), error) {
		stages, closeSrc, err := c.window(ctx, from, to)
		if err != nil {
			return nil, nil, err
		}
		if normalize && gain != 1 {
			stages = &gainSource{src: stages, gain: float32(gain)}
		}
		async := newAsyncSource(stages, 4)
		var src dsp.Source = async
		if normalize {
			src = newLimiter(src, ceiling, limiterLook)
		}
		return src, func() { async.Close(); closeSrc() }, nil
	}
	var frames int64
	bits := 16
	if a.Input.BitsPerSample > 16 {
		bits = 24
	}
	done := false // written in halves
	switch {
	case res.Format == "wav" && useWAVHalves(o, dst, a.Input, totalOut):
		f := dsp.Format{SampleRate: rate, Channels: a.Input.Channels}
		frames, done, err = encodeWAVHalves(ctx, encodeSource, dst.w.(*os.File), f, bits, totalOut, progress)
	case useMP3Halves(o, dst, a.Input, totalOut):
		frames, _, err = encodeMP3Halves(ctx, encodeSource, a.Input, o, dst.path, totalOut, progress)
		done = err == nil
		if errors.Is(err, errNoStitch) {
			err = nil // encode in one piece
		}
	}
	if err != nil {
		return nil, err
	}
	if !done {
		src, closeSrc, err := encodeSource(ctx, 0, -1)
		if err != nil {
			return nil, err
		}
		defer closeSrc()
		count := &countSource{src: src, total: totalOut, progress: progress}
		if res.Format == "wav" {
			err = writeWAV(ctx, count, dst.w, bits, totalOut)
		} else {
			err = encodeFFmpeg(ctx, count, inputPath, a.Input, segs, o, dst)
		}
		if err != nil {
			return nil, err
		}
		frames = count.frames
	}
	if short := totalOut - frames; short > int64(rate/10) {
		// The WAV writer padded it with silence; the encoders made it shorter.
		return nil, fmt.Errorf("render: the input ended %.2f s before its analysis said: has %s changed since?",
			float64(short)/float64(rate), filepath.Base(inputPath))
	}
	res.Duration = float64(totalOut) / float64(rate)
	return res, nil
}

// lookFFmpeg reports ErrFFmpegMissing when the ffmpeg binary is not found.
func (o Options) lookFFmpeg() error {
	if _, err := exec.LookPath(o.ffmpeg()); err != nil {
		return fmt.Errorf("%w (%v)", ErrFFmpegMissing, err)
	}
	return nil
}

func (o Options) ffmpeg() string {
	if o.FFmpeg == "" {
		return "ffmpeg"
	}
	return o.FFmpeg
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// createTemp creates a new file in dir named prefix + random digits + ".tmp",
// with the permissions os.Create gives (0666 less the umask), which
// os.CreateTemp does not (0600): the file is renamed into place as it is.
func createTemp(dir, prefix string) (*os.File, error) {
	for i := 0; ; i++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if os.IsExist(err) && i < 100 {
			continue
		}
		return f, err
	}
}

// chain is what every pass of a render stacks its stages from: the input,
// its analysis and the plan's cuts, the output's spans of input frames,
// the options, and the denoiser's noise profile (measured by the first
// pass that needs it and stored in *noise for the others; nil without the
// denoiser). open, when set, decodes the input in place of dsp.Open, and
// mixed says the analysis does not measure what it yields (see source).
type chain struct {
	input string
	open  opener
	mixed bool
	a     *dsp.Analysis
	cuts  []plan.Cut
	spans [][2]int64
	o     Options
	noise *[]float64
}

// build opens the input and stacks the stages before gain: keep ranges
// with fades, then rumble and denoise.
func (c chain) build(ctx context.Context) (dsp.Source, func(), error) {
	return c.window(ctx, 0, -1)
}

// window is build for the output frames [from, to) only (to < 0: to the
// end). The filters start at from: their output settles within a second
// or so to what the whole chain gives.
func (c chain) window(ctx context.Context, from, to int64) (dsp.Source, func(), error) {
	st, closeSt, err := c.openInput(ctx)
	if err != nil {
		return nil, nil, err
	}
	keep := newKeepSource(st, c.spans, c.a.Input.Frames, 0.005)
	keep.window(from, to)
	var src dsp.Source = keep
	if c.o.Rumble {
		src = newHighPass(src, dsp.RumbleHz) // the levels the planner takes its references from (dsp.Envelope.HighPassDb)
	}
	if c.o.Denoise {
		noise := c.noise
		if noise == nil {
			noise = new([]float64)
		}
		src, err = newDenoiser(ctx, c.openInput, c.a, c.cuts, src, noise)
		if err != nil {
			closeSt()
			return nil, nil, err
		}
	}
	return src, closeSt, nil
}

// openInput starts decoding the input: with c.open when set, else dsp.Open.
func (c chain) openInput(ctx context.Context) (dsp.Source, func(), error) {
	if c.open != nil {
		return c.open(ctx)
	}
	st, err := dsp.Open(ctx, c.input)
	if err != nil {
		return nil, nil, err
	}
	return st, func() { st.Close() }, nil
}

// limiterLook is the limiter's look-ahead in seconds.
const limiterLook = 0.005

// peakSpec says where a measuring pass interpolates peaks: against the
// ceiling (dBTP), for frames that could reach it at up to maxGain (linear;
// 0: everywhere).
type peakSpec struct {
	ceilingDb, maxGain float64
}

// normalizationGain returns the loudness of the chain's output (LUFS) and
// the gain (dB) that brings it to target through the limiter; keep is the
// plan's kept ranges.
//
// When the chain leaves the kept audio as it is (no rumble, no denoise) and
// the limiter cannot engage (the input's true peak plus the gain stays
// below the ceiling), the analysis's loudness blocks are enough: no decode.
// Otherwise one pass measures the chain's output (measure) and the
// limiter's effect is predicted from it (solveGain) rather than run.
func (c chain) normalizationGain(ctx context.Context, keep []dsp.Range, target, ceiling float64) (lufs, gainDb float64, err error) {
	est := c.a.LoudnessOf(keep) // the kept audio, unchanged but for fades
	known := !math.IsInf(est, -1) && !math.IsNaN(est)
	if c.mixed {
		known = false // the analysis is one track's, not the mix's
	}
	if !c.o.Rumble && !c.o.Denoise && !c.mixed {
		if !known {
			return est, 0, nil
		}
		if c.a.Loudness.TruePeak+target-est <= ceiling-0.5 {
			return est, target - est, nil
		}
	}
	// Interpolated peaks are measured where they could reach the ceiling
	// at up to 6 dB more gain than the estimate (filters rarely lower the
	// loudness that much; past it the sample peaks still count), or
	// everywhere when there is no estimate.
	pk := peakSpec{ceilingDb: ceiling}
	if known {
		pk.maxGain = math.Pow(10, (target-est+6)/20)
	}
	m, err := c.measure(ctx, pk)
	if err != nil {
		return 0, 0, err
	}
	lufs = integrated(m.blocks(1, nil))
	if math.IsInf(lufs, -1) || math.IsNaN(lufs) {
		return lufs, 0, nil
	}
	return lufs, m.solveGain(target, lufs, ceiling, limiterLook), nil
}

// measure runs the chain once (decode, keep and filters in a goroutine,
// the meter in this one) and returns its measurement; a long output is
// measured in two halves side by side (measureHalves).
func (c chain) measure(ctx context.Context, pk peakSpec) (*chainMeter, error) {
	total := framesOf(c.spans)
	f := dsp.Format{SampleRate: c.a.Input.SampleRate, Channels: c.a.Input.Channels}
	if !c.o.Denoise && skipsCheaply(c.a.Input) && runtime.GOMAXPROCS(0) > 1 && total >= int64(halfMinSec*f.SampleRate) && f.SampleRate > 0 {
		if m, ok, err := c.measureHalves(ctx, pk); err != nil || ok {
			return m, err
		}
	}
	return c.measureWindow(ctx, pk, 0, -1, 0, total)
}

// measureWindow measures the chain's output frames [from, to) (to < 0: to
// the end) with a meter whose first cell is cell0 (from is its boundary)
// and room for capFrames frames' cells.
func (c chain) measureWindow(ctx context.Context, pk peakSpec, from, to, cell0, capFrames int64) (*chainMeter, error) {
	src, closeSrc, err := c.window(ctx, from, to)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	async := newAsyncSource(src, 4)
	defer async.Close()
	m := newChainMeterAt(src.Format(), math.Pow(10, pk.ceilingDb/20), pk.maxGain, capFrames, cell0)
	if err := pump(ctx, async, m.write); err != nil {
		return nil, err
	}
	m.finish()
	return m, nil
}

// measureHalves measures the output in two halves side by side: A from the
// start to a little past a block boundary near the middle, B from
// halfChainWarmSec before it to the end, joined at the boundary
// (joinMeters: B's first seconds only settle its filters and K-weighting).
// ok is false when the two do not agree.
func (c chain) measureHalves(ctx context.Context, pk peakSpec) (m *chainMeter, ok bool, err error) {
	total := framesOf(c.spans)
	rate := int64(c.a.Input.SampleRate)
	blocks := total * 10 / rate // whole 100 ms blocks
	k := blocks / 2 * cellsPerBlock
	k0 := k - halfChainWarmSec*10*cellsPerBlock
	if k0 < 0 {
		return nil, false, nil
	}
	probe := &chainMeter{rate: rate}
	var ma, mb *chainMeter
	err = halves.Run(ctx, func(ctx context.Context) (err error) {
		// A measures two blocks past the split (the cells by it are final),
		// with room for all the cells: B's are appended to A's (joinMeters).
		ma, err = c.measureWindow(ctx, pk, 0, min(total, probe.boundary(k+2*cellsPerBlock)), 0, total)
		return err
	}, func(ctx context.Context) (err error) {
		mb, err = c.measureWindow(ctx, pk, probe.boundary(k0), -1, k0, total-probe.boundary(k0))
		return err
	})
	if err != nil {
		return nil, false, halves.Cause(err)
	}
	m, ok = joinMeters(ma, mb, k)
	return m, ok, nil
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

// writeWAV streams src to w as a WAV file of exactly frames frames.
func writeWAV(ctx context.Context, src dsp.Source, w io.Writer, bits int, frames int64) error {
	ww, err := newWAVWriter(w, src.Format(), bits, frames)
	if err != nil {
		return err
	}
	if err := pump(ctx, src, ww.write); err != nil {
		return err
	}
	return ww.finish()
}

// encodeFFmpeg feeds f32le from src to one ffmpeg process that encodes the
// audio (and, for mp4, cuts the input's video at segs and muxes both).
//
// To a file (dst.path), the output has the seekable layouts; to a writer
// (dst.w), the streaming ones (see RenderTo).
func encodeFFmpeg(ctx context.Context, src dsp.Source, inputPath string, info dsp.Info, segs []timeline.Segment, o Options, dst output) error {
	if err := o.lookFFmpeg(); err != nil {
		return err
	}
	bin := o.ffmpeg()
	f := src.Format()
	mp4Flags := []string{"-movflags", "+faststart"}
	if dst.stream {
		// An index first, then fragments of about a second each. The index
		// waits for the first fragment (delay_moov) so that it can carry the
		// edit lists: without them the video starts at the encoder's
		// reordering delay (two frames) after the audio.
		mp4Flags = []string{"-movflags", "+empty_moov+default_base_moof+delay_moov", "-frag_duration", "1000000"}
	}
	args := []string{"-nostdin", "-v", "error", "-y"}
	pcm := []string{"-f", "f32le", "-ar", strconv.Itoa(f.SampleRate), "-ac", strconv.Itoa(f.Channels), "-i", "pipe:0"}
	switch o.Format {
	case "mp3":
		q := []string{"-q:a", "2"} // VBR V2
		if dst.stream {
			q = []string{"-b:a", "192k"} // CBR: no Xing tag to tell players a VBR length
		}
		args = append(append(append(args, pcm...), "-c:a", "libmp3lame"), append(q, "-f", "mp3")...)
	case "mp3_320":
		args = append(append(args, pcm...), "-c:a", "libmp3lame", "-b:a", "320k", "-f", "mp3")
		if f.SampleRate < 32000 {
			// 320 kbit/s exists only in MPEG-1 Layer III (32, 44.1, 48 kHz).
			args = append(args, "-ar", mpeg1Rate(f.SampleRate))
		}
	case "m4a":
		args = append(append(args, pcm...), "-c:a", "aac", "-b:a", "192k")
		args = append(append(args, mp4Flags...), "-f", "ipod")
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
			"-c:a", "aac", "-b:a", abr)
		args = append(append(args, mp4Flags...), "-f", "mp4")
	}
	cmd := proc.Command(ctx, bin, args...)
	if dst.path != "" {
		cmd.Args = append(cmd.Args, dst.path)
	} else {
		cmd.Args = append(cmd.Args, "pipe:1")
		cmd.Stdout = dst.w
	}
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
