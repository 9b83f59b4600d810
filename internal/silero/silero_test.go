package silero

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-audio/wav"

	"github.com/autocut-dev/autocut/internal/realdata"
)

// readWAV returns a 16 kHz mono 16-bit WAV's samples scaled by 1/32768 (as
// sox writes them as float, the references' input).
func readWAV(t *testing.T, path string) []float32 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := wav.NewDecoder(f)
	buf, err := d.FullPCMBuffer()
	if err != nil {
		t.Fatal(err)
	}
	if d.SampleRate != Rate || buf.Format.NumChannels != 1 || d.BitDepth != 16 {
		t.Fatalf("%s: %d Hz, %d channels, %d bits: want 16 kHz mono 16-bit", path, d.SampleRate, buf.Format.NumChannels, d.BitDepth)
	}
	out := make([]float32, len(buf.Data))
	for i, v := range buf.Data {
		out[i] = float32(v) / 32768
	}
	return out
}

// TestReference runs the Go network over two 16 kHz recordings (LibriVox's
// of testdata and, with the real material, picovoice's)
// and compares every chunk's probability with onnxruntime's on the ONNX
// model (testdata/ref_*.json, made by gen/ref.mjs).
func TestReference(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"en_librivox_sense_sensibility_0870": filepath.Join("..", "..", "testdata", "recordings")}
	if dir := realdata.Optional(t); dir != "" {
		dirs["fr_picovoice_leopard_test_fr"] = filepath.Join(dir, "recordings")
	}
	for _, name := range []string{"en_librivox_sense_sensibility_0870", "fr_picovoice_leopard_test_fr"} {
		if dirs[name] == "" {
			continue
		}
		x := readWAV(t, filepath.Join(dirs[name], name+".wav"))
		b, err := os.ReadFile(filepath.Join("testdata", "ref_"+name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var ref []float64
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatal(err)
		}
		if want := len(x) / Chunk; len(ref) != want {
			t.Fatalf("%s: %d reference chunks, the signal has %d", name, len(ref), want)
		}
		s := m.NewStream()
		worst, speech := 0.0, 0
		for i, r := range ref {
			p := float64(s.Process(x[i*Chunk:]))
			worst = max(worst, math.Abs(p-r))
			if p >= 0.5 {
				speech++
			}
		}
		if worst > 1e-4 {
			t.Errorf("%s: a probability differs from onnxruntime's by %.2g (max 1e-4)", name, worst)
		}
		// The recordings are mostly speech: the network must say so.
		if speech < len(ref)/2 {
			t.Errorf("%s: %d of %d chunks over 0.5", name, speech, len(ref))
		}
		t.Logf("%s: %d chunks, %d over 0.5, largest difference from onnxruntime %.2g", name, len(ref), speech, worst)
		// Reset starts the signal again: the same first probabilities.
		s.Reset()
		if p := float64(s.Process(x)); math.Abs(p-ref[0]) > 1e-4 {
			t.Errorf("%s: after Reset the first chunk gives %v, want %v", name, p, ref[0])
		}
	}
}

// TestProcessAllocs: the per-chunk path allocates nothing.
func TestProcessAllocs(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewStream()
	x := make([]float32, Chunk)
	for i := range x {
		x[i] = float32(math.Sin(float64(i) / 7))
	}
	if a := testing.AllocsPerRun(20, func() { s.Process(x) }); a != 0 {
		t.Errorf("Process allocates %v times a chunk", a)
	}
}

// TestParseErrors: a damaged weight file is an error, never a panic.
func TestParseErrors(t *testing.T) {
	for _, b := range [][]byte{nil, weightFile[:3], weightFile[:100], weightFile[:len(weightFile)-4], append(append([]byte{}, weightFile...), 0)} {
		if _, err := parse(b); err == nil {
			t.Errorf("parse of %d bytes: no error", len(b))
		}
	}
	bad := append([]byte{}, weightFile...)
	bad[0]++
	if _, err := parse(bad); err == nil {
		t.Error("parse with a wrong tensor size: no error")
	}
}

// BenchmarkProcess measures one chunk (32 ms of audio).
func BenchmarkProcess(b *testing.B) {
	m, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	s := m.NewStream()
	x := make([]float32, Chunk)
	for i := range x {
		x[i] = float32(math.Sin(float64(i) / 7))
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Process(x)
	}
	b.ReportMetric(float64(Chunk)/Rate/(b.Elapsed().Seconds()/float64(b.N)), "x_realtime")
}
