package dsp

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocut-dev/autocut/internal/halves"
)

// An MP3 file is analysed in two halves side by side: one decoder bounds
// the whole analysis (ffmpeg decodes MP3 on one core, and moving its
// samples through a pipe costs about half as much again; go-mp3 is a
// dozen times slower still). The first half is the stream Analyze was
// given, read up to the split point; a second decoder (another ffmpeg, or
// another go-mp3 for NativeDecoder's stream) decodes the file from an MP3
// frame a little before the split point to the end, and a second analyzer
// measures it. MP3 frames are independent but for the bit reservoir and
// the filterbank's overlap, so the second decoder's samples equal the
// first's after a few frames: both halves decode splitCheck frames past
// the split point, and those must be equal to the bit, or the halves are
// dropped and the file is analysed again in one piece.
//
// The second analyzer starts splitWarmSec before the split point, so that
// its filters, loudness windows and the voice detector's background
// statistics have settled; its measures before the split point are
// dropped. Levels, peaks, blocks and loudness are then the same as in one
// piece (the K-weighting filters forget their start within a second, far
// under rounding); voice scores after the split point may differ a little
// where the voice network's state and the detector's slowly forgetting
// statistics of the bed differ (TestSplitMP3MatchesOnePiece: 74 of 15120
// scores, 4 to 10 of them across 0.5; every preset's plan the same in
// plan's TestSplitMP3SamePlans).
const (
	splitMinSec  = 60   // shorter files are analysed in one piece
	splitWarmSec = 30   // the second half's head start before the split point
	splitCheck   = 2048 // frames past the split point both halves decode and compare
	splitLead    = 10   // MP3 frames the second decoder decodes before its head start
	splitVoice   = 200  // 10 ms frames before the split point whose voice class the second half gives
	splitHeadMax = 16 << 20
)

// mp3Split says where an MP3 file is cut for analysis in two halves.
type mp3Split struct {
	bStart int64 // byte offset of the MP3 frame the second decoder starts at
	bFirst int64 // sample frame (of the whole file's decoded output) of its first sample
	at     int64 // the split point, in sample frames: a whole second
	warm   int64 // sample frames the second analyzer measures before at
	total  int64 // sample frames of the whole file (from its LAME tag)
}

// planMP3Split reads the MP3 file at path and says where to cut it, or
// false when it should be analysed in one piece: shorter than
// splitMinSec, without a LAME tag (whose encoder delay and length place
// the second half's samples exactly), not in format f, or with anything
// but consistent Layer III frames, as many as the Info frame says, from
// the first to the last.
func planMP3Split(path string, f Format) (mp3Split, bool) {
	file, err := os.Open(path)
	if err != nil {
		return mp3Split{}, false
	}
	defer file.Close()
	head := make([]byte, 10)
	if _, err := io.ReadFull(file, head); err != nil {
		return mp3Split{}, false
	}
	n := 64 << 10
	if string(head[:3]) == "ID3" {
		n += 20 + (int(head[6]&0x7f)<<21 | int(head[7]&0x7f)<<14 | int(head[8]&0x7f)<<7 | int(head[9]&0x7f))
	}
	head = make([]byte, min(n, splitHeadMax))
	k, err := file.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return mp3Split{}, false
	}
	h, err := parseMP3Header(head[:k])
	if err != nil || !h.hasInfoFrame || !h.lameTag || h.frames <= 0 ||
		h.sampleRate != f.SampleRate || h.channels != f.Channels {
		return mp3Split{}, false
	}
	total, _ := mp3GaplessFrames(head[:k])
	rate, spf := int64(h.sampleRate), int64(h.samplesPerFrm)
	skip := int64(h.encDelay + mp3Decoder529) // what ffmpeg drops from the first audio frame on
	if total < splitMinSec*rate {
		return mp3Split{}, false
	}
	sp := mp3Split{total: total, warm: splitWarmSec * rate}
	sp.at = (h.frames/2*spf - skip) / rate * rate
	first := (sp.at-sp.warm+skip)/spf - splitLead // the second decoder's first audio frame
	if sp.at-sp.warm < rate || first < 1 {
		return mp3Split{}, false
	}
	sp.bFirst = first*spf - skip
	// Walk the frames from the Info frame to the end: the second decoder
	// starts at frame first, and the frames must be as many as the Info
	// frame says (the second decoder stops there, where one decoder of the
	// whole file would not if the count lied).
	br := bufio.NewReaderSize(io.NewSectionReader(file, int64(h.offset), 1<<62), 1<<16)
	off := int64(h.offset)
	var hdr [4]byte
	idx := int64(-1) // frame -1 is the Info frame
	for ; ; idx++ {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			break
		}
		v := binary.BigEndian.Uint32(hdr[:])
		size, ok := mp3FrameSize(v, h)
		if !ok {
			if idx < first || !mp3Trailer(hdr[:]) {
				return mp3Split{}, false
			}
			break
		}
		if idx == first {
			sp.bStart = off
		}
		if _, err := br.Discard(size - 4); err != nil {
			if idx+1 < h.frames {
				return mp3Split{}, false
			}
			idx++ // the last frame is cut short: decoders still decode it
			break
		}
		off += int64(size)
	}
	if idx != h.frames || sp.bStart == 0 {
		return mp3Split{}, false
	}
	return sp, true
}

// mp3Trailer reports whether b (4 bytes after the last frame) starts a
// tag that may end an MP3 file: ID3v1 ("TAG"), APE ("APETAGEX") or
// Lyrics3 ("LYRICS").
func mp3Trailer(b []byte) bool {
	t := string(b)
	return strings.HasPrefix(t, "TAG") || t == "APET" || t == "LYRI"
}

// mp3FrameSize returns the length in bytes of the frame whose header is
// v, or false when v is no Layer III frame of the stream h describes.
func mp3FrameSize(v uint32, h mp3Header) (int, bool) {
	// MP3FrameLen first: it refuses the reserved sample rate index (3),
	// which mp3Rates has no entry for.
	size, _, ok := MP3FrameLen(v)
	if !ok || int(v>>19)&3 != h.version || mp3Rates[h.version][(v>>10)&3] != h.sampleRate {
		return 0, false
	}
	return size, true
}

// MP3FrameLen returns the length in bytes and the samples per channel of
// the MPEG audio Layer III frame whose 4-byte header (big-endian) is v, or
// ok false when v is not the header of one.
func MP3FrameLen(v uint32) (size, samples int, ok bool) {
	if !isMP3FrameHeader(v) {
		return 0, 0, false
	}
	version := int(v>>19) & 3
	rate := mp3Rates[version][(v>>10)&3]
	pad := int(v>>9) & 1
	if version == 3 {
		return 144*mp3Bitrates[0][(v>>12)&0xF]*1000/rate + pad, 1152, true
	}
	return 72*mp3Bitrates[1][(v>>12)&0xF]*1000/rate + pad, 576, true
}

// splitSource is a Source that may hide the stream of an MP3 file under
// it (a file's Stream, a length limit).
type splitSource interface {
	// splitStream returns the stream under the source and the most frames
	// the source will yield (0: all).
	splitStream() (splitter, int64)
}

// splitter is a decoder's stream that analyzeSplit may cut in two: ffmpeg's
// or go-mp3's of an MP3 file.
type splitter interface {
	Source
	// splitFile returns the file the stream decodes when nothing has been
	// read from it yet, else "".
	splitFile() string
	// decodeFrom starts a second decoder of the file from its byte off,
	// yielding at most limit frames; close ends it.
	decodeFrom(ctx context.Context, off, limit int64) (src Source, close func(), err error)
	// again starts a decoder of the whole file (when the halves do not
	// line up).
	again(ctx context.Context) (src Source, close func(), err error)
	// release ends the stream's decoding early: no more is read from it.
	release()
	// plan says where to cut the file, in format f (false: in one piece).
	plan(f Format) (mp3Split, bool)
}

func (s *ffmpegStream) plan(f Format) (mp3Split, bool) { return planMP3Split(s.splitFile(), f) }
func (s *mp3Stream) plan(f Format) (mp3Split, bool)    { return planMP3Split(s.splitFile(), f) }

func (s *ffmpegStream) splitStream() (splitter, int64) { return s, 0 }
func (s *mp3Stream) splitStream() (splitter, int64)    { return s, 0 }

func (s *fileStream) splitStream() (splitter, int64) {
	if ss, ok := s.Stream.(splitSource); ok {
		return ss.splitStream()
	}
	if w := s.wav(); w != nil {
		return &wavSplit{fileStream: s, w: w}, 0
	}
	return nil, 0
}

func (l *limitSource) splitStream() (splitter, int64) {
	if ss, ok := l.Source.(splitSource); ok {
		st, _ := ss.splitStream()
		return st, l.max
	}
	return nil, 0
}

func (s *ffmpegStream) splitFile() string {
	if s.frames != 0 || s.done {
		return ""
	}
	return s.path
}

func (s *ffmpegStream) decodeFrom(ctx context.Context, off, limit int64) (Source, func(), error) {
	abs, err := filepath.Abs(s.path)
	if err != nil || strings.ContainsAny(abs, ",:\n") {
		return nil, nil, fmt.Errorf("dsp: %q: no subfile URL", s.path)
	}
	b, err := s.dec.start(ctx, fmt.Sprintf("subfile,,start,%d,end,0,,:file:%s", off, abs), nil, "mp3", "")
	if err != nil {
		return nil, nil, err
	}
	b.limit = limit
	return &lateStream{s: b, info: s.info, format: s.format}, func() { b.Close() }, nil
}

// lateStream is the second decoder's stream, whose WAV header is read at
// its first Read rather than when it starts: the first half's analysis
// does not wait for the second ffmpeg to start up (about 0.1 s). Its
// Format is the first stream's; a header that says otherwise fails the
// first Read, and the file is analysed in one piece.
type lateStream struct {
	s      *ffmpegStream
	info   Info
	format Format
	ready  bool
}

func (l *lateStream) Format() Format { return l.format }

func (l *lateStream) Read(p []float32) (int, error) {
	if !l.ready {
		if _, err := l.s.ready(l.info); err != nil {
			return 0, err
		}
		if l.s.format != l.format {
			return 0, fmt.Errorf("dsp: the second decoder gives %+v, the first %+v", l.s.format, l.format)
		}
		l.ready = true
	}
	return l.s.Read(p)
}

func (s *ffmpegStream) again(ctx context.Context) (Source, func(), error) {
	return s.restart(ctx, s.path, "", 0)
}

// restart starts another ffmpeg with s's decoder on input (read as
// inFormat unless ""), yielding at most limit frames (0: all).
func (s *ffmpegStream) restart(ctx context.Context, input, inFormat string, limit int64) (Source, func(), error) {
	b, err := s.dec.start(ctx, input, nil, inFormat, "")
	if err != nil {
		return nil, nil, err
	}
	if _, err := b.ready(s.info); err != nil {
		b.Close()
		return nil, nil, err
	}
	b.limit = limit
	return b, func() { b.Close() }, nil
}

func (s *ffmpegStream) release() { s.Close() }

func (s *mp3Stream) splitFile() string {
	if s.touched || s.done {
		return ""
	}
	return s.path
}

func (s *mp3Stream) decodeFrom(ctx context.Context, off, limit int64) (Source, func(), error) {
	return s.reopen(off, limit)
}

func (s *mp3Stream) again(ctx context.Context) (Source, func(), error) {
	return s.reopen(0, -1)
}

// reopen starts another go-mp3 on s's file from byte off, yielding at
// most limit frames (-1: as many as the header there says).
func (s *mp3Stream) reopen(off, limit int64) (Source, func(), error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, nil, err
	}
	b, err := newMP3Stream(io.NewSectionReader(f, off, 1<<62))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	b.closer = f
	if limit >= 0 {
		b.left = limit
	}
	return b, func() { b.Close() }, nil
}

// release frees the decoder's buffer; the caller still closes the stream.
func (s *mp3Stream) release() {
	s.done = true
	if s.buf != nil {
		mp3BufPool.Put(s.buf)
		s.buf = nil
	}
}

// headSource yields the first left frames of src, then io.EOF.
type headSource struct {
	src  Source
	left int64
}

func (h *headSource) Format() Format { return h.src.Format() }

func (h *headSource) Read(p []float32) (int, error) {
	if h.left <= 0 {
		return 0, io.EOF
	}
	ch := h.src.Format().Channels
	if int64(len(p)/ch) > h.left {
		p = p[:h.left*int64(ch)]
	}
	n, err := h.src.Read(p)
	h.left -= int64(n / ch)
	if err == nil && h.left <= 0 {
		err = io.EOF
	}
	return n, err
}

// tailSource drops the first skip frames of src and yields the rest,
// keeping a copy of the frames it yields from keepAt on in keep (until
// keep is full).
type tailSource struct {
	src    Source
	skip   int64
	pos    int64 // frames yielded
	keepAt int64
	keep   []float32
	kept   int // samples in keep
}

func (t *tailSource) Format() Format { return t.src.Format() }

func (t *tailSource) Read(p []float32) (int, error) {
	ch := t.src.Format().Channels
	for t.skip > 0 {
		q := p[:min(int64(len(p)/ch), t.skip)*int64(ch)]
		n, err := t.src.Read(q)
		t.skip -= int64(n / ch)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
	}
	n, err := t.src.Read(p)
	if from := (t.keepAt - t.pos) * int64(ch); t.kept < len(t.keep) && from < int64(n) {
		from = max(from, 0)
		t.kept += copy(t.keep[t.kept:], p[from:n])
	}
	t.pos += int64(n / ch)
	return n, err
}

// analyzeSplit analyses src in two halves side by side when it is a
// decoder's stream of an MP3 file that planMP3Split cuts, not yet read;
// ok is false when it is not (or the second decoder did not start), and
// the caller analyses src in one piece.
func analyzeSplit(ctx context.Context, src Source, info Info, progress Progress) (an *Analysis, ok bool, err error) {
	ss, isSplit := src.(splitSource)
	if !isSplit {
		return nil, false, nil
	}
	st, limit := ss.splitStream()
	if st == nil || st.splitFile() == "" {
		return nil, false, nil
	}
	sp, planned := st.plan(st.Format())
	if !planned || limit > 0 && sp.total > limit {
		return nil, false, nil
	}
	return analyzeSplitAs(ctx, st, sp, info, progress)
}

// analyzeSplitAs analyses st in the two halves sp says, or, when they do
// not line up, in one piece again (ok is false when st was not read: the
// second decoder did not start).
func analyzeSplitAs(ctx context.Context, st splitter, sp mp3Split, info Info, progress Progress) (an *Analysis, ok bool, err error) {
	progress = progress.Rising() // (the fallback starts again from 0)
	an, matched, err := analyzeHalves(ctx, st, sp, info, progress)
	if matched || err != nil {
		return an, true, err
	}
	if st.splitFile() != "" {
		return nil, false, nil // the second decoder did not start: st is untouched
	}
	// The halves did not line up: the file again, in one piece.
	s2, closeS2, err := st.again(ctx)
	if err != nil {
		return nil, true, err
	}
	defer closeS2()
	an, err = analyzeWhole(ctx, s2, info, float64(sp.total), progress)
	return an, true, err
}

// analyzeHalves measures st up to sp.at and, side by side, a second
// decoder's output from sp.bStart, and joins the two. matched is false
// when the halves' samples past the split point differ.
func analyzeHalves(ctx context.Context, st splitter, sp mp3Split, info Info, progress Progress) (*Analysis, bool, error) {
	bs, closeB, err := st.decodeFrom(ctx, sp.bStart, sp.total-sp.bFirst)
	if err != nil {
		return nil, false, nil
	}
	defer closeB()
	f := st.Format()
	if bs.Format() != f {
		return nil, false, nil
	}
	ch := int64(f.Channels)

	pa, pb := halves.Progress(progress, float64(sp.at)/float64(sp.total))

	a, err := newAnalyzer(f)
	if err != nil {
		return nil, false, err
	}
	b, _ := newAnalyzer(f)
	a.reserve(sp.at)
	b.reserve(sp.total - sp.at + sp.warm)
	check := make([]float32, splitCheck*ch)
	tail := &tailSource{src: bs, skip: sp.at - sp.warm - sp.bFirst, keepAt: sp.warm, keep: make([]float32, splitCheck*ch)}

	// Either half failing cancels the other: a second half that fails
	// (its decoder, say) leaves nothing to join, and the file is analysed
	// again in one piece.
	var got int
	err = halves.Run(ctx, func(ctx context.Context) error {
		defer st.release() // the rest of the first decoder's output is not needed
		if err := a.run(ctx, &headSource{src: st, left: sp.at}, float64(sp.at), pa); err != nil {
			return err
		}
		if a.pos == sp.at {
			got, _ = fill(st, check, int(ch))
		}
		return nil
	}, func(ctx context.Context) error {
		if err := b.warmUp(tail, sp.warm); err != nil {
			return err
		}
		return b.run(ctx, tail, float64(sp.total-sp.at), pb)
	})
	var he *halves.Error
	switch {
	case ctx.Err() != nil:
		return nil, false, fmt.Errorf("dsp: analysis cancelled: %w", ctx.Err())
	case errors.As(err, &he) && he.Half == 0:
		return nil, false, he.Err
	case err != nil || a.pos != sp.at || got != len(check) || tail.kept != len(check):
		return nil, false, nil
	}
	for i := range check {
		if check[i] != tail.keep[i] {
			return nil, false, nil
		}
	}
	if progress != nil {
		progress(1)
	}
	return joinHalves(a, b, sp, info), true, nil
}

// warmUp measures the first frames of src (the second half's head start)
// and then forgets the peaks and loudness maxima they gave, which the
// filters' start may have disturbed and the first half has measured.
func (a *analyzer) warmUp(src Source, frames int64) error {
	ch := a.ch
	buf := make([]float32, min(frames, batchFrames)*int64(ch))
	for left := frames; left > 0; {
		p := buf[:min(left, batchFrames)*int64(ch)]
		n, err := fill(src, p, ch)
		if n > 0 {
			if werr := a.Write(p[:n]); werr != nil {
				return werr
			}
		}
		left -= int64(n / ch)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	a.samplePeak, a.mMaxZ, a.sMaxZ = 0, 0, 0
	for _, l := range a.lanes {
		l.tp.max = 0
	}
	return nil
}

// joinHalves joins the measures of the first half a (up to sp.at, not
// finished) and the second b (from sp.at - sp.warm to the end) into one
// Analysis: a's frames and blocks before the split point, b's after it,
// and b's voice classes from splitVoice frames before it (a's last
// classes lack the frames after them).
func joinHalves(a, b *analyzer, sp mp3Split, info Info) *Analysis {
	b.finish()
	split := int(sp.at * 100 / b.rate)   // 10 ms frames before the split point
	warm := int(sp.warm * 100 / b.rate)  // 10 ms frames of b's head start
	voice := max(split-splitVoice, 0)    // first frame whose class b gives
	voice = min(voice, len(a.voice.out)) // (a has classified it)
	bVoice := voice - (split - warm)     // its index in b's classes
	join := func(x, y []float32, n, m int) []float32 {
		out := make([]float32, 0, n+len(y)-m)
		return append(append(out, x[:n]...), y[m:]...)
	}
	b.rms = join(a.rms, b.rms, split, warm)
	b.peakEnv = join(a.peakEnv, b.peakEnv, split, warm)
	out := make([]uint8, 0, voice+len(b.voice.out)-bVoice)
	b.voice.out = append(append(out, a.voice.out[:voice]...), b.voice.out[bVoice:]...)
	b.voice.heard = min(a.voice.heard+b.voice.heard, voiceProbeHeard)
	// The stereo sums of the whole input (its polarity; b's head start
	// counts twice: splitWarmSec of a file of splitMinSec or more).
	b.voice.allMid += a.voice.allMid
	b.voice.allDif += a.voice.allDif
	blocks := make([]float64, 0, split/10+len(b.blocks)-warm/10)
	b.blocks = append(append(blocks, a.blocks[:split/10]...), b.blocks[warm/10:]...)
	b.samplePeak = max(a.samplePeak, b.samplePeak)
	b.mMaxZ, b.sMaxZ = max(a.mMaxZ, b.mMaxZ), max(a.sMaxZ, b.sMaxZ)
	for c, l := range b.lanes {
		l.tp.max = max(l.tp.max, a.lanes[c].tp.max)
	}
	b.pos += sp.at - sp.warm
	return b.analysis(info)
}
