package transcode_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
)

// Render a cut to memory: two seconds of a 16 kHz tone, of which the plan
// keeps 0.25-0.75 s and 1.5-2 s, written as a WAV file into a bytes.Buffer.
// The header is exact although nothing is seeked: RenderTo knows the kept
// length from the plan before it decodes anything.
func ExampleRenderTo() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "tone.wav")
	if err := os.WriteFile(in, toneWAV(16000, 2), 0o644); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	a, err := dsp.AnalyzeFile(ctx, in, nil)
	if err != nil {
		log.Fatal(err)
	}
	p := &plan.Plan{Keep: []dsp.Range{{Start: 0.25, End: 0.75}, {Start: 1.5, End: 2}}}
	var buf bytes.Buffer
	res, err := transcode.RenderTo(ctx, in, a, p, transcode.Options{Format: "wav", Normalize: "none"}, &buf, nil)
	if err != nil {
		log.Fatal(err)
	}
	b := buf.Bytes()
	fmt.Printf("%s, %.2f s, %d bytes\n", res.Format, res.Duration, res.Size)
	fmt.Printf("%s header, %d bytes of samples\n", b[:4], binary.LittleEndian.Uint32(b[76:80])) // the data chunk's size
	// Output:
	// wav, 1.00 s, 32080 bytes
	// RIFF header, 32000 bytes of samples
}

// toneWAV returns a 16-bit mono WAV file of sec seconds of a 440 Hz tone.
func toneWAV(rate, sec int) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	n := rate * sec
	b.WriteString("RIFF")
	w(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	w([]uint32{16})
	w([]uint16{1, 1})
	w([]uint32{uint32(rate), uint32(2 * rate)})
	w([]uint16{2, 16})
	b.WriteString("data")
	w(uint32(2 * n))
	for i := 0; i < n; i++ {
		w(int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate))))
	}
	return b.Bytes()
}
