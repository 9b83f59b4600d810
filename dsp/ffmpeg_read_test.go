package dsp

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// choppyReader yields its bytes in reads of 1 to 37 bytes, as a pipe may
// (a read can end anywhere, inside a sample or a frame).
type choppyReader struct {
	b   []byte
	rng *rand.Rand
}

func (c *choppyReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+c.rng.IntN(37))], c.b)
	c.b = c.b[n:]
	return n, nil
}

// TestFFmpegStreamPartialFrames feeds the ffmpeg stream's reader 3-channel
// float32 samples (12-byte frames) in reads that end inside frames: every
// sample must come out, in order, none lost or shifted.
func TestFFmpegStreamPartialFrames(t *testing.T) {
	const ch = 3
	want := make([]float32, ch*5003)
	var data []byte
	for i := range want {
		want[i] = float32(math.Sin(float64(i) * 0.01))
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(want[i]))
	}
	cmd := exec.Command("true") // stands for ffmpeg: Read waits for it at the end
	if err := cmd.Start(); err != nil {
		t.Skip("no true(1):", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &ffmpegStream{format: Format{SampleRate: 8000, Channels: ch}, ctx: ctx, cancel: cancel, cmd: cmd,
		r: bufio.NewReaderSize(&choppyReader{b: data, rng: rand.New(rand.NewPCG(1, 2))}, 16)}
	var got []float32
	buf := make([]float32, 7*ch)
	for {
		n, err := s.Read(buf)
		if n%ch != 0 {
			t.Fatalf("read %d samples, not whole frames", n)
		}
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("samples differ (-want +got):\n%s", d)
	}
}
