package dsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// tracksBlockFrames is the block of sample frames AnalyzeTracks hands
// each track at a time, and tracksBlocks how many blocks a track may hold
// (what the slowest track's analysis has not read yet): the memory the
// split adds is tracks x tracksBlocks x tracksBlockFrames x 4 bytes (1 MB
// for 4 tracks).
const (
	tracksBlockFrames = 1 << 14
	tracksBlocks      = 4
)

// AnalyzeTracks measures each channel of src as a track of its own (one
// microphone per channel: a recorder's or an interface's separate mics,
// or the audio streams of one file decoded side by side), in one pass
// over src: the channels are split into mono sources analysed
// concurrently, as Analyze would analyse each alone (the same results).
// Memory is bounded: each track's analysis as Analyze's, plus a few
// blocks of samples per track between the split and the analyses. Each
// Analysis's Input is info with one channel and the track's number after
// the name ("show.mkv#2"). progress receives the fraction of src read.
// More than MaxTracks channels is refused (ErrUnsupportedFormat).
func AnalyzeTracks(ctx context.Context, src Source, info Info, progress Progress) ([]*Analysis, error) {
	if src == nil {
		return nil, fmt.Errorf("dsp: analyze tracks of %s: nil source", info.Name)
	}
	f := src.Format()
	if f.Channels < 1 || f.Channels > MaxTracks {
		return nil, fmt.Errorf("%w: %d tracks (1 to %d)", ErrUnsupportedFormat, f.Channels, MaxTracks)
	}
	n := f.Channels
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tracks := make([]*trackSource, n)
	for k := range tracks {
		tracks[k] = &trackSource{ctx: ctx, rate: f.SampleRate, full: make(chan []float32, tracksBlocks), free: make(chan []float32, tracksBlocks)}
		for range tracksBlocks {
			tracks[k].free <- make([]float32, tracksBlockFrames)
		}
	}
	out := make([]*Analysis, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k, t := range tracks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ti := info
			ti.Name = fmt.Sprintf("%s#%d", info.Name, k+1)
			ti.Channels = 1
			a, err := Analyze(ctx, t, ti, nil)
			if err != nil {
				errs[k] = fmt.Errorf("dsp: track %d: %w", k+1, err)
				cancel()
				return
			}
			out[k] = a
		}()
	}
	split := splitTracks(ctx, src, tracks, lengthOf(info, f), progress)
	if split != nil {
		cancel()
	}
	wg.Wait()
	// The source's failure, or the caller's cancellation, says why every
	// track stopped; a split stopped by a track's failure does not.
	if split != nil && (!errors.Is(split, context.Canceled) || parent.Err() != nil) {
		return nil, split
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(1)
	}
	return out, nil
}

// splitTracks reads src to its end and hands each track its channel, in
// blocks; it closes every track's blocks at the end, with the source's
// error if it failed.
func splitTracks(ctx context.Context, src Source, tracks []*trackSource, total float64, progress Progress) (err error) {
	n := len(tracks)
	defer func() {
		for _, t := range tracks {
			t.err = err
			close(t.full)
		}
	}()
	buf := make([]float32, tracksBlockFrames*n)
	var done int64
	for {
		m, rerr := fill(src, buf, n)
		if m > 0 {
			frames := m / n
			for k, t := range tracks {
				var b []float32
				select {
				case b = <-t.free:
				case <-ctx.Done():
					return ctx.Err()
				}
				b = b[:frames]
				for i := range frames {
					b[i] = buf[i*n+k]
				}
				t.full <- b // never blocks: a track holds at most tracksBlocks
			}
			done += int64(frames)
			if progress != nil && total > 0 {
				progress(min(float64(done)/total, 1))
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("dsp: read tracks: %w", rerr)
		}
	}
}

// trackSource is one track of AnalyzeTracks: a mono Source of the blocks
// the split hands it.
type trackSource struct {
	ctx        context.Context
	rate       int
	full, free chan []float32
	cur        []float32 // the block being read
	off        int
	err        error // the split's, read after full is closed
}

func (t *trackSource) Format() Format { return Format{SampleRate: t.rate, Channels: 1} }

func (t *trackSource) Read(p []float32) (int, error) {
	for t.off >= len(t.cur) {
		if t.cur != nil {
			t.free <- t.cur[:cap(t.cur)]
			t.cur = nil
		}
		select {
		case b, ok := <-t.full:
			if !ok {
				if t.err != nil {
					return 0, t.err
				}
				return 0, io.EOF
			}
			t.cur, t.off = b, 0
		case <-t.ctx.Done():
			return 0, t.ctx.Err()
		}
	}
	k := copy(p, t.cur[t.off:])
	t.off += k
	return k, nil
}
