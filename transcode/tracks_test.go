package transcode

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// Two speakers on two tracks: the host loud over [0.5, 3.5) s, the guest
// 15 dB quieter over [4.5, 7.5) s (white noise stands for speech), and a
// click of 0.1 on both tracks at the same instant, 4 s, where both are
// silent. The plan keeps three ranges around them.
const (
	hostExpr  = "0.3*(2*random(0)-1)*between(t,0.5,3.5)"
	guestExpr = "0.05*(2*random(1)-1)*between(t,4.5,7.5)"
	clickSec  = 4.0
)

var tracksKeep = []dsp.Range{{Start: 0.2, End: 1.5}, {Start: 2.5, End: 5.5}, {Start: 6.0, End: 7.8}}

// clickExpr is an aevalsrc term: 0.1 at the sample of clickSec at rate.
func clickExpr(rate int) string {
	return fmt.Sprintf("0.1*eq(n,%d)", int(clickSec*float64(rate)))
}

// trackSrc is an ffmpeg lavfi input of expr at rate for sec seconds.
func trackSrc(expr string, rate int, sec float64) []string {
	return []string{"-f", "lavfi", "-i", fmt.Sprintf("aevalsrc='%s+%s':s=%d:d=%g", expr, clickExpr(rate), rate, sec)}
}

// outSample is where input time sec lands in the output of keep at rate.
func outSample(keep []dsp.Range, rate int, sec float64) int64 {
	in := int64(math.Round(sec * float64(rate)))
	var out int64
	for _, sp := range spansOf(keep, rate) {
		if in >= sp[1] {
			out += sp[1] - sp[0]
			continue
		}
		return out + in - sp[0]
	}
	return -1
}

// outRanges maps input ranges within keep to the output's times.
func outRanges(keep []dsp.Range, rs ...dsp.Range) []dsp.Range {
	var out []dsp.Range
	for _, r := range rs {
		t := 0.0
		for _, k := range keep {
			s, e := max(r.Start, k.Start), min(r.End, k.End)
			if e > s {
				out = append(out, dsp.Range{Start: t + s - k.Start, End: t + e - k.Start})
			}
			t += k.Len()
		}
	}
	return out
}

// peakAt returns the frame of the largest magnitude in x (ch channels)
// within [from, to) frames.
func peakAt(x []float32, ch int, from, to int64) int64 {
	best, at := float32(-1), int64(-1)
	for f := max(from, 0); f < min(to, int64(len(x)/ch)); f++ {
		for c := range ch {
			if v := float32(math.Abs(float64(x[int(f)*ch+c]))); v > best {
				best, at = v, f
			}
		}
	}
	return at
}

func analyzeTracks(t *testing.T, refs []dsp.TrackRef) []Track {
	t.Helper()
	tracks := make([]Track, len(refs))
	for i, r := range refs {
		a, err := dsp.AnalyzeTrack(context.Background(), dsp.AutoDecoder{}, r, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		tracks[i] = Track{Ref: r, Analysis: a}
	}
	return tracks
}

// TestRenderTracks renders two tracks given as a 2-stream MKV, two WAV
// files (a mono host and a stereo guest; a guest at 44.1 kHz, a second
// shorter, against a 48 kHz host) and a 2-channel WAV, as a mix and
// split: every output is of the plan's length at the highest rate, the
// click lands at the same output sample on every track (within one sample
// where the guest is resampled), and in the mix the host and the guest
// are as loud as each other within 0.5 LU though they were 15 dB apart.
func TestRenderTracks(t *testing.T) {
	ctx := context.Background()
	const rate = 48000
	cases := []struct {
		name  string
		mode  string
		files func(t *testing.T) []string
		slack int64 // samples the click may move on a resampled track
		ch    int   // the mix's channels
	}{
		{"mkv streams", dsp.TracksStreams, func(t *testing.T) []string {
			args := append(trackSrc(hostExpr, rate, 8), trackSrc(guestExpr, rate, 8)...)
			return []string{gen(t, "show.mkv", append(args, "-map", "0:a", "-map", "1:a", "-c:a", "pcm_s16le")...)}
		}, 0, 1},
		{"wav files, mono and stereo", dsp.TracksFiles, func(t *testing.T) []string {
			return []string{
				gen(t, "host.wav", append(trackSrc(hostExpr, rate, 8), "-c:a", "pcm_s16le")...),
				gen(t, "guest.wav", append(trackSrc(guestExpr, rate, 8), "-ac", "2", "-c:a", "pcm_s16le")...),
			}
		}, 0, 2},
		{"wav files, 44.1 kHz guest shorter", dsp.TracksFiles, func(t *testing.T) []string {
			return []string{
				gen(t, "host.wav", append(trackSrc(hostExpr, rate, 8), "-c:a", "pcm_s16le")...),
				gen(t, "guest.wav", append(trackSrc(guestExpr, 44100, 7.9), "-c:a", "pcm_s16le")...),
			}
		}, 1, 1},
		{"wav channels", dsp.TracksChannels, func(t *testing.T) []string {
			args := append(trackSrc(hostExpr, rate, 8), trackSrc(guestExpr, rate, 8)...)
			return []string{gen(t, "lr.wav", append(args, "-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo", "-c:a", "pcm_s16le")...)}
		}, 0, 1},
	}
	host := dsp.Range{Start: 0.5, End: 3.5}
	guest := dsp.Range{Start: 4.5, End: 7.5}
	wantFrames := framesOf(spansOf(tracksKeep, rate))
	wantClick := outSample(tracksKeep, rate, clickSec)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			refs, err := dsp.ListTracks(ctx, dsp.AutoDecoder{}, c.mode, c.files(t))
			if err != nil {
				t.Fatal(err)
			}
			tracks := analyzeTracks(t, refs)
			if d := tracks[0].Analysis.LoudnessOf([]dsp.Range{host}) - tracks[1].Analysis.LoudnessOf([]dsp.Range{guest}); d < 10 {
				t.Fatalf("the host is %.1f LU louder than the guest: the test wants 10 or more", d)
			}
			p := planOf(8, tracksKeep...)
			dir := t.TempDir()

			t.Run("mix", func(t *testing.T) {
				out := filepath.Join(dir, "mix.wav")
				res, err := RenderTracks(ctx, tracks, p, Options{Format: "wav"}, out, nil)
				if err != nil {
					t.Fatal(err)
				}
				x, f := readAll(t, out)
				if f.SampleRate != rate || f.Channels != c.ch || int64(len(x)/f.Channels) != wantFrames {
					t.Fatalf("mix: %d frames of %+v, want %d at %d Hz x %d", len(x)/f.Channels, f, wantFrames, rate, c.ch)
				}
				if at := peakAt(x, f.Channels, wantClick-rate/10, wantClick+rate/10); at < wantClick-c.slack || at > wantClick+c.slack {
					t.Errorf("mix: the click at output frame %d, want %d", at, wantClick)
				}
				a := analyze(t, out)
				lh, lg := a.LoudnessOf(outRanges(tracksKeep, host)), a.LoudnessOf(outRanges(tracksKeep, guest))
				t.Logf("mix: host %.2f LUFS, guest %.2f LUFS (gains %.2f dB; loudness before %.2f LUFS)", lh, lg, res.TrackGainDb, res.TrackLoudness)
				if math.Abs(lh-lg) > 0.5 {
					t.Errorf("mix: host %.2f LUFS, guest %.2f LUFS: %.2f LU apart, want 0.5 at most", lh, lg, lh-lg)
				}
			})

			t.Run("mix normalized", func(t *testing.T) {
				// (WAV: an MP3 encoder's low-pass takes a good part of the
				// white noise's loudness.)
				out := filepath.Join(dir, "mix-podcast.wav")
				o := Options{Format: "wav", Normalize: plan.NormalizePodcast}
				res, err := RenderTracks(ctx, tracks, p, o, out, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Streamed, the same bytes.
				var buf bytes.Buffer
				sres, err := RenderTracksTo(ctx, tracks, p, o, onlyWriter{&buf}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if file, err := os.ReadFile(out); err != nil || !bytes.Equal(file, buf.Bytes()) || sres.Size != res.Size || sres.GainDb != res.GainDb {
					t.Errorf("RenderTracksTo wrote %d bytes (gain %.2f dB), RenderTracks %d (%.2f dB), and they differ (%v)", buf.Len(), sres.GainDb, res.Size, res.GainDb, err)
				}
				a := analyze(t, out)
				if l := a.Loudness.Integrated; math.Abs(l+16) > 0.5 {
					t.Errorf("podcast mix: %.2f LUFS, want -16 within 0.5", l)
				}
				lh, lg := a.LoudnessOf(outRanges(tracksKeep, host)), a.LoudnessOf(outRanges(tracksKeep, guest))
				if math.Abs(lh-lg) > 0.5 {
					t.Errorf("podcast mix: host %.2f LUFS, guest %.2f LUFS, want 0.5 LU apart at most", lh, lg)
				}
			})

			t.Run("split", func(t *testing.T) {
				outs := SplitNames(filepath.Join(dir, "split.wav"), len(tracks))
				res, err := RenderSplit(ctx, tracks, p, Options{Format: "wav"}, outs, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res) != len(tracks) {
					t.Fatalf("%d results for %d tracks", len(res), len(tracks))
				}
				for k, out := range outs {
					x, f := readAll(t, out)
					if f.SampleRate != rate || int64(len(x)/f.Channels) != wantFrames {
						t.Errorf("track %d: %d frames at %d Hz, want %d at %d", k, len(x)/f.Channels, f.SampleRate, wantFrames, rate)
					}
					if f.Channels != tracks[k].Analysis.Input.Channels {
						t.Errorf("track %d: %d channels, want the track's %d", k, f.Channels, tracks[k].Analysis.Input.Channels)
					}
					slack := int64(0)
					if k > 0 {
						slack = c.slack
					}
					if at := peakAt(x, f.Channels, wantClick-rate/10, wantClick+rate/10); at < wantClick-slack || at > wantClick+slack {
						t.Errorf("track %d: the click at output frame %d, want %d", k, at, wantClick)
					}
				}
			})
		})
	}
}

// TestRenderTracksVideo: the mix of an MKV's two audio streams, exported
// as mp4, carries the file's video cut alike: picture and sound of one
// length, the plan's.
func TestRenderTracksVideo(t *testing.T) {
	ctx := context.Background()
	mkv := gen(t, "obs.mkv", "-f", "lavfi", "-i", "testsrc=size=32x18:rate=25:d=4",
		"-f", "lavfi", "-i", "sine=f=440:d=4:sample_rate=48000,volume='between(t,0.5,1.5)':eval=frame",
		"-f", "lavfi", "-i", "sine=f=660:d=4:sample_rate=48000,volume='0.2*between(t,2.5,3.5)':eval=frame",
		"-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "pcm_s16le")
	refs, err := dsp.ListTracks(ctx, dsp.AutoDecoder{}, dsp.TracksStreams, []string{mkv})
	if err != nil {
		t.Fatal(err)
	}
	tracks := analyzeTracks(t, refs)
	info, err := dsp.Probe(ctx, mkv)
	if err != nil {
		t.Fatal(err)
	}
	tracks[0].Analysis.Input.FrameRate, tracks[0].Analysis.Input.VideoFrames = info.FrameRate, info.VideoFrames
	if tracks[0].Analysis.Input.Type != "video" || info.AudioStreams != 2 {
		t.Fatalf("the MKV is %q with %d audio streams, want video with 2", tracks[0].Analysis.Input.Type, info.AudioStreams)
	}
	p := planOf(4, dsp.Range{Start: 0.2, End: 1.8}, dsp.Range{Start: 2.2, End: 3.8})
	out := filepath.Join(t.TempDir(), "obs.mp4")
	if _, err := RenderTracks(ctx, tracks, p, Options{Format: "mp4"}, out, nil); err != nil {
		t.Fatal(err)
	}
	v, a := streamDurations(t, out)
	if math.Abs(v-3.2) > 0.05 || math.Abs(a-3.2) > 0.05 {
		t.Errorf("video %.3f s, audio %.3f s, want both 3.2", v, a)
	}
}

// TestRenderTracksErrors: bad tracks and outputs are refused before any
// work, with errors that say why.
func TestRenderTracksErrors(t *testing.T) {
	ctx := context.Background()
	mono := gen(t, "mono.wav", "-f", "lavfi", "-i", "sine=d=1:sample_rate=16000", "-c:a", "pcm_s16le")
	stereo := gen(t, "st.wav", "-f", "lavfi", "-i", "sine=d=1:sample_rate=16000", "-ac", "2", "-c:a", "pcm_s16le")
	six := gen(t, "six.wav", "-f", "lavfi", "-i", "sine=d=1:sample_rate=16000", "-ac", "6", "-c:a", "pcm_s16le")
	tr := func(paths ...string) []Track {
		var out []Track
		for _, p := range paths {
			out = append(out, Track{Ref: dsp.TrackRef{Path: p, Channel: -1}, Analysis: analyze(t, p)})
		}
		return out
	}
	p := planOf(1, dsp.Range{Start: 0, End: 0.5})
	dir := t.TempDir()
	many := make([]Track, dsp.MaxTracks+1)
	for i := range many {
		many[i] = tr(mono)[0]
	}
	cases := []struct {
		name string
		run  func() error
		is   error
		want string
	}{
		{"no track", func() error {
			_, err := RenderTracks(ctx, nil, p, Options{Format: "wav"}, filepath.Join(dir, "a.wav"), nil)
			return err
		}, plan.ErrInvalidParams, "no track"},
		{"17 tracks", func() error {
			_, err := RenderTracks(ctx, many, p, Options{Format: "wav"}, filepath.Join(dir, "a.wav"), nil)
			return err
		}, plan.ErrInvalidParams, "17 tracks, at most 16"},
		{"nil analysis", func() error {
			_, err := RenderTracks(ctx, []Track{tr(mono)[0], {Ref: dsp.TrackRef{Path: mono, Channel: -1}}}, p, Options{Format: "wav"}, filepath.Join(dir, "a.wav"), nil)
			return err
		}, plan.ErrBadAnalysis, "track 1"},
		{"stereo and 6 channels", func() error {
			_, err := RenderTracks(ctx, tr(stereo, six), p, Options{Format: "wav"}, filepath.Join(dir, "a.wav"), nil)
			return err
		}, plan.ErrInvalidParams, "has 2 channels and another 6"},
		{"split, one output for two", func() error {
			_, err := RenderSplit(ctx, tr(mono, stereo), p, Options{Format: "wav"}, []string{filepath.Join(dir, "a.wav")}, nil)
			return err
		}, plan.ErrInvalidParams, "1 output paths for 2 tracks"},
		{"split, one file twice", func() error {
			o := filepath.Join(dir, "a.wav")
			_, err := RenderSplit(ctx, tr(mono, stereo), p, Options{Format: "wav"}, []string{o, o}, nil)
			return err
		}, plan.ErrInvalidParams, "both written to"},
		{"mix past the end", func() error {
			_, err := RenderTracks(ctx, tr(mono, stereo), planOf(3, dsp.Range{Start: 0, End: 3}), Options{Format: "wav"}, filepath.Join(dir, "a.wav"), nil)
			return err
		}, plan.ErrInvalidParams, "within the input"},
		{"mp4 of audio", func() error {
			_, err := RenderTracks(ctx, tr(mono, stereo), p, Options{Format: "mp4"}, filepath.Join(dir, "a.mp4"), nil)
			return err
		}, plan.ErrInvalidParams, "needs a video input"},
		{"missing stream", func() error {
			bad := tr(mono, stereo)
			bad[1].Ref.Stream = 1
			_, err := RenderTracks(ctx, bad, p, Options{Format: "wav"}, filepath.Join(dir, "a.wav"), nil)
			return err
		}, dsp.ErrNoTrack, "no stream 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if !errors.Is(err, c.is) || !strings.Contains(fmt.Sprint(err), c.want) {
				t.Errorf("error %v, want %v saying %q", err, c.is, c.want)
			}
		})
	}
}

// BenchmarkRenderTracksHeap renders the mix of 4 tracks of 30 minutes
// (48 kHz mono WAV files, 4 x 165 MB, bursts of 10 s repeated; podcast
// normalization, so the mix is measured, then encoded) to io.Discard and
// reports the largest heap in use while it runs, and that less the heap in
// use before (the four analyses) as render_heap_MB.
func BenchmarkRenderTracksHeap(b *testing.B) {
	const sec, rate, n = 30 * 60, 48000, 4
	dir := b.TempDir()
	tracks := make([]Track, n)
	for k := range tracks {
		in := filepath.Join(dir, fmt.Sprintf("mic%d.wav", k))
		loop := make([]byte, 10*rate*2)
		for i, v := range burstySignal(1, 10*rate, uint64(20+k)) {
			binary.LittleEndian.PutUint16(loop[2*i:], uint16(int16(max(-1, min(1, v*0.3/float32(k+1)))*32767)))
		}
		f, err := os.Create(in)
		if err != nil {
			b.Fatal(err)
		}
		h, err := wavHeader(dsp.Format{SampleRate: rate, Channels: 1}, 16, sec*rate)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Write(h); err != nil {
			b.Fatal(err)
		}
		for range sec / 10 {
			if _, err := f.Write(loop); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		tracks[k] = Track{Ref: dsp.TrackRef{Path: in, Channel: -1}, Analysis: analyze(b, in)}
	}
	p := planOf(float64(sec), dsp.Range{Start: 0, End: float64(sec)})
	var peak, base uint64
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base = ms.HeapInuse // the analyses, which the caller holds
		done := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var ms runtime.MemStats
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}()
		if _, err := RenderTracksTo(context.Background(), tracks, p, Options{Format: "wav", Normalize: plan.NormalizePodcast}, io.Discard, nil); err != nil {
			b.Fatal(err)
		}
		close(done)
		<-sampled
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak_heap_MB")
	b.ReportMetric(float64(peak-min(base, peak))/(1<<20), "render_heap_MB")
	b.ReportMetric(sec*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
}

// TestMixEqualisesRealVoices: two real voices (a host and a guest reading
// in turn, 20 s each, the guest recorded 15 dB quieter), with and without
// each voice's bleed on the other's track (20 dB down, 3 ms late), are
// as loud as each other in the mix, measured on the mix over each one's
// turn.
func TestMixEqualisesRealVoices(t *testing.T) {
	ctx := context.Background()
	hostSrc, guestSrc := recording("en_asterisk_allison_demo-instruct_73s.wav"), recording("fr_asterisk_june_demo-instruct_71s.wav")
	for _, c := range []struct {
		name  string
		bleed string // the other voice's gain on a track ("0": none)
		want  float64
	}{
		{"no bleed", "0", 0.5},
		{"bleed 20 dB down", "0.1", 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each voice: 20 s at its turn, silence at the other's, 40 s in all.
			mk := func(name, ownVol, otherVol string, hostTurn bool) string {
				own, other := "[0:a]atrim=0:20,asetpts=N/SR/TB,volume="+ownVol, "[1:a]atrim=0:20,asetpts=N/SR/TB,volume="+otherVol+",adelay=3:all=1"
				if !hostTurn {
					own, other = "[1:a]atrim=0:20,asetpts=N/SR/TB,volume="+ownVol, "[0:a]atrim=0:20,asetpts=N/SR/TB,volume="+otherVol+",adelay=3:all=1"
				}
				// The host speaks over [0, 20), the guest over [20, 40).
				first, second := own, other
				if !hostTurn {
					first, second = other, own
				}
				return gen(t, name, "-i", hostSrc, "-i", guestSrc, "-filter_complex",
					first+",aresample=16000,apad=whole_dur=20[a];"+second+",aresample=16000,apad=whole_dur=20[b];[a][b]concat=n=2:v=0:a=1,atrim=0:40[out]",
					"-map", "[out]", "-ac", "1", "-c:a", "pcm_s16le")
			}
			host := mk("host.wav", "1", c.bleed, true)
			guest := mk("guest.wav", "0.178", fmt.Sprint(c.bleed+"*0.178"), false)
			tracks := analyzeTracks(t, []dsp.TrackRef{{Path: host, Channel: -1}, {Path: guest, Channel: -1}})
			p := planOf(40, dsp.Range{Start: 0, End: 40})
			out := filepath.Join(t.TempDir(), "mix.wav")
			res, err := RenderTracks(ctx, tracks, p, Options{Format: "wav"}, out, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := analyze(t, out)
			before := tracks[0].Analysis.LoudnessOf([]dsp.Range{{Start: 0, End: 20}}) - tracks[1].Analysis.LoudnessOf([]dsp.Range{{Start: 20, End: 40}})
			lh, lg := a.LoudnessOf([]dsp.Range{{Start: 0, End: 20}}), a.LoudnessOf([]dsp.Range{{Start: 20, End: 40}})
			t.Logf("host %.2f LUFS, guest %.2f LUFS in the mix: %.2f LU apart (%.2f before); gains %.2f dB", lh, lg, lh-lg, before, res.TrackGainDb)
			if before < 10 {
				t.Fatalf("the voices are %.2f LU apart before the mix: the test wants 10 or more", before)
			}
			if math.Abs(lh-lg) > c.want {
				t.Errorf("host %.2f LUFS, guest %.2f LUFS in the mix: %.2f LU apart, want %.1f at most", lh, lg, lh-lg, c.want)
			}
		})
	}
}
