package dsp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/internal/testtier"
)

// speechMP3 encodes about 3.5 minutes of real speech (three recordings,
// English and French) over a pink-noise bed 30 dB under it, so that the
// voice detector's classifier has work, with the given encoder options.
func speechMP3(t testing.TB, name string, enc ...string) string {
	t.Helper()
	args := []string{
		"-i", recordings + "/en_asterisk_allison_demo-instruct_73s.wav",
		"-i", recordings + "/fr_asterisk_june_demo-instruct_71s.wav",
		"-i", recordings + "/en_librivox_sense_sensibility_0870.wav",
		"-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.01:seed=7",
		"-filter_complex", "[0:a]aresample=44100,aformat=channel_layouts=mono[a];[1:a]aresample=44100,aformat=channel_layouts=mono[b];" +
			"[2:a]aresample=44100,aformat=channel_layouts=mono[c];[a][b][c]concat=n=3:v=0:a=1[s];" +
			"[3:a]aresample=44100,aformat=channel_layouts=mono[n];[s][n]amix=inputs=2:duration=first:normalize=0[out]",
		"-map", "[out]",
	}
	return ffmpegGen(t, name, append(args, enc...)...)
}

// analyzeOnePiece analyses the file at path through one decoder, as
// Analyze does for every input it does not split.
func analyzeOnePiece(t *testing.T, dec Decoder, path string) *Analysis {
	t.Helper()
	s, err := openFile(context.Background(), dec, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := newAnalyzer(s.Format())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.run(context.Background(), s, 0, nil); err != nil {
		t.Fatal(err)
	}
	return a.Result(s.Info())
}

// openSplit opens path with dec and returns its stream and split plan.
func openSplit(t *testing.T, dec Decoder, path string) (Stream, splitter, mp3Split) {
	t.Helper()
	s, err := openFile(context.Background(), dec, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st, _ := s.(splitSource).splitStream()
	sp, ok := st.plan(st.Format())
	if !ok {
		t.Fatalf("%s: not split", path)
	}
	return s, st, sp
}

// TestSplitMP3MatchesOnePiece: an MP3 analysed in two halves side by side
// measures what it does in one piece: the same envelope to the bit, the
// same loudness, peaks and blocks within rounding, and voice classes that
// differ in at most a few frames after the split point.
func TestSplitMP3MatchesOnePiece(t *testing.T) {
	testtier.Slow(t, "3.5 minutes of speech as MP3 decoded whole and in halves, about 25 s")
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	for _, tc := range []struct {
		name string
		dec  Decoder
		enc  []string
	}{
		{"ffmpeg-44k-stereo-vbr", FFmpegDecoder{}, []string{"-ac", "2", "-c:a", "libmp3lame", "-q:a", "2"}},
		{"ffmpeg-48k-stereo-cbr", FFmpegDecoder{}, []string{"-ar", "48000", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k"}},
		{"ffmpeg-22k-mono-mpeg2", FFmpegDecoder{}, []string{"-ar", "22050", "-ac", "1", "-c:a", "libmp3lame", "-b:a", "48k"}},
		{"native-44k-stereo-vbr", NativeDecoder{}, []string{"-ac", "2", "-c:a", "libmp3lame", "-q:a", "2"}},
		{"native-22k-mono-mpeg2", NativeDecoder{}, []string{"-ar", "22050", "-ac", "1", "-c:a", "libmp3lame", "-b:a", "48k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := speechMP3(t, tc.name+".mp3", tc.enc...)
			want := analyzeOnePiece(t, tc.dec, path)
			s, st, sp := openSplit(t, tc.dec, path)
			got, matched, err := analyzeHalves(context.Background(), st, sp, s.Info(), nil)
			if err != nil || !matched {
				t.Fatalf("halves: matched %v, %v", matched, err)
			}
			sameAnalysis(t, got, want, st, sp)
		})
	}
}

// sameAnalysis fails t unless the analysis in halves got is the one-piece
// analysis want: the same envelope to the bit, loudness, peaks and blocks
// within rounding, and voice classes that differ in at most a few frames
// after the split point.
func sameAnalysis(t *testing.T, got, want *Analysis, st splitter, sp mp3Split) {
	t.Helper()
	if got.Input.Frames != want.Input.Frames {
		t.Fatalf("frames: %d in halves, %d in one piece", got.Input.Frames, want.Input.Frames)
	}
	equal32(t, "RMS", got.Envelope.RMSDb, want.Envelope.RMSDb)
	equal32(t, "peak", got.Envelope.PeakDb, want.Envelope.PeakDb)
	if len(got.Blocks) != len(want.Blocks) {
		t.Fatalf("%d blocks, want %d", len(got.Blocks), len(want.Blocks))
	}
	for i := range got.Blocks {
		if d := math.Abs(got.Blocks[i] - want.Blocks[i]); d > 1e-9*want.Blocks[i]+1e-15 {
			t.Fatalf("block %d: %g, want %g", i, got.Blocks[i], want.Blocks[i])
		}
	}
	gl, wl := got.Loudness, want.Loudness
	for _, v := range [][3]any{
		{"integrated", gl.Integrated, wl.Integrated}, {"range", gl.Range, wl.Range},
		{"true peak", gl.TruePeak, wl.TruePeak}, {"sample peak", gl.SamplePeak, wl.SamplePeak},
		{"momentary max", gl.MomentaryMax, wl.MomentaryMax}, {"short-term max", gl.ShortTermMax, wl.ShortTermMax},
	} {
		if d := math.Abs(v[1].(float64) - v[2].(float64)); d > 1e-6 {
			t.Errorf("%s: %.6f in halves, %.6f in one piece", v[0], v[1], v[2])
		}
	}
	if got.ThresholdDb != want.ThresholdDb || got.NoiseFloorDb != want.NoiseFloorDb || got.SpeechLevelDb != want.SpeechLevelDb {
		t.Errorf("levels: %v/%v/%v in halves, %v/%v/%v in one piece", got.ThresholdDb, got.NoiseFloorDb,
			got.SpeechLevelDb, want.ThresholdDb, want.NoiseFloorDb, want.SpeechLevelDb)
	}
	gv, wv := got.Envelope.Voice, want.Envelope.Voice
	if len(gv) != len(wv) {
		t.Fatalf("%d voice classes, want %d", len(gv), len(wv))
	}
	diff, scores, first := 0, 0, -1
	for i := range gv {
		if gv[i] == wv[i] {
			continue
		}
		scores++
		if first < 0 {
			first = i
		}
		if VoiceScore(gv[i]) >= 0.5 != (VoiceScore(wv[i]) >= 0.5) {
			diff++
		}
	}
	split := int(sp.at * 100 / int64(st.Format().SampleRate))
	t.Logf("split at %.1f s of %.1f s; of %d voice classes %d differ, %d of them across 0.5 (first at frame %d)",
		float64(sp.at)/float64(st.Format().SampleRate), want.Input.Duration, len(gv), scores, diff, first)
	if first >= 0 && first < split-splitVoice {
		t.Errorf("voice class %d differs, before the second half's classes start (%d)", first, split-splitVoice)
	}
	if diff > len(gv)/200 {
		t.Errorf("%d voice classes differ across 0.5, more than 0.5 %%", diff)
	}
}

func equal32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] && !(math.IsInf(float64(got[i]), -1) && math.IsInf(float64(want[i]), -1)) {
			t.Fatalf("%s frame %d: %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestSplitMP3Misaligned: when the second decoder's samples do not line up
// with the first's (here the plan places them one MP3 frame off), the
// halves are dropped and the file is analysed again in one piece.
func TestSplitMP3Misaligned(t *testing.T) {
	testtier.Slow(t, "MP3 halves over misaligned frames, about 20 s")
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	path := speechMP3(t, "speech.mp3", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "4")
	for _, dec := range []Decoder{FFmpegDecoder{}, NativeDecoder{}} {
		want := analyzeOnePiece(t, dec, path)
		s, st, sp := openSplit(t, dec, path)
		sp.bFirst -= 1152
		if _, matched, err := analyzeHalves(context.Background(), st, sp, s.Info(), nil); matched || err != nil {
			t.Fatalf("%T: misaligned halves: matched %v, %v", dec, matched, err)
		}
		s, st, sp = openSplit(t, dec, path)
		sp.bFirst += 1152
		var fracs []float64
		var mu sync.Mutex
		progress := func(f float64) { mu.Lock(); fracs = append(fracs, f); mu.Unlock() }
		got, ok, err := analyzeSplitAs(context.Background(), st, sp, s.Info(), progress)
		if err != nil || !ok {
			t.Fatalf("%T: fallback: ok %v, %v", dec, ok, err)
		}
		for i := 1; i < len(fracs); i++ {
			if fracs[i] <= fracs[i-1] {
				t.Fatalf("%T: progress went from %v to %v", dec, fracs[i-1], fracs[i])
			}
		}
		if len(fracs) == 0 || fracs[len(fracs)-1] != 1 {
			t.Errorf("%T: progress ends at %v, want 1", dec, fracs[max(len(fracs)-1, 0):])
		}
		equal32(t, "RMS", got.Envelope.RMSDb, want.Envelope.RMSDb)
		if d := math.Abs(got.Loudness.Integrated - want.Loudness.Integrated); d > 1e-9 {
			t.Errorf("%T: integrated %v, want %v", dec, got.Loudness.Integrated, want.Loudness.Integrated)
		}
		for i := range got.Envelope.Voice {
			if got.Envelope.Voice[i] != want.Envelope.Voice[i] {
				t.Fatalf("%T: voice class %d differs after the fallback", dec, i)
			}
		}
	}
}

// TestPlanMP3Split: which MP3 files are cut, and where.
func TestPlanMP3Split(t *testing.T) {
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	f := Format{SampleRate: 44100, Channels: 2}
	good := speechMP3(t, "good.mp3", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "4")
	sp, ok := planMP3Split(good, f)
	if !ok {
		t.Fatal("a 3.5 min LAME MP3 is not split")
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if !isMP3FrameHeader(binary.BigEndian.Uint32(data[sp.bStart:])) {
		t.Errorf("the second half starts at byte %d, not on a frame", sp.bStart)
	}
	if sp.at%44100 != 0 || sp.at-sp.warm <= sp.bFirst || sp.at > sp.total/2+44100 || sp.at < sp.total/2-2*44100 {
		t.Errorf("split %+v: not a whole second near the middle after the second decoder's lead", sp)
	}
	if _, ok := planMP3Split(good, Format{SampleRate: 44100, Channels: 1}); ok {
		t.Error("split for a format the file is not in")
	}
	noTag := speechMP3(t, "notag.mp3", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "4", "-write_xing", "0")
	if _, ok := planMP3Split(noTag, f); ok {
		t.Error("an MP3 without a LAME tag is split")
	}
	short := ffmpegGen(t, "short.mp3", "-f", "lavfi", "-i", "sine=frequency=440:duration=50", "-ac", "2", "-ar", "44100", "-c:a", "libmp3lame")
	if _, ok := planMP3Split(short, f); ok {
		t.Error("a 50 s MP3 is split")
	}
	// An ID3v1 tag after the last frame is fine.
	tagged := t.TempDir() + "/tagged.mp3"
	if err := os.WriteFile(tagged, append(append([]byte(nil), data...), append([]byte("TAG"), make([]byte, 125)...)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := planMP3Split(tagged, f); !ok {
		t.Error("an MP3 with an ID3v1 tag is not split")
	}
	// An Info frame that says fewer frames than the file has (the second
	// decoder would stop early): not split.
	h, err := parseMP3Header(data[:64<<10])
	if err != nil || !h.lameTag {
		t.Fatalf("header: %+v, %v", h, err)
	}
	lying := append([]byte(nil), data...)
	x := h.offset + 4 + 32 + 8 // frames field: after the side info, "Info"/"Xing" and the flags
	binary.BigEndian.PutUint32(lying[x:], uint32(h.frames-100))
	if h2, _ := parseMP3Header(lying[:64<<10]); h2.frames != h.frames-100 {
		t.Fatalf("patched count %d, want %d", h2.frames, h.frames-100)
	}
	liar := t.TempDir() + "/liar.mp3"
	if err := os.WriteFile(liar, lying, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := planMP3Split(liar, f); ok {
		t.Error("an MP3 whose Info frame undercounts its frames is split")
	}
	// Junk in the first half: frames no longer follow each other.
	junk := append([]byte(nil), data...)
	copy(junk[len(junk)/4:], make([]byte, 4096))
	bad := t.TempDir() + "/junk.mp3"
	if err := os.WriteFile(bad, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := planMP3Split(bad, f); ok {
		t.Error("an MP3 with junk between its frames is split")
	}
}

// TestSplitMP3Cancelled: cancelling an analysis in two halves stops both
// decoders and reports the cancellation.
func TestSplitMP3Cancelled(t *testing.T) {
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	path := speechMP3(t, "speech.mp3", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "4")
	s, st, sp := openSplit(t, FFmpegDecoder{}, path)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	progress := func(f float64) {
		if f > 0.3 {
			once.Do(cancel)
		}
	}
	_, _, err := analyzeHalves(ctx, st, sp, s.Info(), progress)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled analysis: %v", err)
	}
	if st.(*ffmpegStream).cmd != nil {
		t.Error("the first decoder is still running")
	}
}

// TestAnalyzeMP3Memory3h: a 3-hour MP3 analysed in two halves keeps its
// heap bounded (two Analyzers, each with its batches and half the
// envelope). The file is 8 kHz stereo, which encodes fast: the analysis's
// memory depends on the length and the channels, not on the rate.
func TestAnalyzeMP3Memory3h(t *testing.T) {
	testtier.Slow(t, "3 hours of audio; run without -short")
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	const sec = 3 * 3600
	path := ffmpegGen(t, "3h.mp3", "-f", "lavfi", "-i", fmt.Sprintf("sine=frequency=300:sample_rate=8000:duration=%d", sec),
		"-f", "lavfi", "-i", fmt.Sprintf("anoisesrc=color=pink:amplitude=0.001:sample_rate=8000:duration=%d", sec),
		"-filter_complex", "[0:a]volume='if(lt(mod(t,7),4),1,0)':eval=frame[s];[s][1:a]amix=inputs=2:normalize=0,aformat=channel_layouts=stereo",
		"-c:a", "libmp3lame", "-b:a", "24k")
	s, _, _ := openSplit(t, FFmpegDecoder{}, path)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}()
	a, err := Analyze(context.Background(), s, s.Info(), nil)
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Input.Duration-sec) > 0.1 {
		t.Fatalf("duration %.3f, want %d", a.Input.Duration, sec)
	}
	t.Logf("3 h MP3 in two halves: peak heap in use %.1f MB (%.1f MB before); %d envelope frames",
		float64(peak)/1e6, float64(before.HeapInuse)/1e6, a.Envelope.Frames())
	if peak > 64<<20 {
		t.Errorf("peak heap %.1f MB, want < 64 MB", float64(peak)/1e6)
	}
}

// FuzzPlanMP3Split: the frame walk never panics on any bytes, and a file
// it cuts is cut inside itself: the second decoder starts on a frame
// header within the file, after the first, with its head start before the
// split point, which lies before the end.
func FuzzPlanMP3Split(f *testing.F) {
	if (FFmpegDecoder{}).Available() {
		path := ffmpegGen(f, "seed.mp3", "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=8000:duration=100",
			"-ac", "1", "-c:a", "libmp3lame", "-b:a", "8k")
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, 8000, 1)
		f.Add(data[:len(data)/2], 8000, 1)
		f.Add(append(append([]byte(nil), data...), "TAG"...), 8000, 1)
	}
	f.Add([]byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x64"), 44100, 2)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, rate, ch int) {
		path := dir + "/in.mp3"
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sp, ok := planMP3Split(path, Format{SampleRate: rate, Channels: ch})
		if !ok {
			return
		}
		if sp.bStart <= 0 || sp.bStart+4 > int64(len(data)) || !isMP3FrameHeader(binary.BigEndian.Uint32(data[sp.bStart:])) {
			t.Fatalf("second decoder starts at byte %d of %d, not on a frame", sp.bStart, len(data))
		}
		if !(sp.bFirst < sp.at-sp.warm && sp.warm > 0 && sp.at < sp.total) {
			t.Fatalf("split %+v out of order", sp)
		}
	})
}

// TestSplitWAVMatchesOnePiece: a WAV file of five minutes or more is
// analysed in two halves side by side (the second reader skipping to its
// head start) and measures what it does in one piece; a shorter one is
// not split.
func TestSplitWAVMatchesOnePiece(t *testing.T) {
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"16-bit-stereo", []string{"-ac", "2", "-c:a", "pcm_s16le"}},
		{"24-bit-mono-48k", []string{"-ar", "48000", "-ac", "1", "-c:a", "pcm_s24le"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := ffmpegGen(t, "long.wav", append([]string{"-stream_loop", "-1", "-i", recordings + "/en_asterisk_allison_demo-instruct_73s.wav",
				"-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.01:seed=7", "-filter_complex", "[0:a][1:a]amix=inputs=2:duration=first:normalize=0",
				"-t", "310"}, c.args...)...)
			want := analyzeOnePiece(t, NativeDecoder{}, path)
			s, st, sp := openSplit(t, AutoDecoder{}, path)
			got, split, err := analyzeSplit(context.Background(), s, s.Info(), nil)
			if err != nil || !split {
				t.Fatalf("split %v: %v", split, err)
			}
			sameAnalysis(t, got, want, st, sp)
		})
	}
	short := ffmpegGen(t, "short.wav", "-f", "lavfi", "-i", "sine=d=200", "-c:a", "pcm_s16le")
	s, err := openFile(context.Background(), AutoDecoder{}, short)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st, _ := s.(splitSource).splitStream(); st != nil {
		if _, ok := st.plan(s.Format()); ok {
			t.Error("a 200 s WAV is split")
		}
	}
}

// fakeSplit is a splitter over endless sources, for the halves' failures.
type fakeSplit struct {
	Source          // the first half's stream
	second   Source // the second decoder's
	released chan struct{}
}

func (s *fakeSplit) splitFile() string { return "fake" }
func (s *fakeSplit) decodeFrom(context.Context, int64, int64) (Source, func(), error) {
	return s.second, func() {}, nil
}
func (s *fakeSplit) again(context.Context) (Source, func(), error) {
	return nil, nil, errors.New("fakeSplit: no again")
}
func (s *fakeSplit) release()                     { close(s.released) }
func (s *fakeSplit) plan(Format) (mp3Split, bool) { return mp3Split{}, false }

// endlessSource yields a tone forever, or failErr at its first read when
// set (closing failed then). Once failed is closed (by this source or the
// other half's), it yields at most maxAfter more reads, then
// errNotCancelled: a half the other's failure did not stop.
type endlessSource struct {
	f        Format
	failErr  error
	failed   chan struct{}
	after    int
	maxAfter int
	pos      int
}

var errNotCancelled = errors.New("still read long after the other half failed")

func (e *endlessSource) Format() Format { return e.f }

func (e *endlessSource) Read(p []float32) (int, error) {
	if e.failErr != nil {
		close(e.failed)
		return 0, e.failErr
	}
	select {
	case <-e.failed:
		if e.after++; e.after > e.maxAfter {
			return 0, errNotCancelled
		}
	default:
	}
	for i := range p {
		p[i] = 0.1 * float32(math.Sin(float64(e.pos+i/e.f.Channels)*0.05))
	}
	e.pos += len(p) / e.f.Channels
	return len(p), nil
}

// TestSplitHalfFailureCancelsTheOther: when either half of a split
// analysis fails, the other stops at its next batch rather than analysing
// to its end (the halves here never end): the first half's failure is the
// analysis's, the second's sends the file to one piece (matched false).
func TestSplitHalfFailureCancelsTheOther(t *testing.T) {
	f := Format{SampleRate: 44100, Channels: 2}
	rate := int64(f.SampleRate)
	// The halves are "endless": 2^40 frames each way.
	sp := mp3Split{total: 1 << 41, at: 1 << 40, warm: rate}
	sp.bFirst = sp.at - sp.warm
	boom := errors.New("boom")
	// Without the cancellation the surviving half reads on, up to
	// errNotCancelled; with it, a few batches at most.
	const maxAfter = 1000
	for _, tc := range []struct {
		name    string
		failing int
	}{{"first fails", 0}, {"second fails", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			failed := make(chan struct{})
			srcs := [2]*endlessSource{{f: f, failed: failed, maxAfter: maxAfter}, {f: f, failed: failed, maxAfter: maxAfter}}
			srcs[tc.failing].failErr = boom
			st := &fakeSplit{Source: srcs[0], second: srcs[1], released: make(chan struct{})}
			an, matched, err := analyzeHalves(context.Background(), st, sp, Info{}, nil)
			if errors.Is(err, errNotCancelled) {
				t.Fatalf("the other half was not cancelled: %v", err)
			}
			if an != nil || matched {
				t.Fatalf("analysis %v, matched %v after a failed half", an != nil, matched)
			}
			if tc.failing == 0 && !errors.Is(err, boom) {
				t.Errorf("error %v, want the first half's %v", err, boom)
			}
			if tc.failing == 1 && err != nil {
				t.Errorf("error %v, want none (the file goes to one piece)", err)
			}
			select {
			case <-st.released:
			default:
				t.Error("the first decoder was not released")
			}
			survivor := srcs[1-tc.failing]
			if survivor.after > maxAfter {
				t.Errorf("the other half read on for %d batches after the failure", survivor.after)
			}
			t.Logf("%s: the other half read %d batches after the failure", tc.name, survivor.after)
		})
	}
}
