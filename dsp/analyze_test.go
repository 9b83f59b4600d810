package dsp

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sharedDir finds the shared/ directory that sits beside the checkout by
// walking up from the test's working directory.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, "shared", "data")); err == nil && fi.IsDir() {
			return filepath.Join(dir, "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("shared/ not found beside the checkout (expected ../shared from the repository root)")
		}
		dir = parent
	}
}

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
	data := filepath.Join(sharedDir(t), "data")
	var files []string
	for _, pat := range []string{"*.wav", "*.flac", "*.ogg"} {
		m, _ := filepath.Glob(filepath.Join(data, pat))
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("only %d recordings in %s", len(files), data)
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

// analyzeTestFile decodes path with ffmpeg at its native rate and channel
// count and analyses it.
func analyzeTestFile(ctx context.Context, path string) (*Analysis, error) {
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels", "-of", "csv=p=0", path).Output()
	if err != nil {
		return nil, fmt.Errorf("ffprobe %s: %w", path, err)
	}
	var rate, ch int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "%d,%d", &rate, &ch); err != nil {
		return nil, fmt.Errorf("ffprobe %s: %q: %w", path, out, err)
	}
	cmd := exec.CommandContext(ctx, "ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le", "-acodec", "pcm_f32le", "-")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	src := &ffmpegSource{f: Format{SampleRate: rate, Channels: ch}, cmd: cmd, r: bufio.NewReaderSize(stdout, 1<<16)}
	a, err := Analyze(ctx, src, Info{Name: filepath.Base(path), Frames: -1}, nil)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	return a, err
}
