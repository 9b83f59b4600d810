package transcode

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// A recording of several tracks (one microphone per person, aligned from
// 0) is cut by one plan, the same on every track: the kept ranges become
// the same sample spans on each (all are rendered at one rate), with the
// same fades. RenderTracks writes their mix, RenderSplit one file per
// track.

// Track is one track of a recording to render: where it is and its
// analysis (of the track as dsp.OpenTrack decodes it at its own rate).
type Track struct {
	Ref      dsp.TrackRef
	Analysis *dsp.Analysis
	// Gate turns the track down by gateBleedDb (20 dB) outside Owned,
	// the time it speaks its own voice (plan.OwnedSpeech's ranges for
	// it, in the recording's seconds): its bleed of the others' voices
	// and its bed between its turns, with 15 ms raised-cosine ramps
	// after 20 ms of hold past each owned range (export.gateBleed). A
	// gated track with no owned range is turned down throughout.
	Gate  bool
	Owned []dsp.Range
}

// maxTrackGainDb bounds the gain that brings a quiet track to the
// loudest one's loudness in a mix: a track that holds little but the
// others' bleed or noise is not raised further.
const maxTrackGainDb = 20.0

// layout is how the tracks of a recording are rendered together: at one
// rate (the highest of theirs; ffmpeg resamples the others), over the
// longest one's length (the shorter ones padded with silence), the mix in
// the most channels any has (a mono track goes to every channel, a track
// of as many channels channel by channel; others are refused).
type layout struct {
	tracks   []Track
	rate     int
	channels int
	frames   int64 // the longest track's length at rate
	cheap    bool  // every track is a PCM WAV at rate read natively: skips cost nothing
}

func newLayout(tracks []Track) (*layout, error) {
	if len(tracks) == 0 {
		return nil, fmt.Errorf("%w: render: no track", plan.ErrInvalidParams)
	}
	if len(tracks) > dsp.MaxTracks {
		return nil, fmt.Errorf("%w: render: %d tracks, at most %d", plan.ErrInvalidParams, len(tracks), dsp.MaxTracks)
	}
	l := &layout{tracks: tracks, cheap: true}
	for i, t := range tracks {
		a := t.Analysis
		if a == nil {
			return nil, fmt.Errorf("render: track %d (%s): nil analysis: %w", i, t.Ref, plan.ErrBadAnalysis)
		}
		if in := a.Input; in.SampleRate < dsp.MinSampleRate || in.SampleRate > dsp.MaxSampleRate || in.Channels < 1 || in.Channels > dsp.MaxChannels {
			return nil, fmt.Errorf("render: track %d (%s): analysis of %d Hz x %d channels: %w", i, t.Ref, in.SampleRate, in.Channels, plan.ErrBadAnalysis)
		}
		if t.Gate {
			if _, err := gateSpans(t.Owned, a.Input.SampleRate); err != nil {
				return nil, fmt.Errorf("render: track %d (%s): %w", i, t.Ref, err)
			}
		}
		l.rate = max(l.rate, a.Input.SampleRate)
		l.channels = max(l.channels, a.Input.Channels)
	}
	for i, t := range tracks {
		in := t.Analysis.Input
		if in.Channels != 1 && in.Channels != l.channels {
			return nil, fmt.Errorf("%w: render: track %d (%s) has %d channels and another %d: tracks are mono or all of one channel count",
				plan.ErrInvalidParams, i, t.Ref, in.Channels, l.channels)
		}
		l.frames = max(l.frames, int64(math.Ceil(trackDuration(in)*float64(l.rate)-1e-6)))
		if !skipsCheaply(in) || in.SampleRate != l.rate || t.Ref.Stream != 0 || t.Ref.Channel >= 0 {
			l.cheap = false
		}
	}
	return l, nil
}

// trackDuration is an analysed track's length in seconds.
func trackDuration(in dsp.Info) float64 {
	if in.Frames > 0 && in.SampleRate > 0 {
		return float64(in.Frames) / float64(in.SampleRate)
	}
	return in.Duration
}

// info describes what the layout renders, after track k's input (its
// name, container and video), channels channels wide: the analysis the
// render chain is given says so.
func (l *layout) info(k, channels int) dsp.Info {
	in := l.tracks[k].Analysis.Input
	in.SampleRate, in.Channels = l.rate, channels
	in.Frames, in.Duration = l.frames, float64(l.frames)/float64(l.rate)
	if !l.cheap {
		in.Codec = "" // skipping decodes (skipsCheaply)
	}
	for _, t := range l.tracks {
		in.BitsPerSample = max(in.BitsPerSample, t.Analysis.Input.BitsPerSample)
	}
	return in
}

// analysis is track k's analysis describing what the layout renders
// (info), channels channels wide.
func (l *layout) analysis(k, channels int) *dsp.Analysis {
	a := *l.tracks[k].Analysis
	a.Input = l.info(k, channels)
	return &a
}

// open decodes track k at the layout's rate, padded with silence to the
// layout's length, and gated (Track.Gate) before it is mixed or written.
func (l *layout) open(ctx context.Context, k int) (dsp.Source, func(), error) {
	st, err := dsp.OpenTrack(ctx, dsp.AutoDecoder{}, l.tracks[k].Ref, l.rate)
	if err != nil {
		return nil, nil, err
	}
	var src dsp.Source = &padSource{src: st, total: l.frames}
	if t := l.tracks[k]; t.Gate {
		g, err := newGateSource(src, t.Owned)
		if err != nil {
			st.Close()
			return nil, nil, fmt.Errorf("track %d (%s): %w", k, t.Ref, err)
		}
		src = g
	}
	return src, func() { st.Close() }, nil
}

// gains returns the linear gain of each track in the mix, which brings
// the loudness of its kept audio (its analysis's, as it sounds in the
// mix's channels) to the loudest track's, by maxTrackGainDb at most; a
// track with no measurable loudness keeps its level. loud is each
// track's loudness in the mix before the gain (LUFS).
func (l *layout) gains(keep []dsp.Range) (gains, loud []float64) {
	gains, loud = make([]float64, len(l.tracks)), make([]float64, len(l.tracks))
	ref := math.Inf(-1)
	for i, t := range l.tracks {
		loud[i] = t.Analysis.LoudnessOf(keep)
		if t.Analysis.Input.Channels == 1 && l.channels > 1 {
			loud[i] += 10 * math.Log10(float64(l.channels)) // the same signal in every channel
		}
		if !math.IsInf(loud[i], 0) && !math.IsNaN(loud[i]) {
			ref = max(ref, loud[i])
		}
	}
	for i, v := range loud {
		gains[i] = 1
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			gains[i] = math.Pow(10, min(ref-v, maxTrackGainDb)/20)
		}
	}
	return gains, loud
}

// RenderTracks writes the mix of the tracks of a recording cut by plan p
// to the file out, as Render writes one input: every track decoded at the
// highest of their rates, padded with silence to the longest, cut alike,
// brought to the same loudness (the loudness of its kept audio, from its
// analysis; Result.TrackLoudness and TrackGainDb), summed, then
// normalized as o says, measured on the mix. An mp4 export cuts the first
// track's video. Tracks whose channel counts are neither 1 nor one count
// are refused.
func RenderTracks(ctx context.Context, tracks []Track, p *plan.Plan, o Options, out string, progress dsp.Progress) (res *Result, err error) {
	if out == "" {
		return nil, fmt.Errorf("%w: render: no output path", plan.ErrInvalidParams)
	}
	return renderMix(ctx, tracks, p, o, progress, func(src source, a *dsp.Analysis) (*Result, error) {
		return renderFile(ctx, src, a, p, o, out, progress)
	})
}

// RenderTracksTo writes the mix RenderTracks writes to w, front to back,
// in the layouts RenderTo writes.
func RenderTracksTo(ctx context.Context, tracks []Track, p *plan.Plan, o Options, w io.Writer, progress dsp.Progress) (*Result, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: render: nil writer", plan.ErrInvalidParams)
	}
	return renderMix(ctx, tracks, p, o, progress, func(src source, a *dsp.Analysis) (*Result, error) {
		cw := &countingWriter{w: w}
		res, err := render(ctx, src, a, p, o, output{w: cw, stream: true}, progress)
		if err != nil {
			return nil, err
		}
		res.Size = cw.n
		return res, nil
	})
}

// renderMix checks the tracks and the plan, and renders their mix with do.
func renderMix(ctx context.Context, tracks []Track, p *plan.Plan, o Options, progress dsp.Progress, do func(source, *dsp.Analysis) (*Result, error)) (*Result, error) {
	l, err := newLayout(tracks)
	if err != nil {
		return nil, err
	}
	a := l.analysis(0, l.channels)
	if err := checkInput(a, p, o); err != nil {
		return nil, err
	}
	gains, loud := l.gains(p.Keep)
	open := func(ctx context.Context) (dsp.Source, func(), error) {
		m := &mixSource{f: dsp.Format{SampleRate: l.rate, Channels: l.channels}, total: l.frames}
		closeAll := func() {
			for _, c := range m.closers {
				c()
			}
		}
		for k := range tracks {
			src, closeSrc, err := l.open(ctx, k)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			m.srcs = append(m.srcs, src)
			m.closers = append(m.closers, closeSrc)
			m.gains = append(m.gains, float32(gains[k]))
		}
		return m, closeAll, nil
	}
	res, err := do(source{path: tracks[0].Ref.Path, open: open, mixed: true}, a)
	if err != nil {
		return nil, err
	}
	res.TrackLoudness = loud
	for _, g := range gains {
		res.TrackGainDb = append(res.TrackGainDb, 20*math.Log10(g))
	}
	return res, nil
}

// RenderSplit writes each track of a recording cut by plan p to its own
// file, outs[k] for track k, as Render writes one input: every track at
// the highest of the tracks' rates and padded with silence to the longest,
// so that the files are of one length and cut at the same samples, and
// each normalized on its own as o says. Progress reports the fraction of
// all the files written.
func RenderSplit(ctx context.Context, tracks []Track, p *plan.Plan, o Options, outs []string, progress dsp.Progress) ([]*Result, error) {
	l, err := newLayout(tracks)
	if err != nil {
		return nil, err
	}
	if len(outs) != len(tracks) {
		return nil, fmt.Errorf("%w: render: %d output paths for %d tracks", plan.ErrInvalidParams, len(outs), len(tracks))
	}
	seen := map[string]int{}
	for k, out := range outs {
		if out == "" {
			return nil, fmt.Errorf("%w: render: no output path for track %d", plan.ErrInvalidParams, k)
		}
		if j, ok := seen[filepath.Clean(out)]; ok {
			return nil, fmt.Errorf("%w: render: tracks %d and %d both written to %s", plan.ErrInvalidParams, j, k, out)
		}
		seen[filepath.Clean(out)] = k
		if err := checkInput(l.analysis(k, tracks[k].Analysis.Input.Channels), p, o); err != nil {
			return nil, fmt.Errorf("track %d (%s): %w", k, tracks[k].Ref, err)
		}
	}
	progress = progress.Rising()
	var results []*Result
	for k := range tracks {
		var pk dsp.Progress
		if progress != nil {
			pk = func(f float64) { progress((float64(k) + f) / float64(len(tracks))) }
		}
		src := source{path: tracks[k].Ref.Path, open: func(ctx context.Context) (dsp.Source, func(), error) { return l.open(ctx, k) }}
		res, err := renderFile(ctx, src, l.analysis(k, tracks[k].Analysis.Input.Channels), p, o, outs[k], pk)
		if err != nil {
			return results, fmt.Errorf("track %d (%s): %w", k, tracks[k].Ref, err)
		}
		results = append(results, res)
	}
	return results, nil
}

// RenderTrack writes track k of the recording alone, cut by plan p, to
// the file out: the file RenderSplit writes for it (decoded at the
// highest of the tracks' rates, padded to the longest, gated as the track
// says), without rendering the others.
func RenderTrack(ctx context.Context, tracks []Track, k int, p *plan.Plan, o Options, out string, progress dsp.Progress) (*Result, error) {
	l, err := newLayout(tracks)
	if err != nil {
		return nil, err
	}
	if k < 0 || k >= len(tracks) {
		return nil, fmt.Errorf("%w: render: track %d of %d", plan.ErrInvalidParams, k, len(tracks))
	}
	if out == "" {
		return nil, fmt.Errorf("%w: render: no output path for track %d", plan.ErrInvalidParams, k)
	}
	a := l.analysis(k, tracks[k].Analysis.Input.Channels)
	if err := checkInput(a, p, o); err != nil {
		return nil, fmt.Errorf("track %d (%s): %w", k, tracks[k].Ref, err)
	}
	src := source{path: tracks[k].Ref.Path, open: func(ctx context.Context) (dsp.Source, func(), error) { return l.open(ctx, k) }}
	res, err := renderFile(ctx, src, a, p, o, out, progress)
	if err != nil {
		return nil, fmt.Errorf("track %d (%s): %w", k, tracks[k].Ref, err)
	}
	return res, nil
}

// SplitNames returns the file names RenderSplit may write the tracks to
// next to out: out's stem, "-", the track's number from 1 and out's
// extension ("show.mp3": "show-1.mp3", "show-2.mp3").
func SplitNames(out string, n int) []string {
	ext := filepath.Ext(out)
	stem := strings.TrimSuffix(out, ext)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d%s", stem, i+1, ext)
	}
	return names
}

// padSource is src followed by silence up to total frames, and no
// further: a track shorter than the recording's longest is padded, a
// longer one (by a resampler's rounding) trimmed.
type padSource struct {
	src   dsp.Source
	total int64
	pos   int64
	eof   bool
}

func (s *padSource) Format() dsp.Format { return s.src.Format() }

func (s *padSource) Read(p []float32) (int, error) {
	ch := s.src.Format().Channels
	n := min(int64(len(p)/ch), s.total-s.pos)
	if n <= 0 {
		return 0, io.EOF
	}
	p = p[:n*int64(ch)]
	if !s.eof {
		k, err := s.src.Read(p)
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			return k, err
		}
		if k > 0 || !s.eof {
			s.pos += int64(k / ch)
			return k, nil
		}
	}
	clear(p)
	s.pos += n
	return len(p), nil
}

// Skip passes over n frames: the track's while it lasts, then silence.
func (s *padSource) Skip(n int64) (int64, error) {
	n = min(n, s.total-s.pos)
	if n <= 0 {
		return 0, nil
	}
	var got int64
	if !s.eof {
		var err error
		if got, err = dsp.Skip(s.src, n); err != nil {
			return got, err
		}
		if got < n {
			s.eof = true
		}
	}
	s.pos += n
	return n, nil
}

// mixSource sums its sources, each times its gain, frame by frame: a
// mono source into every channel, one of f.Channels channel by channel.
// Every source is read to the same frame (each is a padSource of total
// frames), so that the tracks stay sample-aligned.
type mixSource struct {
	f       dsp.Format
	srcs    []dsp.Source
	gains   []float32
	closers []func()
	total   int64
	pos     int64
	buf     []float32
}

func (m *mixSource) Format() dsp.Format { return m.f }

func (m *mixSource) Read(p []float32) (int, error) {
	ch := m.f.Channels
	n := min(len(p)/ch, stageBufFrames, int(min(m.total-m.pos, math.MaxInt32)))
	if n <= 0 {
		return 0, io.EOF
	}
	out := p[:n*ch]
	clear(out)
	if cap(m.buf) < n*ch {
		m.buf = make([]float32, n*ch)
	}
	for k, src := range m.srcs {
		sc := src.Format().Channels
		b := m.buf[:n*sc]
		if err := readFull(src, b); err != nil {
			return 0, err
		}
		g := m.gains[k]
		if sc == ch {
			for i, v := range b {
				out[i] += g * v
			}
			continue
		}
		for f := range n { // mono to every channel
			v := g * b[f]
			for c := range ch {
				out[f*ch+c] += v
			}
		}
	}
	m.pos += int64(n)
	return n * ch, nil
}

// Skip passes over n frames of every source.
func (m *mixSource) Skip(n int64) (int64, error) {
	n = min(n, m.total-m.pos)
	for _, src := range m.srcs {
		if _, err := dsp.Skip(src, n); err != nil {
			return 0, err
		}
	}
	m.pos += max(n, 0)
	return max(n, 0), nil
}

// readFull fills b from src, with silence past its end.
func readFull(src dsp.Source, b []float32) error {
	for len(b) > 0 {
		k, err := src.Read(b)
		b = b[k:]
		if err == io.EOF {
			clear(b)
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}
