package dsp

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrUnsupportedFormat reports input whose content is not a format any decoder reads.
var ErrUnsupportedFormat = errors.New("unsupported format")

// ErrTooLong reports an input longer than the caller's duration limit.
var ErrTooLong = errors.New("input too long")

// TooLongError is the error of an input whose header gives a length over
// the caller's limit: errors.Is(err, ErrTooLong) holds, and errors.As gives
// the length. An input that runs over the limit while decoded (its header
// gave no length, or less) is refused with ErrTooLong alone.
type TooLongError struct {
	Name     string  // the input's name
	Duration float64 // the length its header gives, seconds
	Limit    float64 // the limit, seconds
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("%v: %s lasts %.0f s, over the %.0f s limit", ErrTooLong, e.Name, e.Duration, e.Limit)
}

// Is reports whether target is ErrTooLong.
func (e *TooLongError) Is(target error) bool { return target == ErrTooLong }

// ErrNoTrack reports a track asked of an input that does not hold it: an
// audio stream or a channel past its last.
var ErrNoTrack = errors.New("no such track")

// ErrFFmpegMissing reports that ffmpeg or ffprobe is needed but not installed.
var ErrFFmpegMissing = errors.New("ffmpeg/ffprobe not found: install the Debian package ffmpeg")

// Format describes interleaved PCM: frames per second and samples per frame.
type Format struct {
	SampleRate int `json:"sampleRate"`
	Channels   int `json:"channels"`
}

// Source is a stream of interleaved float32 samples in [-1, 1] (overs allowed).
//
// Read fills p with whole frames and returns the number of samples written,
// always a multiple of Format().Channels. It returns io.EOF at the end, like io.Reader.
type Source interface {
	Format() Format
	Read(p []float32) (n int, err error)
}

// Skipper is a Source that can pass over frames without decoding them
// (a WAV file's samples are not converted).
type Skipper interface {
	// Skip passes over the next n frames, fewer at the end of the stream,
	// and returns how many.
	Skip(n int64) (int64, error)
}

// Skip passes over the next n frames of src: with its Skip method when it
// has one, else by reading them. It returns how many frames it passed,
// fewer than n only at the end of the stream (and then with a nil error).
func Skip(src Source, n int64) (int64, error) {
	if sk, ok := src.(Skipper); ok {
		return sk.Skip(n)
	}
	ch := int64(src.Format().Channels)
	buf := make([]float32, min(n, 8192)*ch)
	var done int64
	for done < n {
		k, err := src.Read(buf[:min(n-done, 8192)*ch])
		done += int64(k) / ch
		if err == io.EOF {
			return done, nil
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// Stream is a Source decoded from a file, with what is known about the input.
type Stream interface {
	Source
	Info() Info
	Close() error
}

// Rational is an exact ratio, such as a video frame rate of 30000/1001.
type Rational struct {
	Num int64 `json:"num"`
	Den int64 `json:"den"`
}

// Float returns the ratio as a float64 (0 when Den is 0).
func (r Rational) Float() float64 {
	if r.Den == 0 {
		return 0
	}
	return float64(r.Num) / float64(r.Den)
}

// String formats the ratio as "num/den", or "num" when den is 1.
func (r Rational) String() string {
	if r.Den == 1 {
		return fmt.Sprint(r.Num)
	}
	return fmt.Sprintf("%d/%d", r.Num, r.Den)
}

// Info is what a decoder knows about its input.
type Info struct {
	Name          string  `json:"name"`          // file name, no directory
	Type          string  `json:"type"`          // "audio" or "video"
	Format        string  `json:"format"`        // container: "wav", "mp3", "flac", "ogg", "mp4", "mov", "matroska", ...
	Codec         string  `json:"codec"`         // audio codec: "pcm_s16le", "pcm_f32le", "mp3", "aac", "flac", "opus", ...
	SampleRate    int     `json:"sampleRate"`    // native rate, Hz
	Channels      int     `json:"channels"`      // 1..8
	Duration      float64 `json:"duration"`      // seconds; after a full decode, the real decoded duration
	BitsPerSample int     `json:"bitsPerSample"` // source sample depth (0 when not meaningful, e.g. lossy)
	// Width and Height are the video's frame size in pixels as a player
	// shows it (swapped when the stream is stored rotated by 90 or 270
	// degrees, as phones record portrait video); 0 for audio-only inputs.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`

	// Frames is the number of sample frames when known up front, else -1;
	// after a full decode, the real decoded count.
	Frames int64 `json:"frames,omitzero"`
	// FrameRate is the video's exact frame rate (zero for audio-only inputs).
	FrameRate Rational `json:"frameRate,omitzero"`
	// VideoFrames is the number of video frames when known (0 for audio-only).
	VideoFrames int64 `json:"videoFrames,omitzero"`
	// StartTimecode is the source's start time in seconds (QuickTime tmcd or BWF time reference), 0 when none.
	StartTimecode float64 `json:"startTimecode,omitzero"`
	// AudioStreams is how many audio streams the input holds (a WAV or
	// MP3 file one; an MKV/MP4/MOV from OBS and the like one per
	// microphone); 0 when the decoder did not count them.
	AudioStreams int `json:"audioStreams,omitzero"`
}

// Range is a half-open time interval [Start, End) in seconds.
type Range struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Len returns End - Start.
func (r Range) Len() float64 { return r.End - r.Start }

// Progress receives the fraction (0..1) of the input consumed so far. It
// is called from one goroutine at a time, not always the caller's.
type Progress func(fraction float64)

// Rising returns a Progress that passes on to p only fractions over the
// last one it passed, so that a task which starts a step over never
// reports going back (nil for nil); it is safe for concurrent use.
func (p Progress) Rising() Progress {
	if p == nil {
		return nil
	}
	var mu sync.Mutex
	last := -1.0
	return func(f float64) {
		mu.Lock()
		defer mu.Unlock()
		if f > last {
			last = f
			p(f)
		}
	}
}
