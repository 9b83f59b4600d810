package jobs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/autocut-dev/autocut/dsp"
)

// streamHead is how much of a stored original is looked at to tell whether
// it decodes from a stream (dsp.NeedsSeek).
const streamHead = 64 << 10

// original is a run's access to the job's original. The analysis reads it
// once, front to back: in place from a local media directory, or as the
// object storage stream, without a scratch copy. Transcription and
// rendering need a file (their tools read it by path, rendering more than
// once, and a video render remuxes the original's video), so on object
// storage a scratch copy is made when one of them follows: on the way,
// while the analysis reads the stream, so that the object is downloaded
// once. An MP4 or QuickTime file whose index follows its media cannot be
// decoded from a stream: it is analysed from the scratch copy too.
type original struct {
	m        *Manager
	key, dir string
	file     string // a file holding the original, "" until one is needed
	release  func() // removes a scratch copy
	copied   bool   // file is a scratch copy made while reading (tests)
}

// close removes the scratch copy, if any.
func (o *original) close() {
	if o.release != nil {
		o.release()
		o.release = nil
	}
}

// path returns a file holding the original: the file in the media
// directory itself, else a scratch copy made once.
func (o *original) path(ctx context.Context) (string, error) {
	if o.file != "" {
		return o.file, nil
	}
	p, release, err := o.m.localPath(ctx, o.key, o.dir)
	if err != nil {
		return "", err
	}
	o.file, o.release = p, release
	return p, nil
}

// read hands the original to fn as a reader, once; keep says whether a
// later phase needs the original as a file (path then returns it without
// downloading again).
func (o *original) read(ctx context.Context, keep bool, fn func(r io.Reader) error) error {
	if o.file != "" || o.m.mediaDir != "" {
		return o.readFile(ctx, fn)
	}
	br, err := o.m.bucket.NewReader(ctx, o.key, nil)
	if err != nil {
		return fmt.Errorf("open %s: %w", o.key, err)
	}
	defer br.Close()
	buf := bufio.NewReaderSize(br, streamHead)
	head, err := buf.Peek(streamHead)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("read %s: %w", o.key, err)
	}
	if dsp.NeedsSeek(head) {
		br.Close()
		return o.readFile(ctx, fn)
	}
	if !keep {
		return fn(sizedReader{buf, br.Size()})
	}
	f, err := os.CreateTemp(o.dir, "in-*")
	if err != nil {
		return fmt.Errorf("scratch copy: %w", err)
	}
	remove := func() { _ = os.Remove(f.Name()) }
	if err := fn(sizedReader{io.TeeReader(buf, f), br.Size()}); err != nil {
		f.Close()
		remove()
		return err
	}
	// The decoder may have stopped before the end (a WAV's trailing
	// chunks): the copy takes the rest.
	if _, err := io.Copy(f, buf); err != nil {
		f.Close()
		remove()
		return fmt.Errorf("scratch copy of %s: %w", o.key, err)
	}
	if err := f.Close(); err != nil {
		remove()
		return fmt.Errorf("scratch copy of %s: %w", o.key, err)
	}
	o.file, o.release, o.copied = f.Name(), remove, true
	return nil
}

// readFile hands fn the original's file (decoders take a file by path).
func (o *original) readFile(ctx context.Context, fn func(r io.Reader) error) error {
	p, err := o.path(ctx)
	if err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("open the original: %w", err)
	}
	defer f.Close()
	return fn(f)
}

// sizedReader is a stream that tells its size, so that the analysis can
// report progress by bytes when the media's header does not tell its length.
type sizedReader struct {
	io.Reader
	size int64
}

// Size returns the stream's length in bytes.
func (s sizedReader) Size() int64 { return s.size }
