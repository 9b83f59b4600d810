package dsp

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rmsOf is the root mean square of x.
func rmsOf(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(len(x), 1)))
}

// TestTracksOfOneFile: every track of a 2-stream MKV (a 440 Hz sine at
// 48 kHz, white noise at 44.1 kHz) and of a 2-channel WAV (a loud left, a
// quiet right) decodes as its own stream or channel, at its own rate or
// resampled; ListTracks counts them; a stream or channel past the last is
// ErrNoTrack.
func TestTracksOfOneFile(t *testing.T) {
	ctx := context.Background()
	mkv := ffmpegGen(t, "two.mkv", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=2",
		"-f", "lavfi", "-i", "anoisesrc=a=0.1:r=44100:d=2,pan=stereo|c0=c0|c1=c0",
		"-map", "0:a", "-map", "1:a", "-c:a", "pcm_s16le")
	wav := ffmpegGen(t, "lr.wav", "-f", "lavfi", "-i", "sine=f=300:sample_rate=16000:d=2",
		"-filter_complex", "[0:a]asplit[a][b];[b]volume=0.1[c];[a][c]join=inputs=2:channel_layout=stereo", "-c:a", "pcm_s16le")

	info, err := Probe(ctx, mkv)
	if err != nil {
		t.Fatal(err)
	}
	if info.AudioStreams != 2 {
		t.Errorf("probe of the MKV: %d audio streams, want 2", info.AudioStreams)
	}
	if info, err := Probe(ctx, wav); err != nil || info.AudioStreams != 1 {
		t.Errorf("probe of the WAV: %d audio streams (%v), want 1", info.AudioStreams, err)
	}

	for _, c := range []struct {
		name     string
		mode     string
		path     string
		want     []TrackRef
		rate     int // OpenTrack's
		rates    []int
		channels []int
		rms      []float64 // the tracks' RMS, within 15 %
	}{
		{"streams", TracksStreams, mkv, []TrackRef{{mkv, 0, -1}, {mkv, 1, -1}}, 0,
			[]int{48000, 44100}, []int{1, 2}, []float64{0.125 / math.Sqrt2, 0.1 / math.Sqrt(3)}},
		{"streams at 48k", TracksStreams, mkv, []TrackRef{{mkv, 0, -1}, {mkv, 1, -1}}, 48000,
			[]int{48000, 48000}, []int{1, 2}, []float64{0.125 / math.Sqrt2, 0.1 / math.Sqrt(3)}},
		{"channels", TracksChannels, wav, []TrackRef{{wav, 0, 0}, {wav, 0, 1}}, 0,
			[]int{16000, 16000}, []int{1, 1}, []float64{0.125 / math.Sqrt2, 0.0125 / math.Sqrt2}},
		{"channels at 48k", TracksChannels, wav, []TrackRef{{wav, 0, 0}, {wav, 0, 1}}, 48000,
			[]int{48000, 48000}, []int{1, 1}, []float64{0.125 / math.Sqrt2, 0.0125 / math.Sqrt2}},
		{"files", TracksFiles, "", []TrackRef{{wav, 0, -1}, {mkv, 0, -1}}, 0,
			[]int{16000, 48000}, []int{2, 1}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			paths := []string{c.path}
			if c.path == "" {
				paths = []string{wav, mkv}
			}
			refs, err := ListTracks(ctx, AutoDecoder{}, c.mode, paths)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, refs); d != "" {
				t.Fatalf("tracks (-want +got):\n%s", d)
			}
			for i, r := range refs {
				st, err := OpenTrack(ctx, AutoDecoder{}, r, c.rate)
				if err != nil {
					t.Fatal(err)
				}
				x := decodeAll(t, st)
				st.Close()
				f := st.Format()
				if f.SampleRate != c.rates[i] || f.Channels != c.channels[i] || st.Info().Channels != c.channels[i] {
					t.Errorf("track %d: %+v (info %d channels), want %d Hz x %d", i, f, st.Info().Channels, c.rates[i], c.channels[i])
				}
				if got, want := float64(len(x)/f.Channels)/float64(f.SampleRate), 2.0; math.Abs(got-want) > 0.01 {
					t.Errorf("track %d lasts %.4f s, want %.1f", i, got, want)
				}
				if c.rms != nil {
					if got := rmsOf(x); math.Abs(got/c.rms[i]-1) > 0.15 {
						t.Errorf("track %d: RMS %.4f, want %.4f", i, got, c.rms[i])
					}
				}
			}
		})
	}

	bad := []struct {
		name string
		run  func() error
		want string
	}{
		{"stream 2 of 2", func() error {
			_, err := OpenTrack(ctx, AutoDecoder{}, TrackRef{Path: mkv, Stream: 2, Channel: -1}, 0)
			return err
		}, "has 2 audio streams, no stream 2"},
		{"channel 2 of 2", func() error {
			_, err := OpenTrack(ctx, AutoDecoder{}, TrackRef{Path: wav, Channel: 2}, 0)
			return err
		}, "has 2 channels, no channel 2"},
		{"17 files", func() error {
			_, err := ListTracks(ctx, AutoDecoder{}, TracksFiles, make([]string, 17))
			return err
		}, "at most 16 tracks"},
		{"streams of two files", func() error {
			_, err := ListTracks(ctx, AutoDecoder{}, TracksStreams, []string{mkv, wav})
			return err
		}, "2 files given"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if !errors.Is(err, ErrNoTrack) && !strings.Contains(c.name, "two files") {
				t.Errorf("error %v, want ErrNoTrack", err)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	if _, err := ListTracks(ctx, AutoDecoder{}, "mics", []string{mkv}); err == nil {
		t.Error("tracks mode \"mics\" accepted")
	}
}

// TestTracksTooManyStreams: a file of 17 audio streams is refused by
// ListTracks, from ffprobe's count.
func TestTracksTooManyStreams(t *testing.T) {
	ctx := context.Background()
	args := []string{}
	for range 17 {
		args = append(args, "-f", "lavfi", "-i", "sine=d=0.1")
	}
	for i := range 17 {
		args = append(args, "-map", strconv.Itoa(i)+":a")
	}
	mkv := ffmpegGen(t, "many.mkv", append(args, "-c:a", "pcm_s16le")...)
	_, err := ListTracks(ctx, AutoDecoder{}, TracksStreams, []string{mkv})
	if !errors.Is(err, ErrNoTrack) || err == nil || !strings.Contains(err.Error(), "17 streams") {
		t.Errorf("17 streams: error %v, want ErrNoTrack saying so", err)
	}
}
