package dsp

import (
	"context"
	"fmt"
	"path/filepath"
)

// A recording of several tracks (one microphone per person) comes as
// several files, as one file with one audio stream per microphone (OBS's
// MKV, MP4 or MOV), or as one file whose channels are separate
// microphones. TrackRef names one track of it; OpenTrack decodes it.

// Ways an input holds the tracks of a recording (ListTracks).
const (
	TracksFiles    = "files"    // one track per file: its first audio stream, all its channels
	TracksStreams  = "streams"  // one track per audio stream of one file
	TracksChannels = "channels" // one mono track per channel of one file's first audio stream
)

// MaxTracks is the most tracks a recording may have (AnalyzeTracks
// measures at most as many from one source).
const MaxTracks = 16

// TrackRef names one track of a recording: a file, one of its audio
// streams and, for a file whose channels are separate microphones, one
// channel of it.
type TrackRef struct {
	Path string `json:"path"`
	// Stream is the audio stream, counted among the file's audio streams
	// from 0.
	Stream int `json:"stream"`
	// Channel is the channel of the stream taken alone as a mono track,
	// from 0; -1 takes all the stream's channels.
	Channel int `json:"channel"`
}

// String names the track for messages: the file's base name, with the
// stream and channel when they are not the whole first stream.
func (t TrackRef) String() string {
	s := filepath.Base(t.Path)
	if t.Stream != 0 {
		s += fmt.Sprintf(" stream %d", t.Stream)
	}
	if t.Channel >= 0 {
		s += fmt.Sprintf(" channel %d", t.Channel)
	}
	return s
}

// ListTracks names the tracks of the recording given by paths, held as
// mode says (TracksFiles when ""): TracksFiles takes each file as one
// track (up to MaxTracks files); TracksStreams and TracksChannels take
// one file, probed for its audio streams or channels. Fewer than one
// track, more than MaxTracks, or a mode of one file given several are
// refused.
func ListTracks(ctx context.Context, dec AutoDecoder, mode string, paths []string) ([]TrackRef, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no input", ErrNoTrack)
	}
	switch mode {
	case "", TracksFiles:
		if len(paths) > MaxTracks {
			return nil, fmt.Errorf("%d files: %w", len(paths), errTooManyTracks)
		}
		refs := make([]TrackRef, len(paths))
		for i, p := range paths {
			refs[i] = TrackRef{Path: p, Channel: -1}
		}
		return refs, nil
	case TracksStreams, TracksChannels:
	default:
		return nil, fmt.Errorf("tracks %q: want %s, %s or %s", mode, TracksFiles, TracksStreams, TracksChannels)
	}
	if len(paths) != 1 {
		return nil, fmt.Errorf("tracks %q reads one file's %s; %d files given (several files are a track each)", mode, mode, len(paths))
	}
	info, err := dec.Probe(ctx, paths[0])
	if err != nil {
		return nil, err
	}
	n := max(info.AudioStreams, 1)
	if mode == TracksChannels {
		n = info.Channels
	}
	if n > MaxTracks {
		return nil, fmt.Errorf("%s has %d %s: %w", info.Name, n, mode, errTooManyTracks)
	}
	refs := make([]TrackRef, n)
	for i := range refs {
		refs[i] = TrackRef{Path: paths[0], Channel: -1}
		if mode == TracksStreams {
			refs[i].Stream = i
		} else {
			refs[i].Channel = i
		}
	}
	return refs, nil
}

// errTooManyTracks is the error of a recording of over MaxTracks tracks.
var errTooManyTracks = fmt.Errorf("%w: at most %d tracks", ErrNoTrack, MaxTracks)

// OpenTrack decodes track t, at rate Hz when rate > 0 (resampled by
// ffmpeg when the track's own rate differs; 0 keeps its own): the file's
// first audio stream with the AutoDecoder, another one with ffmpeg. A
// track of one channel is a mono Stream whose Info says 1 channel. A
// stream or channel the file does not have is refused with ErrNoTrack.
// Closing the Stream closes the file.
func OpenTrack(ctx context.Context, dec AutoDecoder, t TrackRef, rate int) (Stream, error) {
	if t.Stream < 0 || t.Channel < -1 {
		return nil, fmt.Errorf("%w: %s: stream %d channel %d", ErrNoTrack, filepath.Base(t.Path), t.Stream, t.Channel)
	}
	ff := dec.FFmpeg
	ff.Stream = t.Stream
	var st Stream
	var err error
	if t.Stream == 0 {
		st, err = dec.Open(ctx, t.Path)
	} else {
		st, err = ff.Open(ctx, t.Path)
	}
	if err == nil && rate > 0 && st.Format().SampleRate != rate {
		st.Close()
		ff.SampleRate = rate
		st, err = ff.Open(ctx, t.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("track %s: %w", t, err)
	}
	if t.Channel < 0 {
		return st, nil
	}
	if ch := st.Format().Channels; t.Channel >= ch {
		st.Close()
		return nil, fmt.Errorf("%w: %s has %d channels, no channel %d (channels count from 0)", ErrNoTrack, filepath.Base(t.Path), ch, t.Channel)
	}
	return newChannelStream(st, t.Channel), nil
}

// channelStream is one channel of a Stream, as a mono Stream.
type channelStream struct {
	st  Stream
	ch  int // channels of st
	k   int // the channel taken
	buf []float32
}

func newChannelStream(st Stream, k int) *channelStream {
	return &channelStream{st: st, ch: st.Format().Channels, k: k}
}

func (c *channelStream) Format() Format {
	return Format{SampleRate: c.st.Format().SampleRate, Channels: 1}
}

// Info is the stream's, for one channel.
func (c *channelStream) Info() Info {
	i := c.st.Info()
	i.Channels = 1
	return i
}

func (c *channelStream) Read(p []float32) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if need := len(p) * c.ch; cap(c.buf) < need {
		c.buf = make([]float32, need)
	}
	n, err := c.st.Read(c.buf[:len(p)*c.ch])
	frames := n / c.ch
	for i := range frames {
		p[i] = c.buf[i*c.ch+c.k]
	}
	return frames, err
}

// Skip passes over frames of the stream under it.
func (c *channelStream) Skip(n int64) (int64, error) { return Skip(c.st, n) }

func (c *channelStream) Close() error { return c.st.Close() }

// AnalyzeTrack decodes track t (OpenTrack, at rate when > 0) and analyses
// it in one pass (Analyze).
func AnalyzeTrack(ctx context.Context, dec AutoDecoder, t TrackRef, rate int, progress Progress) (*Analysis, error) {
	st, err := OpenTrack(ctx, dec, t, rate)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	a, err := Analyze(ctx, st, st.Info(), progress)
	if err != nil {
		return nil, fmt.Errorf("track %s: %w", t, err)
	}
	return a, nil
}
