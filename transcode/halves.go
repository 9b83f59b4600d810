package transcode

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/halves"
)

// Encoding an MP3 in two halves side by side. LAME encodes on one core and
// is most of a render's time; two encoders on the two halves of the output
// take about 0.6 of it. Encoder A encodes the output from its start to a
// little past the middle; encoder B from halfWarmFrames frames before the
// middle to the end. They overlap over halfCands candidate frames, where
// stitchMP3 joins them at the quietest frame it can; the frames before the
// candidates let B's psychoacoustic model and bit reservoir settle. Each
// encoder is fed by a chain of its own: B's chain starts halfChainWarmSec
// before B's encoder, so its filters and limiter have settled to what A's
// give; the two chains' samples around the stitch must agree, or another
// candidate is taken. When no candidate fits (or the encodes do not parse),
// the output is encoded again in one piece.
const (
	halfMinSec       = 60  // shorter outputs are encoded in one piece
	halfCands        = 256 // candidate stitch frames (6.7 s at 44.1 kHz)
	halfWarmFrames   = 64  // frames B encodes before the first candidate
	halfTailFrames   = 16  // frames A encodes past the last candidate
	halfChainWarmSec = 3   // B's chain runs this long before B's encoder
	halfNear         = 16  // frames kept before a stitch for the reservoir bytes (up to 511 bytes)
	halfMaxDiff      = 1e-6
)

// skipsCheaply reports whether the input is a PCM WAV file, which a chain
// started past its start skips without decoding (dsp.Skip). Other inputs
// are rendered in one piece, each pass decoding them once: a second chain
// would decode the first half of the input only to drop it.
func skipsCheaply(info dsp.Info) bool {
	return info.Format == "wav" && strings.HasPrefix(info.Codec, "pcm_")
}

// useMP3Halves reports whether the output is encoded in two halves: an
// MP3 file (which ffmpeg may seek in to write its Xing/LAME frame) of a
// minute or more in MPEG-1 Layer III (32, 44.1 or 48 kHz), of a PCM WAV
// input (skipsCheaply), without the denoiser (its frames are placed from
// the start of its input, so B's would not be A's), on a machine with two
// cores or more.
func useMP3Halves(o Options, dst output, info dsp.Info, totalOut int64) bool {
	switch info.SampleRate {
	case 32000, 44100, 48000:
	default:
		return false
	}
	return (o.Format == "mp3" || o.Format == "mp3_320") && dst.path != "" && !dst.stream && !o.Denoise && skipsCheaply(info) &&
		runtime.GOMAXPROCS(0) > 1 && info.Channels >= 1 && info.Channels <= 2 &&
		totalOut >= int64(halfMinSec*info.SampleRate)
}

// halfSource makes the source of the output frames [from, to) (to < 0: to
// the end), ready for the encoder; close releases it.
type halfSource func(ctx context.Context, from, to int64) (src dsp.Source, close func(), err error)

// encodeMP3Halves encodes the output (totalOut frames from newSrc) with two
// ffmpeg processes side by side and stitches their files into path. It
// returns how many output frames the chains delivered (fewer than totalOut
// when the input ended early), or an error wrapping errNoStitch when the
// caller should encode in one piece.
func encodeMP3Halves(ctx context.Context, newSrc halfSource, info dsp.Info, o Options, path string, totalOut int64, progress dsp.Progress) (frames int64, stitch int, err error) {
	const spf = 1152
	rate := int64(info.SampleRate)
	c0 := int(totalOut/spf/2) - halfCands/2
	d := c0 - halfWarmFrames
	startB := int64(d) * spf
	endA := int64(c0+halfCands+halfTailFrames) * spf
	warm := min(startB, halfChainWarmSec*rate)
	tapFrom, tapTo := int64(c0)*spf-2*spf, int64(c0+halfCands)*spf+spf

	dir := filepath.Dir(path)
	var tmps [2]string
	for i := range tmps {
		f, err := createTemp(dir, "."+filepath.Base(path)+".half.")
		if err != nil {
			return 0, 0, fmt.Errorf("render: %w", err)
		}
		tmps[i] = f.Name()
		f.Close()
		defer os.Remove(f.Name())
	}

	encodeTo := func(out string) func(context.Context, dsp.Source) error {
		return func(ctx context.Context, src dsp.Source) error {
			return encodeFFmpeg(ctx, src, "", info, nil, o, output{path: out})
		}
	}
	ha, hb, err := runHalves(ctx, newSrc, progress, tapFrom, tapTo,
		halfJob{from: 0, to: endA, want: endA, encode: encodeTo(tmps[0])},
		halfJob{from: startB - warm, to: -1, drop: warm, want: totalOut - startB, encode: encodeTo(tmps[1])})
	if err != nil {
		return 0, 0, err
	}
	if ha.frames < endA {
		return ha.frames, 0, nil // the input ended early: the caller reports it
	}
	if hb.frames < totalOut-startB {
		return startB + hb.frames, 0, nil
	}

	a, err := scanMP3(tmps[0], c0-halfNear, c0+halfCands+1)
	if err != nil {
		return 0, 0, err
	}
	b, err := scanMP3(tmps[1], halfWarmFrames-halfNear, halfWarmFrames+halfCands+1)
	if err != nil {
		return 0, 0, err
	}
	c, ok := chooseStitch(a, b, c0, d, ha.tap, hb.tap)
	if !ok {
		return 0, 0, fmt.Errorf("%w: none of %d candidate frames fits", errNoStitch, halfCands)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, 0, fmt.Errorf("render: %w", err)
	}
	if _, err := stitchMP3(f, a, b, c, d); err != nil {
		f.Close()
		return 0, 0, err
	}
	if err := f.Close(); err != nil {
		return 0, 0, fmt.Errorf("render: %w", err)
	}
	return totalOut, c, nil
}

// halfJob is one of the two halves of an output encoded side by side: the
// window [from, to) of the output its chain makes (to < 0: to the end),
// the frames of it dropped first (the chain's warm-up), the frames the
// encoder takes (for progress) and the encoder.
type halfJob struct {
	from, to, drop, want int64
	encode               func(ctx context.Context, src dsp.Source) error
}

// halfResult is what a half's chain delivered, and its tap.
type halfResult struct {
	frames int64
	tap    *pcmTap
}

// runHalves runs the halves a and b side by side (halves.Run: a half that
// fails cancels the other), each on a chain from newSrc, tapping the
// output frames [tapFrom, tapTo).
func runHalves(ctx context.Context, newSrc halfSource, progress dsp.Progress, tapFrom, tapTo int64, a, b halfJob) (ra, rb halfResult, err error) {
	pa, pb := halves.Progress(progress, float64(a.want)/float64(a.want+b.want))
	run := func(j halfJob, p dsp.Progress, r *halfResult) func(context.Context) error {
		return func(ctx context.Context) error {
			src, closeSrc, err := newSrc(ctx, j.from, j.to)
			if err != nil {
				return err
			}
			defer closeSrc()
			if j.drop > 0 {
				src = &skipSource{src: src, n: j.drop}
			}
			r.tap = newPCMTap(src, j.from+j.drop, tapFrom, tapTo)
			count := &countSource{src: r.tap, total: j.want, progress: p}
			err = j.encode(ctx, count)
			r.frames = count.frames
			return err
		}
	}
	err = halves.Run(ctx, run(a, pa, &ra), run(b, pb, &rb))
	return ra, rb, halves.Cause(err)
}

// chooseStitch returns the candidate frame c in [c0, c0+halfCands) where
// A's and B's files join (stitchable) and both chains gave the same
// samples around the join, the one whose samples there are quietest.
func chooseStitch(a, b *mp3File, c0, d int, ta, tb *pcmTap) (int, bool) {
	const spf = 1152
	best, bestE := -1, math.Inf(1)
	for c := c0; c < c0+halfCands; c++ {
		if !stitchable(a, b, c, d) {
			continue
		}
		// The granules overlapping the join: the last of A's frame c-1 and
		// the first of B's frame c, each with its window's other half,
		// lying (with the encoder's delay of 576) about here.
		from, to := int64(c)*spf-2*spf, int64(c)*spf+spf
		e, same := ta.compare(tb, from, to)
		if same && e < bestE {
			best, bestE = c, e
		}
	}
	return best, best >= 0
}

// pcmTap passes its source through and keeps a copy of the frames
// [from, to) of the output (its first frame being output frame at).
type pcmTap struct {
	src      dsp.Source
	ch       int
	pos      int64
	from, to int64
	buf      []float32
}

func newPCMTap(src dsp.Source, at, from, to int64) *pcmTap {
	ch := src.Format().Channels
	return &pcmTap{src: src, ch: ch, pos: at, from: from, to: to, buf: make([]float32, (to-from)*int64(ch))}
}

func (t *pcmTap) Format() dsp.Format { return t.src.Format() }

func (t *pcmTap) Read(p []float32) (int, error) {
	n, err := t.src.Read(p)
	nf := int64(n / t.ch)
	if lo, hi := max(t.pos, t.from), min(t.pos+nf, t.to); lo < hi {
		copy(t.buf[(lo-t.from)*int64(t.ch):(hi-t.from)*int64(t.ch)], p[(lo-t.pos)*int64(t.ch):(hi-t.pos)*int64(t.ch)])
	}
	t.pos += nf
	return n, err
}

// compare returns the energy of u's frames [from, to) and whether t's are
// the same within halfMaxDiff.
func (t *pcmTap) compare(u *pcmTap, from, to int64) (float64, bool) {
	if from < t.from || to > t.to {
		return 0, false
	}
	x := t.buf[(from-t.from)*int64(t.ch) : (to-t.from)*int64(t.ch)]
	y := u.buf[(from-u.from)*int64(u.ch) : (to-u.from)*int64(u.ch)]
	e := 0.0
	for i, v := range y {
		if math.Abs(float64(v-x[i])) > halfMaxDiff {
			return 0, false
		}
		e += float64(v) * float64(v)
	}
	return e, true
}

// skipSource drops the first n frames of its source.
type skipSource struct {
	src dsp.Source
	n   int64
}

func (s *skipSource) Format() dsp.Format { return s.src.Format() }

func (s *skipSource) Read(p []float32) (int, error) {
	ch := s.src.Format().Channels
	for s.n > 0 {
		m := min(int64(len(p)/ch), s.n)
		k, err := s.src.Read(p[:m*int64(ch)])
		s.n -= int64(k / ch)
		if err != nil {
			return 0, err
		}
	}
	return s.src.Read(p)
}

// useWAVHalves reports whether a WAV output is written in two halves side
// by side: to a file (written at offsets), a minute or more, of a PCM WAV
// input, without the denoiser, on two cores or more.
func useWAVHalves(o Options, dst output, info dsp.Info, totalOut int64) bool {
	_, file := dst.w.(*os.File)
	return file && !dst.stream && !o.Denoise && skipsCheaply(info) && runtime.GOMAXPROCS(0) > 1 &&
		totalOut >= int64(halfMinSec*info.SampleRate)
}

// encodeWAVHalves writes the WAV file of the output (totalOut frames from
// newSrc) to f in two halves side by side: A the header and the data up
// to a frame near the middle, B the rest, each at its offset, B's chain
// started halfChainWarmSec early (as encodeMP3Halves does) and its dither
// going on where A's stops, so the file is the one-piece file when both
// chains give the same samples past the middle, which is checked over
// halfCheckFrames: ok is false when they do not (the caller writes the
// file in one piece over it). frames is what the chains delivered.
func encodeWAVHalves(ctx context.Context, newSrc halfSource, f *os.File, format dsp.Format, bits int, totalOut int64, progress dsp.Progress) (frames int64, ok bool, err error) {
	const halfCheckFrames = 8192
	rate := int64(format.SampleRate)
	split := totalOut / 2 &^ 1 // even: the data's parity is B's
	warm := min(split, halfChainWarmSec*rate)
	endA := min(totalOut, split+halfCheckFrames+rate/10) // past the limiter's look-ahead
	align := int64(format.Channels * bits / 8)
	h, err := wavHeader(format, bits, totalOut)
	if err != nil {
		return 0, false, err
	}
	if _, err := f.WriteAt(h, 0); err != nil {
		return 0, false, fmt.Errorf("render: %w", err)
	}

	writeAt := func(at, n int64) func(context.Context, dsp.Source) error {
		return func(ctx context.Context, src dsp.Source) error {
			ww := newWAVData(io.NewOffsetWriter(f, int64(len(h))+at*align), format, bits, n, at)
			if err := pump(ctx, src, ww.write); err != nil {
				return err
			}
			return ww.finish()
		}
	}
	ha, hb, err := runHalves(ctx, newSrc, progress, split, min(totalOut, split+halfCheckFrames),
		halfJob{from: 0, to: endA, want: split, encode: writeAt(0, split)},
		halfJob{from: split - warm, to: -1, drop: warm, want: totalOut - split, encode: writeAt(split, totalOut-split)})
	if err != nil {
		return 0, false, err
	}
	ha.frames = min(ha.frames, split) // (A's chain runs past the split)
	if ha.frames < split {
		return ha.frames, true, nil // the input ended early: the caller reports it
	}
	if _, same := ha.tap.compare(hb.tap, split, hb.tap.to); !same {
		return 0, false, nil
	}
	return split + hb.frames, true, nil
}
