package transcode

import (
	"sync"

	"github.com/autocut-dev/autocut/dsp"
)

// asyncSource runs the stages below it in a goroutine of their own, up to
// depth buffers ahead of its reader, so that the stages above it (the
// limiter and the encoder, or the meter) work on the other core. Memory is
// bounded: depth buffers of stageBufFrames frames.
type asyncSource struct {
	format dsp.Format
	full   chan chunk
	free   chan []float32
	done   chan struct{}
	wg     sync.WaitGroup
	cur    chunk
	off    int
	closed bool
}

// chunk is one buffer read from the source below, with its result.
type chunk struct {
	buf []float32
	n   int
	err error
}

// newAsyncSource starts reading src; the caller must Close the asyncSource
// (before closing what src reads from).
func newAsyncSource(src dsp.Source, depth int) *asyncSource {
	f := src.Format()
	a := &asyncSource{format: f, full: make(chan chunk, depth), free: make(chan []float32, depth), done: make(chan struct{})}
	for i := 0; i < depth; i++ {
		a.free <- make([]float32, stageBufFrames*f.Channels)
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for {
			var buf []float32
			select {
			case buf = <-a.free:
			case <-a.done:
				return
			}
			n, err := src.Read(buf)
			select {
			case a.full <- chunk{buf: buf, n: n, err: err}:
			case <-a.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return a
}

// Format returns the source's format.
func (a *asyncSource) Format() dsp.Format { return a.format }

// Read copies the next samples read ahead into p.
func (a *asyncSource) Read(p []float32) (int, error) {
	for a.off >= a.cur.n {
		if a.cur.err != nil {
			return 0, a.cur.err
		}
		if a.cur.buf != nil {
			a.free <- a.cur.buf
		}
		a.cur, a.off = <-a.full, 0
	}
	k := min(len(p)/a.format.Channels*a.format.Channels, a.cur.n-a.off)
	copy(p, a.cur.buf[a.off:a.off+k])
	a.off += k
	return k, nil
}

// Close stops the goroutine and waits for it to return.
func (a *asyncSource) Close() {
	if !a.closed {
		a.closed = true
		close(a.done)
		a.wg.Wait()
	}
}
