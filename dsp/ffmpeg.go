package dsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/autocut-dev/autocut/internal/proc"
	"github.com/autocut-dev/autocut/internal/tail"
)

// FFmpegDecoder decodes anything ffmpeg reads (m4a/AAC, FLAC, Ogg, Opus, mp4,
// mov, mkv, webm, ...) by piping one audio stream (the first unless Stream
// says) as f32le (never s16,
// which would clip overs) at its native rate and channel count. A video's
// audio is aligned to its first frame: a stream that starts later is
// preceded by silence, one that starts earlier loses what comes before, so
// that a time in the decoded audio is the same time in the picture.
type FFmpegDecoder struct {
	FFmpeg  string // path of ffmpeg; "" means "ffmpeg" on PATH
	FFprobe string // path of ffprobe; "" means "ffprobe" on PATH
	// Stream picks the input's audio stream to decode, counted among its
	// audio streams from 0 (the first, the default); one it does not have
	// is refused with ErrNoTrack.
	Stream int
	// SampleRate, when over 0, resamples the audio to that rate (ffmpeg's
	// resampler); 0 keeps the stream's own.
	SampleRate int
}

func (d FFmpegDecoder) ffmpeg() string  { return orDefault(d.FFmpeg, "ffmpeg") }
func (d FFmpegDecoder) ffprobe() string { return orDefault(d.FFprobe, "ffprobe") }

func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Available reports whether both ffmpeg and ffprobe can be found.
func (d FFmpegDecoder) Available() bool {
	_, e1 := exec.LookPath(d.ffmpeg())
	_, e2 := exec.LookPath(d.ffprobe())
	return e1 == nil && e2 == nil
}

type probeJSON struct {
	Streams []struct {
		CodecType     string            `json:"codec_type"`
		CodecName     string            `json:"codec_name"`
		CodecTag      string            `json:"codec_tag_string"`
		SampleRate    string            `json:"sample_rate"`
		Channels      int               `json:"channels"`
		BitsPerRaw    string            `json:"bits_per_raw_sample"`
		BitsPerSample int               `json:"bits_per_sample"`
		Width         int               `json:"width"`
		Height        int               `json:"height"`
		SideData      []probeSideData   `json:"side_data_list"`
		RFrameRate    string            `json:"r_frame_rate"`
		AvgFrameRate  string            `json:"avg_frame_rate"`
		NbFrames      string            `json:"nb_frames"`
		Duration      string            `json:"duration"`
		StartTime     string            `json:"start_time"`
		Tags          map[string]string `json:"tags"`
		Disposition   map[string]int    `json:"disposition"`
	} `json:"streams"`
	Format struct {
		Name      string            `json:"format_name"`
		Duration  string            `json:"duration"`
		StartTime string            `json:"start_time"`
		Tags      map[string]string `json:"tags"`
	} `json:"format"`
}

// probeSideData is one entry of a stream's side data (a display matrix
// carries the rotation a player applies, in degrees).
type probeSideData struct {
	Rotation float64 `json:"rotation"`
}

// Probe asks ffprobe what path holds: container, the audio stream Stream
// picks (at its own rate) and how many there are, video
// presence and exact frame rate, start timecode.
func (d FFmpegDecoder) Probe(ctx context.Context, path string) (Info, error) {
	if _, err := os.Stat(path); err != nil {
		return Info{}, err
	}
	info, _, err := d.probe(ctx, path, nil, filepath.Base(path))
	return info, err
}

// ffprobeHeadLen is how much of a stream ffprobe sees when the input is
// not a file: the headers of every container ffmpeg streams lie within it.
const ffprobeHeadLen = 1 << 20

// headDurationFormats are the containers whose header states the duration,
// so that ffprobe's duration from the first ffprobeHeadLen bytes is the
// real one (for the others it would estimate it from the bytes it saw).
var headDurationFormats = map[string]bool{"mp4": true, "matroska": true, "flac": true, "wav": true, "aiff": true}

// probeHead asks ffprobe what a stream holds from its first bytes. The
// duration is kept only where the container's header states it (0 means
// unknown until decoded); an MP3's comes from its Xing/LAME tag.
func (d FFmpegDecoder) probeHead(ctx context.Context, head []byte, name string) (Info, float64, error) {
	info, video, err := d.probe(ctx, "pipe:0", bytes.NewReader(head), name)
	if err != nil {
		return Info{}, 0, err
	}
	if !headDurationFormats[info.Format] {
		info.Duration = 0
		if sec, ok := MP3GaplessDuration(head); ok && info.Format == "mp3" {
			info.Duration = sec
		}
	}
	return info, video, nil
}

// probe runs ffprobe on input (a path, or "pipe:0" reading stdin). For a
// video it also returns when its first frame comes (seconds) on the
// timeline ffmpeg decodes on, which starts at the earliest stream: the time
// the decoded audio is aligned to (alignFilter); NaN for an input with no
// video.
func (d FFmpegDecoder) probe(ctx context.Context, input string, stdin io.Reader, name string) (Info, float64, error) {
	if _, err := exec.LookPath(d.ffprobe()); err != nil {
		return Info{}, 0, fmt.Errorf("%w (%v)", ErrFFmpegMissing, err)
	}
	cmd := proc.Command(ctx, d.ffprobe(), "-v", "error", "-show_streams", "-show_format", "-of", "json", input)
	cmd.Stdin = stdin
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return Info{}, 0, ctx.Err()
	}
	var pr probeJSON
	jerr := json.Unmarshal(out, &pr)
	switch {
	case err != nil && (stdin == nil || jerr != nil || len(pr.Streams) == 0):
		// (A probe of a stream's head may end in an error about the
		// truncation after it has described the streams: that is fine.)
		return Info{}, 0, fmt.Errorf("%w: ffprobe cannot read %s: %s", ErrUnsupportedFormat, name, tail.Lines(stderr.String(), 3))
	case jerr != nil:
		return Info{}, 0, fmt.Errorf("%w: ffprobe output: %v", ErrUnsupportedFormat, jerr)
	}
	info := Info{Name: name, Type: "audio", Format: containerName(pr.Format.Name), Frames: -1}
	info.Duration, _ = strconv.ParseFloat(pr.Format.Duration, 64)
	video := math.NaN()
	audio := -1
	for i, s := range pr.Streams {
		switch s.CodecType {
		case "audio":
			if info.AudioStreams == d.Stream {
				audio = i
			}
			info.AudioStreams++
		case "video":
			if s.Disposition["attached_pic"] == 1 {
				continue // cover art is not video
			}
			if info.Type != "video" {
				info.Type = "video"
				info.FrameRate = parseRational(s.RFrameRate)
				if avg := parseRational(s.AvgFrameRate); avg.Num > 0 && (info.FrameRate.Num == 0 || info.FrameRate.Float() > 2*avg.Float()) {
					info.FrameRate = avg
				}
				info.VideoFrames = videoFrames(s.NbFrames, s.Duration, s.Tags["DURATION"], info.FrameRate)
				video = startAfter(s.StartTime, pr.Format.StartTime)
				info.Width, info.Height = s.Width, s.Height
				if rotatedQuarter(s.Tags["rotate"], s.SideData) {
					info.Width, info.Height = s.Height, s.Width
				}
				if tc, ok := s.Tags["timecode"]; ok {
					info.StartTimecode = parseTimecode(tc, info.FrameRate)
				}
			}
		case "data":
			if s.CodecTag == "tmcd" {
				if tc, ok := s.Tags["timecode"]; ok && info.StartTimecode == 0 {
					info.StartTimecode = parseTimecode(tc, info.FrameRate)
				}
			}
		}
	}
	if tc, ok := pr.Format.Tags["timecode"]; ok && info.StartTimecode == 0 {
		info.StartTimecode = parseTimecode(tc, info.FrameRate)
	}
	if d.Stream < 0 || audio < 0 && info.AudioStreams > 0 {
		return Info{}, 0, fmt.Errorf("%w: %s has %d audio streams, no stream %d (streams count from 0)", ErrNoTrack, info.Name, info.AudioStreams, d.Stream)
	}
	if audio < 0 {
		return Info{}, 0, fmt.Errorf("%w: %s (%s) has no audio stream", ErrUnsupportedFormat, info.Name, info.Format)
	}
	a := pr.Streams[audio]
	if a.CodecName == "" || a.CodecName == "none" {
		// ffprobe describes a stream it has no decoder for (a WAV with
		// format tag 0 or 0 bits per sample): ffmpeg would fail on it.
		return Info{}, 0, fmt.Errorf("%w: %s: audio stream in a codec ffmpeg cannot decode (tag %s)", ErrUnsupportedFormat, info.Name, a.CodecTag)
	}
	info.Codec = a.CodecName
	info.SampleRate, _ = strconv.Atoi(a.SampleRate)
	info.Channels = a.Channels
	if b, err := strconv.Atoi(a.BitsPerRaw); err == nil && b > 0 {
		info.BitsPerSample = b
	} else if a.BitsPerSample > 0 {
		info.BitsPerSample = a.BitsPerSample
	}
	if info.SampleRate <= 0 || info.Channels <= 0 || info.Channels > 8 {
		return Info{}, 0, fmt.Errorf("%w: %s: audio stream with %d channels at %q Hz", ErrUnsupportedFormat, info.Name, info.Channels, a.SampleRate)
	}
	if info.Duration <= 0 {
		info.Duration, _ = strconv.ParseFloat(a.Duration, 64)
	}
	return info, video, nil
}

// videoFrames is a video stream's length in frames: the count its
// container states (MP4, MOV), else its duration at rate, from ffprobe's
// stream duration or the Matroska DURATION tag ("00:01:13.373000000");
// 0 when none is known.
func videoFrames(nbFrames, duration, tag string, rate Rational) int64 {
	if n, err := strconv.ParseInt(nbFrames, 10, 64); err == nil && n > 0 {
		return n
	}
	if rate.Num <= 0 || rate.Den <= 0 {
		return 0
	}
	sec, err := strconv.ParseFloat(duration, 64)
	if err != nil || !(sec > 0) {
		sec = 0
		h, rest, ok1 := strings.Cut(tag, ":")
		m, sv, ok2 := strings.Cut(rest, ":")
		hv, err1 := strconv.Atoi(h)
		mv, err2 := strconv.Atoi(m)
		secv, err3 := strconv.ParseFloat(sv, 64)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || hv < 0 || mv < 0 || !(secv >= 0) {
			return 0
		}
		sec = float64(hv*3600+mv*60) + secv
	}
	if math.IsInf(sec, 0) || !(sec > 0) {
		return 0
	}
	return int64(math.Round(sec * float64(rate.Num) / float64(rate.Den)))
}

// startAfter returns how long after the input's start (ffprobe's format
// start_time, the earliest stream's) a stream starts, from their
// start_time strings; 0 when either is missing.
func startAfter(stream, format string) float64 {
	st, err1 := strconv.ParseFloat(stream, 64)
	ft, err2 := strconv.ParseFloat(format, 64)
	if err1 != nil || err2 != nil || math.IsNaN(st-ft) || math.IsInf(st-ft, 0) {
		return 0
	}
	return max(st-ft, 0)
}

// alignFilter is the audio filter that aligns a video's decoded audio to
// its first frame, video seconds after the start of ffmpeg's timeline
// (probe), at rate Hz: the resampler (at the same rate) fills the time
// before the audio's first sample with silence, or drops the samples
// before the frame, from the decoder's own timestamps (they account for
// an encoder's priming samples, which the streams' start times do not).
// Nothing for an input with no video.
func alignFilter(video float64, rate int) string {
	if math.IsNaN(video) || rate <= 0 {
		return ""
	}
	return fmt.Sprintf("aresample=async=1:first_pts=%d", int64(math.Round(video*float64(rate))))
}

// rotatedQuarter reports whether a video stream is stored turned by 90 or
// 270 degrees: a display matrix's rotation (ffprobe's side data) or the
// older "rotate" tag.
func rotatedQuarter(tag string, side []probeSideData) bool {
	quarter := func(deg float64) bool {
		d := math.Mod(math.Abs(math.Round(deg)), 180)
		return d == 90
	}
	for _, sd := range side {
		if quarter(sd.Rotation) {
			return true
		}
	}
	if deg, err := strconv.ParseFloat(tag, 64); err == nil {
		return quarter(deg)
	}
	return false
}

// containerName turns ffprobe's format list ("mov,mp4,m4a,3gp,3g2,mj2") into one name.
func containerName(f string) string {
	switch {
	case strings.HasPrefix(f, "mov,mp4"):
		return "mp4"
	case strings.HasPrefix(f, "matroska"):
		return "matroska"
	}
	return strings.Split(f, ",")[0]
}

// parseRational reads "30000/1001" or "25".
func parseRational(s string) Rational {
	num, den, ok := strings.Cut(s, "/")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return Rational{}
	}
	d := int64(1)
	if ok {
		if d, err = strconv.ParseInt(den, 10, 64); err != nil || d <= 0 {
			return Rational{}
		}
	}
	g := gcd(n, d)
	return Rational{Num: n / g, Den: d / g}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// parseTimecode converts "HH:MM:SS:FF" (";" for drop-frame) at rate to seconds.
func parseTimecode(tc string, rate Rational) float64 {
	drop := strings.ContainsAny(tc, ";.")
	f := strings.FieldsFunc(tc, func(r rune) bool { return r == ':' || r == ';' || r == '.' })
	if len(f) != 4 || rate.Num <= 0 {
		return 0
	}
	var v [4]int64
	for i, s := range f {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0
		}
		v[i] = n
	}
	fps := int64(math.Round(rate.Float()))
	frames := ((v[0]*60+v[1])*60+v[2])*fps + v[3]
	if drop && (fps == 30 || fps == 60) {
		dropPer := fps / 15 // 2 frames at 29.97, 4 at 59.94
		mins := v[0]*60 + v[1]
		frames -= dropPer * (mins - mins/10)
	}
	return float64(frames) * float64(rate.Den) / float64(rate.Num)
}

// Open probes the file at path and starts ffmpeg decoding its audio
// stream (Stream) (Decode of the opened file).
func (d FFmpegDecoder) Open(ctx context.Context, path string) (Stream, error) {
	return openFile(ctx, d, path)
}

// Decode starts ffmpeg decoding the audio stream Stream of the media r
// yields. A regular file at its start is handed to ffmpeg by path, so that
// ffmpeg may seek in it; any other reader is piped to ffmpeg's standard
// input after ffprobe has read its first MiB, which fails with
// ErrNotStreamable for an MP4/MOV whose index follows its media (see
// NeedsSeek). The Stream does not close r.
func (d FFmpegDecoder) Decode(ctx context.Context, r io.Reader, name string) (Stream, error) {
	if r == nil {
		return nil, errNilReader(name)
	}
	if path, ok := filePath(r); ok {
		// ffprobe and ffmpeg run side by side (ffprobe costs a process
		// start and a read of the headers): ffmpeg's WAV header gives the
		// samples' format, ffprobe the rest of Info.
		// A video's audio is aligned to its first frame, which ffprobe
		// tells: ffmpeg starts again, with the filter, once it has.
		type probed struct {
			info  Info
			video float64
			err   error
		}
		pc := make(chan probed, 1)
		go func() {
			info, video, err := d.probe(ctx, path, nil, name)
			pc <- probed{info, video, err}
		}()
		st, err := d.start(ctx, path, nil, "", "")
		p := <-pc
		if p.err == nil && err == nil {
			if af := alignFilter(p.video, p.info.SampleRate); af != "" {
				st.Close()
				st, err = d.start(ctx, path, nil, "", af)
			}
		}
		if st != nil {
			st.dec, st.path = d, path
		}
		if p.err != nil {
			if st != nil {
				st.Close()
			}
			return nil, p.err
		}
		if err != nil {
			return nil, err
		}
		return st.ready(p.info)
	}
	br := bufio.NewReaderSize(r, ffprobeHeadLen)
	head, err := br.Peek(ffprobeHeadLen)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(head) == 0 {
		return nil, fmt.Errorf("%w: %s is empty (0 bytes)", ErrUnsupportedFormat, name)
	}
	if NeedsSeek(head) {
		return nil, fmt.Errorf("%s: %w: decode it from a file", name, ErrNotStreamable)
	}
	info, video, err := d.probeHead(ctx, head, name)
	if err != nil {
		return nil, err
	}
	st, err := d.start(ctx, "pipe:0", br, "", alignFilter(video, info.SampleRate))
	if err != nil {
		return nil, err
	}
	if n, ok := mp3GaplessFrames(head); ok && info.Format == "mp3" && info.SampleRate > 0 {
		// ffmpeg trims an MP3's encoder padding when it reads a file but
		// not from a pipe: end it where its LAME tag says, as the native
		// decoder does.
		st.limit = n
		if info.Frames <= 0 {
			// The tag's count is the length (a truncated file ends sooner).
			info.Frames, info.Duration = n, float64(n)/float64(info.SampleRate)
		}
	}
	return st.ready(info)
}

// start runs ffmpeg on input (a path, or "pipe:0" fed from stdin; read
// as inFormat unless that is ""),
// decoding its audio stream Stream to 32-bit float WAV (in the stream's own
// rate, or SampleRate, and channels, which the header says), through the audio filter af
// unless that is "", on a pipe. The caller reads the header with ready.
func (d FFmpegDecoder) start(ctx context.Context, input string, stdin io.Reader, inFormat, af string) (*ffmpegStream, error) {
	if _, err := exec.LookPath(d.ffmpeg()); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrFFmpegMissing, err)
	}
	s := &ffmpegStream{}
	s.ctx, s.cancel = context.WithCancel(ctx)
	args := []string{"-nostdin", "-v", "error"}
	if stdin != nil {
		args = args[1:] // stdin is the input
	}
	if inFormat != "" {
		args = append(args, "-f", inFormat)
	}
	args = append(args, "-i", input, "-map", fmt.Sprintf("0:a:%d", d.Stream), "-vn", "-sn", "-dn")
	if af != "" {
		args = append(args, "-af", af)
	}
	if d.SampleRate > 0 {
		args = append(args, "-ar", strconv.Itoa(d.SampleRate))
	}
	s.cmd = proc.Command(s.ctx, d.ffmpeg(), append(args, "-f", "wav", "-acodec", "pcm_f32le", "-bitexact", "-")...)
	s.cmd.Stdin = stdin
	s.cmd.Stderr = &s.stderr
	pr, pw, err := samplePipe()
	if err != nil {
		s.cancel()
		return nil, err
	}
	s.cmd.Stdout = pw
	err = s.cmd.Start()
	pw.Close() // ffmpeg holds the write end
	if err != nil {
		pr.Close()
		s.cancel()
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	s.pipe = pr
	s.r = bufio.NewReaderSize(pr, 1<<17)
	return s, nil
}

// ready reads the WAV header ffmpeg writes first and returns the stream,
// described by info with the header's rate and channels.
func (s *ffmpegStream) ready(info Info) (Stream, error) {
	w, err := NewWAVReader(s.r) // reads the header from s.r, no further
	if err == nil && (w.tag != waveFloat || w.bits != 32) {
		err = fmt.Errorf("%w: ffmpeg wrote %d-bit samples of format %#x, want 32-bit float", ErrUnsupportedFormat, w.bits, w.tag)
	}
	if err != nil {
		werr := s.wait()
		s.cancel()
		if s.ctx.Err() != nil && werr != nil {
			return nil, s.ctx.Err()
		}
		if werr != nil {
			return nil, fmt.Errorf("ffmpeg failed decoding %s: %w: %s", info.Name, werr, tail.Lines(s.stderr.String(), 5))
		}
		return nil, fmt.Errorf("ffmpeg output for %s: %w", info.Name, err)
	}
	s.format = w.Format()
	info.SampleRate, info.Channels = s.format.SampleRate, s.format.Channels
	s.info = info
	return s, nil
}

// tailBuffer keeps the last few KB written to it (ffmpeg's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8192 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-4096:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// ffmpegStream is a Stream of float32 samples piped from an ffmpeg child.
type ffmpegStream struct {
	info   Info
	format Format
	ctx    context.Context
	cancel context.CancelFunc
	cmd    *exec.Cmd
	pipe   *os.File // the read end of ffmpeg's standard output
	r      *bufio.Reader
	stderr tailBuffer
	buf    []byte
	frames int64
	limit  int64 // frames to deliver at most; 0: all ffmpeg writes
	done   bool
	// dec and path are the decoder and the file when ffmpeg reads a file
	// ("" otherwise): Analyze may then decode its second half apart.
	dec     FFmpegDecoder
	path    string
	waitErr error
}

func (s *ffmpegStream) Format() Format { return s.format }

// Info describes the input; after the end, Duration is the real decoded one.
func (s *ffmpegStream) Info() Info { return s.info }

// Read fills p with whole frames of samples.
func (s *ffmpegStream) Read(p []float32) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	ch := s.format.Channels
	n := len(p) - len(p)%ch
	if s.limit > 0 {
		if left := s.limit - s.frames; left <= 0 {
			return 0, s.stop()
		} else if int64(n/ch) > left {
			n = int(left) * ch
		}
	}
	if n == 0 {
		return 0, nil
	}
	// ffmpeg writes little-endian float32: on a little-endian machine its
	// bytes are read straight into p, saving a copy and a conversion.
	direct := littleEndian()
	var b []byte
	if direct {
		b = unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), 4*n)
	} else {
		if cap(s.buf) < 4*n {
			s.buf = make([]byte, 4*n)
		}
		b = s.buf[:4*n]
	}
	if s.r.Buffered() == 0 {
		// Let ffmpeg's writes gather in the pipe: a read woken by
		// every 32 KiB write costs both sides more than the samples'
		// copy (see pipeWait).
		pipeWait(s.pipe, min(len(b), pipeGather))
	}
	got, err := io.ReadAtLeast(s.r, b, 4*ch)
	if r := got % (4 * ch); r != 0 && err == nil {
		// A read may end inside a frame: complete it, so that the next
		// read starts on a frame.
		k, ferr := io.ReadFull(s.r, b[got:got+4*ch-r])
		got += k
		err = ferr
	}
	got -= got % (4 * ch)
	if !direct {
		for i := 0; i < got/4; i++ {
			p[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	s.frames += int64(got / 4 / ch)
	if err == nil {
		return got / 4, nil
	}
	if err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return got / 4, fmt.Errorf("ffmpeg pipe: %w", err)
	}
	s.done = true
	werr := s.wait()
	if s.ctx.Err() != nil {
		s.cancel()
		return got / 4, s.ctx.Err()
	}
	s.cancel()
	if werr != nil {
		return got / 4, fmt.Errorf("ffmpeg failed decoding %s: %w: %s", s.info.Name, werr, tail.Lines(s.stderr.String(), 5))
	}
	s.info.Frames = s.frames
	s.info.Duration = float64(s.frames) / float64(s.format.SampleRate)
	if got == 0 {
		return 0, io.EOF
	}
	return got / 4, nil
}

// stop ends a stream cut short at its limit: ffmpeg is stopped, the
// decoded length recorded, and io.EOF reported.
func (s *ffmpegStream) stop() error {
	s.done = true
	s.Close()
	s.info.Frames = s.frames
	s.info.Duration = float64(s.frames) / float64(s.format.SampleRate)
	return io.EOF
}

// Close stops ffmpeg if it is still running.
func (s *ffmpegStream) Close() error {
	if s.cmd != nil {
		s.cancel()
		_ = s.wait()
	}
	return nil
}

// pipeGather is how many bytes a read waits for in the pipe (pipeWait):
// half its size on Linux.
const pipeGather = 512 << 10

// wait waits for ffmpeg to end and closes the pipe it wrote to.
func (s *ffmpegStream) wait() error {
	err := s.cmd.Wait()
	s.cmd = nil
	s.pipe.Close()
	return err
}

// littleEndian reports whether this machine stores numbers little-endian.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
