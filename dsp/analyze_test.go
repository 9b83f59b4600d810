package dsp

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/autocut-dev/autocut/internal/realdata"
)

// recordings is the folder of real recordings the tests measure (see its
// ATTRIBUTION.txt), relative to this package's directory.
const recordings = "../testdata/recordings"

// libebur128 holds what loudgain (libebur128) measures for a file.
type libebur128 struct {
	integrated, lra, truePeak float64
}

// loudgainMeasure runs loudgain on files and parses its tab-separated
// output (-O): File, Loudness "-19.43 LUFS", Range "2.08 dB", True_Peak
// (linear), True_Peak_dBTP "-1.05 dBTP", ...
func loudgainMeasure(t *testing.T, files []string) map[string]libebur128 {
	t.Helper()
	out, err := exec.Command("loudgain", append([]string{"-O", "-q"}, files...)...).Output()
	if err != nil {
		t.Fatalf("loudgain: %v", err)
	}
	res := map[string]libebur128{}
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(strings.Fields(s)[0], 64)
		if err != nil {
			t.Fatalf("loudgain output %q: %v", s, err)
		}
		return f
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 5 || f[0] == "File" {
			continue
		}
		res[filepath.Base(f[0])] = libebur128{integrated: num(f[1]), lra: num(f[2]), truePeak: 20 * math.Log10(num(f[3]))}
	}
	if len(res) != len(files) {
		t.Fatalf("loudgain measured %d of %d files:\n%s", len(res), len(files), out)
	}
	return res
}

func TestRealRecordingsAgainstLibebur128(t *testing.T) {
	files := realdata.RecordingFiles(t)
	if len(files) < 5 {
		t.Fatalf("only %d recordings: %q", len(files), files)
	}
	ref := loudgainMeasure(t, files)
	t.Logf("%-42s %6s %2s | %8s %8s %6s | %8s %8s %6s | %6s %6s", "file", "rate", "ch", "I", "I ref", "dI", "TP", "TP ref", "dTP", "LRA", "ref")
	for _, f := range files {
		name := filepath.Base(f)
		a, err := analyzeTestFile(context.Background(), f)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if a.Input.Name != name || a.Input.Format == "" || a.Input.Duration <= 0 {
			t.Errorf("%s: input %+v: want the decoder's name, format and a duration", name, a.Input)
		}
		r := ref[name]
		l := a.Loudness
		t.Logf("%-42s %6d %2d | %8.3f %8.2f %+6.3f | %8.3f %8.3f %+6.3f | %6.2f %6.2f", name, a.Input.SampleRate, a.Input.Channels,
			l.Integrated, r.integrated, l.Integrated-r.integrated, l.TruePeak, r.truePeak, l.TruePeak-r.truePeak, l.Range, r.lra)
		// loudgain prints two decimals: allow its rounding on top of 0.1 LU.
		if !near(l.Integrated, r.integrated, 0.1+0.005) {
			t.Errorf("%s: integrated %.3f LUFS, libebur128 %.2f", name, l.Integrated, r.integrated)
		}
		if !near(l.TruePeak, r.truePeak, 0.3) {
			t.Errorf("%s: true peak %.3f dBTP, libebur128 %.3f", name, l.TruePeak, r.truePeak)
		}
	}
}

// ffmpegSource is a test-only Source piping f32le from ffmpeg.
type ffmpegSource struct {
	f   Format
	cmd *exec.Cmd
	r   *bufio.Reader
	raw []byte
}

func (s *ffmpegSource) Format() Format { return s.f }

func (s *ffmpegSource) Read(p []float32) (int, error) {
	ch := s.f.Channels
	n := len(p) / ch * ch
	if cap(s.raw) < 4*n {
		s.raw = make([]byte, 4*n)
	}
	m, err := io.ReadFull(s.r, s.raw[:4*n])
	m = m / (4 * ch) * ch
	for i := 0; i < m; i++ {
		p[i] = math.Float32frombits(binary.LittleEndian.Uint32(s.raw[4*i:]))
	}
	if m > 0 {
		return m, nil
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return 0, io.EOF
	}
	return 0, err
}

// analyzeTestFile decodes path with dsp.Open (content sniffing, native
// WAV, ffmpeg for FLAC/Ogg) and analyses it.
func analyzeTestFile(ctx context.Context, path string) (*Analysis, error) {
	return AnalyzeFile(ctx, path, nil)
}

// errSource fails after some frames, or returns broken frames.
type errSource struct {
	f       Format
	frames  int
	partial bool // return a sample count that is not whole frames
	err     error
}

func (s *errSource) Format() Format { return s.f }

func (s *errSource) Read(p []float32) (int, error) {
	if s.frames <= 0 {
		if s.partial {
			return 1, nil
		}
		return 0, s.err
	}
	n := min(len(p)/s.f.Channels, s.frames)
	clear(p[:n*s.f.Channels])
	s.frames -= n
	return n * s.f.Channels, nil
}

var errDisk = errors.New("disk on fire")

func TestAnalyzeErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		src  Source
		want error
	}{
		{"no channels", &errSource{f: Format{44100, 0}}, ErrUnsupportedFormat},
		{"9 channels", &errSource{f: Format{44100, 9}}, ErrUnsupportedFormat},
		{"rate 500 Hz", &errSource{f: Format{500, 1}}, ErrUnsupportedFormat},
		{"rate 10 MHz", &errSource{f: Format{10000000, 1}}, ErrUnsupportedFormat},
		{"read error", &errSource{f: Format{44100, 2}, frames: 50000, err: errDisk}, errDisk},
		{"partial frames", &errSource{f: Format{44100, 2}, frames: 100, partial: true}, ErrBadSamples},
	}
	for _, tc := range tests {
		a, err := Analyze(ctx, tc.src, Info{}, nil)
		if !errors.Is(err, tc.want) || a != nil {
			t.Errorf("%s: Analyze = %v, %v; want error %v", tc.name, a, err, tc.want)
		}
	}
	an, err := newAnalyzer(Format{48000, 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := an.Write(make([]float32, 3)); !errors.Is(err, ErrBadSamples) {
		t.Errorf("Write of 3 samples to stereo: %v, want ErrBadSamples", err)
	}
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		an, _ := newAnalyzer(Format{48000, 2})
		p := make([]float32, 2000)
		p[1001] = v
		// (ErrBadSamples said "samples are not whole frames", which these are.)
		if err := an.Write(p); !errors.Is(err, ErrBadSamples) || strings.Contains(err.Error(), "whole frames") {
			t.Errorf("Write of %v: %v, want ErrBadSamples, not about whole frames", v, err)
		}
	}
}

func TestAnalyzeProgressAndCancel(t *testing.T) {
	const rate = 48000
	tests := []struct {
		name string
		info Info
	}{
		{"frames known", Info{Frames: 30 * rate}},
		{"duration known", Info{Frames: -1, Duration: 30}},
	}
	for _, tc := range tests {
		var got []float64
		a, err := Analyze(context.Background(), newSynth(rate, 2, tone{30, 1000, lv(-20)}), tc.info, func(f float64) { got = append(got, f) })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 100 || got[len(got)-1] != 1 {
			t.Errorf("%s: %d progress reports ending at %v, want >= 100 ending at 1", tc.name, len(got), got[len(got)-1])
		}
		for i := 1; i < len(got); i++ {
			if got[i] < got[i-1] || got[i] > 1 {
				t.Errorf("%s: progress %v after %v", tc.name, got[i], got[i-1])
				break
			}
		}
		if a.Input.Duration != 30 || a.Input.Frames != 30*rate {
			t.Errorf("%s: duration %v, frames %d", tc.name, a.Input.Duration, a.Input.Frames)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := Analyze(ctx, newSynth(rate, 2, tone{600, 1000, lv(-20)}), Info{Frames: 600 * rate}, func(f float64) {
		calls++
		if f > 0.1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled analysis: %v, want context.Canceled", err)
	}
	if calls > 200 {
		t.Errorf("analysis went on for %d progress reports after cancel", calls)
	}
}

// TestAnalyzeChunking checks that any split of the input into writes gives
// the same analysis, and that the envelope and duration are exact at a
// prime rate.
func TestAnalyzeChunking(t *testing.T) {
	const rate = 69313
	mk := func() *synth {
		return newSynth(rate, 3, tone{1.5, 1000, lv(-30)}, tone{2.234, 1000, []float64{-10, -20, inf}}, tone{0.5, 1000, lv(inf)}, tone{1.0037, 3000, lv(-6)})
	}
	var ref *Analysis
	for _, chunk := range []int{1, 7, 441, 4096, 1 << 20} {
		s := mk()
		an, err := newAnalyzer(s.Format())
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]float32, chunk*3)
		for {
			n, err := s.Read(buf)
			if err := an.Write(buf[:n]); err != nil {
				t.Fatal(err)
			}
			if err != nil {
				break
			}
		}
		a := an.Result(Info{Name: "x"})
		if ref == nil {
			ref = a
			continue
		}
		if d := cmp.Diff(ref, a, cmpopts.EquateApprox(0, 1e-9)); d != "" {
			t.Errorf("chunk %d frames: analysis differs (-ref +got):\n%s", chunk, d)
		}
	}
	frames := mk().length
	if ref.Input.Frames != frames || ref.Input.Duration != float64(frames)/rate {
		t.Errorf("frames %d duration %v, want %d", ref.Input.Frames, ref.Input.Duration, frames)
	}
	if want := int((frames*100 + rate - 1) / rate); ref.Envelope.Frames() != want {
		t.Errorf("%d envelope frames, want %d", ref.Envelope.Frames(), want)
	}
	if want := int(frames * 10 / rate); len(ref.Blocks) != want {
		t.Errorf("%d blocks, want %d", len(ref.Blocks), want)
	}
	// 0.5-1.5 s: sine at -30 dBFS peak in 3 channels: RMS -33.01, peak -30.
	for i := 50; i < 150; i++ {
		if r, p := ref.Envelope.RMSDb[i], ref.Envelope.PeakDb[i]; !near(float64(r), -33.01, 0.1) || !near(float64(p), -30, 0.05) {
			t.Fatalf("envelope frame %d: rms %.2f peak %.2f, want -33.01 and -30", i, r, p)
		}
	}
	// 3.9-4.1 s: digital silence.
	for i := 380; i < 420; i++ {
		if r := ref.Envelope.RMSDb[i]; r != FloorDb {
			t.Fatalf("silent envelope frame %d: %.2f, want %v", i, r, FloorDb)
		}
	}
}

// TestFMAPathsAgree runs the fused multiply-add and the plain K-weighting
// recursions on the same input (stereo and mono paths): both must agree.
func TestFMAPathsAgree(t *testing.T) {
	for _, ch := range []int{1, 2, 3} {
		var res [2]*Analysis
		for i, fma := range []bool{false, true} {
			s := newSpeechLike(44100, ch, 20, -25, -65, 11)
			an, err := newAnalyzer(s.Format())
			if err != nil {
				t.Fatal(err)
			}
			an.setFMA(fma)
			buf := make([]float32, 4096*ch)
			for {
				n, err := s.Read(buf)
				if werr := an.Write(buf[:n]); werr != nil {
					t.Fatal(werr)
				}
				if err != nil {
					break
				}
			}
			res[i] = an.Result(Info{})
		}
		if d := cmp.Diff(res[0], res[1], cmpopts.EquateApprox(1e-6, 1e-15)); d != "" {
			t.Errorf("%d channels: FMA and plain recursions differ (-plain +fma):\n%s", ch, d)
		}
	}
}
