package dsp

import (
	"context"
	"fmt"
	"os"
)

// A long WAV file is analysed in two halves side by side too (see
// analyzeSplit): the second half's reader starts on a file of its own,
// passing over the samples before its head start without converting them
// (WAVReader.Skip). The halves' samples are the file's, so they always
// line up; voice scores after the split point may differ a little, as for
// MP3. Files under wavSplitMinSec are analysed in one piece: their
// analysis is short, and the head start would be a large share of it.
const wavSplitMinSec = 300

// wavSplit is a WAV file's stream that analyzeSplit may cut in two.
type wavSplit struct {
	*fileStream
	w *WAVReader
}

// wav returns the WAVReader under s when s reads a WAV file whose length
// the header tells and the file can hold.
func (s *fileStream) wav() *WAVReader {
	n, ok := s.Stream.(*namedStream)
	if !ok {
		return nil
	}
	w, ok := n.Stream.(*WAVReader)
	if !ok || w.unknown {
		return nil
	}
	if st, err := s.f.Stat(); err != nil || !st.Mode().IsRegular() || claimsMoreThan(w.info, st.Size()) {
		return nil
	}
	return w
}

func (s *wavSplit) splitFile() string {
	if s.w.frames != 0 || s.w.finished {
		return ""
	}
	return s.f.Name()
}

// plan cuts the file at a whole second near its middle, the second half's
// reader starting splitWarmSec earlier.
func (s *wavSplit) plan(f Format) (mp3Split, bool) {
	rate := int64(s.w.format.SampleRate)
	total := s.w.info.Frames
	if s.splitFile() == "" || f != s.w.format || rate <= 0 || total < wavSplitMinSec*rate {
		return mp3Split{}, false
	}
	sp := mp3Split{total: total, warm: splitWarmSec * rate}
	sp.at = total / 2 / rate * rate
	sp.bFirst = sp.at - sp.warm
	sp.bStart = sp.bFirst
	return sp, sp.bFirst >= rate
}

// decodeFrom reads the file from frame off (sp.bStart), at most limit frames.
func (s *wavSplit) decodeFrom(ctx context.Context, off, limit int64) (Source, func(), error) {
	w, closeW, err := s.reopen()
	if err != nil {
		return nil, nil, err
	}
	if got, err := w.Skip(off); err != nil || got != off {
		closeW()
		return nil, nil, fmt.Errorf("dsp: %s ends before frame %d: %v", s.f.Name(), off, err)
	}
	return &headSource{src: w, left: limit}, closeW, nil
}

func (s *wavSplit) again(ctx context.Context) (Source, func(), error) {
	return s.reopen()
}

// reopen reads the file again from its start.
func (s *wavSplit) reopen() (*WAVReader, func(), error) {
	f, err := os.Open(s.f.Name())
	if err != nil {
		return nil, nil, err
	}
	w, err := NewWAVReader(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return w, func() { f.Close() }, nil
}

// release: the first half's reader needs nothing stopped.
func (s *wavSplit) release() {}
