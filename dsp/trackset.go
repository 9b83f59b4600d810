package dsp

import (
	"context"
	"fmt"
)

// OneDecode reports whether the tracks refs can be measured in one decode
// of their file (AnalyzeTrackSet does so): two or more channels of one
// file's first audio stream, each named once. Other sets (several files,
// several streams) are decoded a track at a time.
func OneDecode(refs []TrackRef) bool {
	if len(refs) < 2 || len(refs) > MaxTracks {
		return false
	}
	seen := make(map[int]bool, len(refs))
	for _, r := range refs {
		if r.Path != refs[0].Path || r.Stream != 0 || r.Channel < 0 || seen[r.Channel] {
			return false
		}
		seen[r.Channel] = true
	}
	return true
}

// AnalyzeTrackSet measures every track of refs (at rate when > 0, as
// OpenTrack), in order, as AnalyzeTrack measures each alone (the same
// Analysis). When OneDecode(refs), the file is decoded once and its
// channels analysed side by side (AnalyzeTracks); otherwise each track is
// decoded and analysed in turn. progress receives the fraction of the
// work done over all tracks.
func AnalyzeTrackSet(ctx context.Context, dec AutoDecoder, refs []TrackRef, rate int, progress Progress) ([]*Analysis, error) {
	if !OneDecode(refs) {
		as := make([]*Analysis, len(refs))
		for k, r := range refs {
			var pk Progress
			if progress != nil {
				pk = func(f float64) { progress((float64(k) + f) / float64(len(refs))) }
			}
			a, err := AnalyzeTrack(ctx, dec, r, rate, pk)
			if err != nil {
				return nil, err
			}
			as[k] = a
		}
		return as, nil
	}
	whole := TrackRef{Path: refs[0].Path, Channel: -1}
	st, err := OpenTrack(ctx, dec, whole, rate)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	pick := make([]int, len(refs))
	for k, r := range refs {
		if ch := st.Format().Channels; r.Channel >= ch {
			return nil, fmt.Errorf("%w: %s has %d channels, no channel %d (channels count from 0)", ErrNoTrack, whole, ch, r.Channel)
		}
		pick[k] = r.Channel
	}
	info := st.Info()
	var src Source = st
	if !identity(pick, st.Format().Channels) {
		src = &pickSource{src: st, ch: st.Format().Channels, pick: pick}
	}
	as, err := AnalyzeTracks(ctx, src, info, progress)
	if err != nil {
		return nil, fmt.Errorf("tracks of %s: %w", whole, err)
	}
	for _, a := range as {
		a.Input.Name = info.Name // as the track's own stream names it (channelStream)
	}
	return as, nil
}

// identity reports whether pick is 0, 1, ... n-1.
func identity(pick []int, n int) bool {
	if len(pick) != n {
		return false
	}
	for i, c := range pick {
		if c != i {
			return false
		}
	}
	return true
}

// pickSource is the channels pick of src, in that order.
type pickSource struct {
	src  Source
	ch   int // channels of src
	pick []int
	buf  []float32
}

func (p *pickSource) Format() Format {
	return Format{SampleRate: p.src.Format().SampleRate, Channels: len(p.pick)}
}

func (p *pickSource) Read(out []float32) (int, error) {
	frames := len(out) / len(p.pick)
	if frames == 0 {
		return 0, nil
	}
	if need := frames * p.ch; cap(p.buf) < need {
		p.buf = make([]float32, need)
	}
	n, err := p.src.Read(p.buf[:frames*p.ch])
	got := n / p.ch
	for i := range got {
		in := p.buf[i*p.ch : (i+1)*p.ch]
		o := out[i*len(p.pick) : (i+1)*len(p.pick)]
		for j, c := range p.pick {
			o[j] = in[c]
		}
	}
	return got * len(p.pick), err
}
