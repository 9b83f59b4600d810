package dsp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// AnalyzeOptions are the choices of AnalyzeReader.
type AnalyzeOptions struct {
	// Decoder decodes the input; nil is the AutoDecoder.
	Decoder Decoder
	// MaxDuration stops the analysis with ErrTooLong as soon as the input
	// is known to be longer: from its header before any sample is decoded,
	// else while decoding. 0 (or less) is no limit.
	MaxDuration time.Duration
	// Progress receives the fraction of the input analysed: of its length
	// when the header tells it, else of r's bytes when r tells its size (a
	// Size() int64 method, as *bytes.Reader and gocloud's *blob.Reader
	// have).
	Progress Progress
}

// AnalyzeReader decodes the media r yields and analyses it in one
// streaming pass. The format is sniffed from the first bytes; name names
// the input in Analysis.Input and in errors. A regular file is decoded by
// path where that helps (ffmpeg seeks in an MP4 whose index is at its end);
// any other reader is read once, front to back, so the input may be a
// network body or a pipe (but see ErrNotStreamable).
func AnalyzeReader(ctx context.Context, r io.Reader, name string, o AnalyzeOptions) (*Analysis, error) {
	if r == nil {
		return nil, errNilReader(name)
	}
	dec := o.Decoder
	if dec == nil {
		dec = AutoDecoder{}
	}
	size := inputSize(r)
	var counted *countingReader
	if sz, ok := r.(interface{ Size() int64 }); ok && sz.Size() > 0 && o.Progress != nil {
		counted = &countingReader{r: r, size: sz.Size()}
		r = counted
	}
	s, err := dec.Decode(ctx, r, name)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	info := s.Info()
	var src Source = s
	if max := o.MaxDuration.Seconds(); max > 0 {
		// A header claiming more samples than the input has bytes (a
		// truncated WAV, or a lying data chunk size) is not trusted: the
		// decoder reads what there is, and limitSource counts it.
		if info.Duration > max && !claimsMoreThan(info, size) {
			return nil, &TooLongError{Name: name, Duration: info.Duration, Limit: max}
		}
		src = &limitSource{Source: src, max: int64(max * float64(s.Format().SampleRate)), limit: o.MaxDuration}
	}
	progress := o.Progress
	if counted != nil && info.Frames <= 0 && info.Duration <= 0 {
		// No length from the header: count the input's bytes.
		src = &byteProgress{Source: src, in: counted, progress: progress}
		progress = nil
	}
	a, err := Analyze(ctx, src, info, progress)
	if err != nil {
		return nil, fmt.Errorf("analyse %s: %w", name, err)
	}
	if w := truncation(info, a.Input); w != "" {
		a.Warnings = append(a.Warnings, w)
	}
	if progress == nil && o.Progress != nil {
		o.Progress(1)
	}
	return a, nil
}

// AnalyzeWith opens path, decodes it with dec (nil: the AutoDecoder) and
// analyses the whole stream (AnalyzeReader of the file); the Analysis.Input is the decoder's
// Info with the real decoded duration.
func AnalyzeWith(ctx context.Context, dec Decoder, path string, progress Progress) (*Analysis, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return AnalyzeReader(ctx, f, filepath.Base(path), AnalyzeOptions{Decoder: dec, Progress: progress})
}

// WarnTruncated begins the analysis's warning that the input held less
// audio than its header gave: a truncated file, or a lying header. The
// analysis covers what the input holds.
const WarnTruncated = "truncated input"

// truncation returns the warning for an input whose header (header: the
// decoder's Info at the start) counted more frames than were decoded (got:
// the analysis's Input), else "". Only a WAV's header and an MP3's
// Xing/Info tag count the frames exactly (an MP3's within one of its
// frames, 1152 samples: decoders differ by a part of one at the end). The
// containers whose header states a duration (headDurationFormats: MP4,
// Matroska, FLAC, AIFF) are truncated when the audio decoded falls short
// of it by more than containerSlackSec or containerSlackShare of it (an
// audio track may end a little before the picture, or carry priming).
func truncation(header, got Info) string {
	slack := int64(0)
	switch {
	case header.Format == "wav":
	case header.Format == "mp3":
		slack = 1152
	case headDurationFormats[header.Format]:
		if header.Duration <= 0 || got.Duration >= header.Duration-max(containerSlackSec, containerSlackShare*header.Duration) {
			return ""
		}
		return fmt.Sprintf("%s: its header gives %.3f s, the file holds %.3f s; the analysis covers what it holds",
			WarnTruncated, header.Duration, got.Duration)
	default:
		return ""
	}
	if header.Frames <= 0 || got.Frames >= header.Frames-slack {
		return ""
	}
	return fmt.Sprintf("%s: its header gives %.3f s, the file holds %.3f s; the analysis covers what it holds",
		WarnTruncated, header.Duration, got.Duration)
}

// How far a container's decoded audio may fall short of the duration its
// header states before truncation says so: 1 s, or 2 % of it.
const (
	containerSlackSec   = 1.0
	containerSlackShare = 0.02
)

// inputSize is the size of r in bytes when r tells it (a Size method, or
// a regular file), else -1.
func inputSize(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Size() int64 }:
		return v.Size()
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}

// claimsMoreThan reports whether info's header counts more PCM frames than
// size bytes can hold (size < 0: unknown, never).
func claimsMoreThan(info Info, size int64) bool {
	if size < 0 || info.Frames <= 0 || info.Channels <= 0 || info.BitsPerSample < 8 {
		return false
	}
	perFrame := int64(info.Channels) * int64(info.BitsPerSample/8)
	return info.Frames > size/perFrame
}

// countingReader counts the bytes read through it. The count is read on
// another goroutine than the one reading (ffmpeg's stdin is fed by one).
type countingReader struct {
	r    io.Reader
	n    atomic.Int64
	size int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// byteProgress reports the fraction of the input's bytes read, at most
// every 0.1 % of it.
type byteProgress struct {
	Source
	in       *countingReader
	progress Progress
	last     float64
}

func (b *byteProgress) Read(p []float32) (int, error) {
	n, err := b.Source.Read(p)
	if f := min(float64(b.in.n.Load())/float64(b.in.size), 1); f-b.last >= 0.001 {
		b.progress(f)
		b.last = f
	}
	return n, err
}

// limitSource ends a Source with ErrTooLong once it has yielded more than
// max frames.
type limitSource struct {
	Source
	max, frames int64
	limit       time.Duration
}

func (l *limitSource) Read(p []float32) (int, error) {
	n, err := l.Source.Read(p)
	if l.frames += int64(n / l.Format().Channels); l.frames > l.max {
		return 0, fmt.Errorf("%w: the input lasts more than the %s limit", ErrTooLong, l.limit)
	}
	return n, err
}
