package dsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Decoder decodes media into a Stream of samples. Implementations:
// NativeDecoder (WAV and MP3 in Go), FFmpegDecoder (anything ffmpeg reads)
// and AutoDecoder (the fastest of the two for the content).
type Decoder interface {
	// Decode starts decoding the media r yields. The format is sniffed
	// from the first bytes, never taken from name, which names the input
	// in the Stream's Info and in errors. The Stream reads r as it is
	// read; closing it does not close r.
	Decode(ctx context.Context, r io.Reader, name string) (Stream, error)
}

// Decode decodes the media r yields with the AutoDecoder.
func Decode(ctx context.Context, r io.Reader, name string) (Stream, error) {
	return AutoDecoder{}.Decode(ctx, r, name)
}

// Open opens the file at path and decodes it with the AutoDecoder; closing
// the Stream closes the file.
func Open(ctx context.Context, path string) (Stream, error) {
	return openFile(ctx, AutoDecoder{}, path)
}

// openFile opens path and decodes it with dec under its base name;
// closing the Stream closes the file.
func openFile(ctx context.Context, dec Decoder, path string) (Stream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s, err := dec.Decode(ctx, f, filepath.Base(path))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &fileStream{Stream: s, f: f}, nil
}

// fileStream closes the file under a Stream.
type fileStream struct {
	Stream
	f *os.File
}

// Skip passes over frames of the stream under it (see Skip).
func (s *fileStream) Skip(n int64) (int64, error) { return Skip(s.Stream, n) }

func (s *fileStream) Close() error {
	err := s.Stream.Close()
	if ferr := s.f.Close(); err == nil {
		err = ferr
	}
	return err
}

// filePath returns the path of r when r is a regular file read from its
// start (and the path still names it), so that a decoder may hand the
// path to a tool that seeks.
func filePath(r io.Reader) (string, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return "", false
	}
	if off, err := f.Seek(0, io.SeekCurrent); err != nil || off != 0 {
		return "", false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	if pst, err := os.Stat(f.Name()); err != nil || !os.SameFile(st, pst) {
		return "", false
	}
	return f.Name(), true
}

// sniffInput names the container of the media r yields from its first
// sniffLen bytes, and returns a reader that yields all of it: r itself
// for a file (read with ReadAt, its offset unmoved), else a buffered
// reader over r.
func sniffInput(r io.Reader, name string) (kind string, head []byte, src io.Reader, err error) {
	if r == nil {
		return "", nil, nil, errNilReader(name)
	}
	if f, ok := r.(*os.File); ok {
		if _, ok := filePath(f); ok {
			head = make([]byte, sniffLen)
			n, err := f.ReadAt(head, 0)
			if err != nil && err != io.EOF {
				return "", nil, nil, err
			}
			head, src = head[:n], f
		}
	}
	if src == nil {
		br := bufio.NewReaderSize(r, 1<<16)
		head, err = br.Peek(sniffLen)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return "", nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
		src = br
	}
	if len(head) == 0 {
		return "", nil, nil, fmt.Errorf("%w: %s is empty (0 bytes)", ErrUnsupportedFormat, name)
	}
	return Sniff(head), head, src, nil
}

// errNilReader is the error of a decoder given a nil io.Reader for the
// input called name.
func errNilReader(name string) error {
	return fmt.Errorf("dsp: decode %s: nil reader", name)
}

// NativeDecoder decodes WAV (RIFF/RF64/BW64) and MP3 in Go, without ffmpeg.
type NativeDecoder struct{}

// Open opens the file at path and decodes it natively.
func (d NativeDecoder) Open(ctx context.Context, path string) (Stream, error) {
	return openFile(ctx, d, path)
}

// Decode sniffs r by content and decodes WAV or MP3 natively.
func (NativeDecoder) Decode(ctx context.Context, r io.Reader, name string) (Stream, error) {
	kind, head, src, err := sniffInput(r, name)
	if err != nil {
		return nil, err
	}
	var s Stream
	switch kind {
	case "wav", "rf64":
		var w *WAVReader
		if w, err = NewWAVReader(src); err == nil {
			s = &namedStream{Stream: w, name: name}
		}
	case "mp3":
		var m *mp3Stream
		path, _ := filePath(r) // (before the decoder reads r)
		if m, err = newMP3Stream(src); err == nil {
			m.info.Name = name
			m.path = path
			s = m
		}
	default:
		return nil, fmt.Errorf("%w: native decoder reads WAV and MP3; %s starts with %s (%s)",
			ErrUnsupportedFormat, name, printable(head[:min(len(head), 12)]), orUnknown(kind))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// namedStream gives a Stream's Info the input's name.
type namedStream struct {
	Stream
	name string
}

// Skip passes over frames of the stream under it (see Skip).
func (s *namedStream) Skip(n int64) (int64, error) { return Skip(s.Stream, n) }

func (s *namedStream) Info() Info {
	i := s.Stream.Info()
	i.Name = s.name
	return i
}

func orUnknown(kind string) string {
	if kind == "" {
		return "unknown content"
	}
	return kind
}

// printable shows bytes as text where they are ASCII, as \x escapes elsewhere.
func printable(b []byte) string { return fmt.Sprintf("%q", b) }

// AutoDecoder picks the fastest decoder for the content: native WAV always;
// MP3 through ffmpeg when it is installed (437x against go-mp3's 38x realtime
// in this package's 10-minute benchmark, measured side by side),
// else natively; everything else through ffmpeg.
type AutoDecoder struct {
	FFmpeg FFmpegDecoder
}

// Open opens the file at path and decodes it with the chosen decoder.
func (d AutoDecoder) Open(ctx context.Context, path string) (Stream, error) {
	return openFile(ctx, d, path)
}

// Decode sniffs r by content and decodes it with the chosen decoder. A
// WAV flavour the native decoder does not read (ADPCM, A-law, ...) goes to
// ffmpeg when its header was within the first 64 KiB (always, for a file).
func (d AutoDecoder) Decode(ctx context.Context, r io.Reader, name string) (Stream, error) {
	kind, head, src, err := sniffInput(r, name)
	if err != nil {
		return nil, err
	}
	switch {
	case kind == "wav" || kind == "rf64":
		rec := &recorder{r: src, max: 1 << 16}
		s, err := NativeDecoder{}.Decode(ctx, rec, name)
		if err == nil || !d.FFmpeg.Available() {
			return s, err
		}
		if f, ok := src.(*os.File); ok {
			if _, serr := f.Seek(0, io.SeekStart); serr != nil {
				return nil, err
			}
		} else if src, ok = rec.replay(); !ok {
			return nil, err
		}
		// A header the native reader refused and ffmpeg cannot decode
		// either is an unsupported format, however ffmpeg fails.
		s, ferr := d.FFmpeg.Decode(ctx, src, name)
		if ferr != nil {
			return nil, fallbackErr(ctx, ferr, err)
		}
		return &fallbackStream{Stream: s, ctx: ctx, native: err}, nil
	case kind == "mp3" && !d.FFmpeg.Available():
		return NativeDecoder{}.Decode(ctx, src, name)
	case kind == "":
		return nil, fmt.Errorf("%w: %s starts with %q, which is no audio or video format we know",
			ErrUnsupportedFormat, name, head[:min(len(head), 12)])
	}
	return d.FFmpeg.Decode(ctx, src, name)
}

// fallbackErr is the error of ffmpeg decoding a WAV the native reader
// refused (native says why): ErrUnsupportedFormat unless the run was
// cancelled or ffmpeg is missing.
func fallbackErr(ctx context.Context, ffErr, native error) error {
	if ctx.Err() != nil || errors.Is(ffErr, ErrUnsupportedFormat) || errors.Is(ffErr, ErrFFmpegMissing) || errors.Is(ffErr, ctx.Err()) {
		return ffErr
	}
	return fmt.Errorf("%w (ffmpeg: %v)", native, ffErr)
}

// fallbackStream is ffmpeg's Stream of a WAV the native reader refused:
// its read errors are an unsupported format too (fallbackErr).
type fallbackStream struct {
	Stream
	ctx    context.Context
	native error
}

func (s *fallbackStream) Read(p []float32) (int, error) {
	n, err := s.Stream.Read(p)
	if err != nil && err != io.EOF {
		err = fallbackErr(s.ctx, err, s.native)
	}
	return n, err
}

// recorder keeps the first max bytes read through it, so that a decoder
// that gave up early can hand them to another.
type recorder struct {
	r    io.Reader
	max  int
	buf  []byte
	over bool
}

func (c *recorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if len(c.buf)+n <= c.max {
		c.buf = append(c.buf, p[:n]...)
	} else {
		c.over = true
	}
	return n, err
}

// replay yields every byte again, when all that was read was kept.
func (c *recorder) replay() (io.Reader, bool) {
	if c.over {
		return nil, false
	}
	return io.MultiReader(bytes.NewReader(c.buf), c.r), true
}

// Probe tells what path holds without decoding it: native WAV and MP3
// headers where ffmpeg is absent, ffprobe otherwise (which also knows video
// frame rates and timecodes).
func (d AutoDecoder) Probe(ctx context.Context, path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	kind, head, _, err := sniffInput(f, filepath.Base(path))
	if err != nil {
		return Info{}, err
	}
	if kind == "" {
		return Info{}, fmt.Errorf("%w: %s starts with %q, which is no audio or video format we know",
			ErrUnsupportedFormat, filepath.Base(path), head[:min(len(head), 12)])
	}
	if (kind == "wav" || kind == "rf64" || kind == "mp3") && !d.FFmpeg.Available() || kind == "wav" || kind == "rf64" {
		s, err := NativeDecoder{}.Decode(ctx, f, filepath.Base(path))
		if err == nil {
			defer s.Close()
			info := s.Info()
			info.AudioStreams = 1
			return info, nil
		}
		if !d.FFmpeg.Available() {
			return Info{}, err
		}
	}
	return d.FFmpeg.Probe(ctx, path)
}

// Probe describes path without decoding it, with the AutoDecoder.
func Probe(ctx context.Context, path string) (Info, error) {
	return AutoDecoder{}.Probe(ctx, path)
}

// AnalyzeFile decodes path with the AutoDecoder and analyses it in one pass.
func AnalyzeFile(ctx context.Context, path string, progress Progress) (*Analysis, error) {
	return AnalyzeWith(ctx, AutoDecoder{}, path, progress)
}
