package dsp_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"math"
	"time"

	"github.com/autocut-dev/autocut/dsp"
)

// talk is a generated signal: a 1 kHz tone at -20 dBFS for a second,
// two seconds of digital silence, the tone again for a second; 48 kHz mono.
type talk struct{ pos int }

func (t *talk) Format() dsp.Format { return dsp.Format{SampleRate: 48000, Channels: 1} }

func (t *talk) Read(p []float32) (int, error) {
	const total = 4 * 48000
	if t.pos >= total {
		return 0, io.EOF
	}
	n := min(len(p), total-t.pos)
	for i := range n {
		s := t.pos + i
		if sec := s / 48000; sec == 0 || sec == 3 {
			p[i] = float32(0.1 * math.Sin(2*math.Pi*1000*float64(s)/48000))
		} else {
			p[i] = 0
		}
	}
	t.pos += n
	return n, nil
}

// Measure a generated signal in one streaming pass: any Source will do.
func ExampleAnalyze() {
	a, err := dsp.Analyze(context.Background(), &talk{}, dsp.Info{Name: "talk"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %.1f s, %d envelope frames of %.0f ms\n", a.Input.Name, a.Input.Duration, a.Envelope.Frames(), a.Envelope.FrameSec*1000)
	fmt.Printf("sample peak %.1f dBFS, integrated %.1f LUFS\n", a.Loudness.SamplePeak, a.Loudness.Integrated)
	// Output:
	// talk: 4.0 s, 400 envelope frames of 10 ms
	// sample peak -20.0 dBFS, integrated -23.7 LUFS
}

// wavFile encodes the talk signal as a 16-bit WAV file in memory.
func wavFile() []byte {
	var samples []float32
	buf := make([]float32, 4096)
	src := &talk{}
	for {
		n, err := src.Read(buf)
		samples = append(samples, buf[:n]...)
		if err == io.EOF {
			break
		}
	}
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + 2*len(samples)))
	b.WriteString("WAVEfmt ")
	w([]uint32{16})
	w([]uint16{1, 1})
	w([]uint32{48000, 2 * 48000})
	w([]uint16{2, 16})
	b.WriteString("data")
	w(uint32(2 * len(samples)))
	for _, s := range samples {
		w(int16(math.Round(float64(s) * 32767)))
	}
	return b.Bytes()
}

// Decode media from any io.Reader (a network body, a pipe, a blob): the
// format is sniffed from its first bytes, never taken from the name.
func ExampleDecode() {
	s, err := dsp.Decode(context.Background(), bytes.NewReader(wavFile()), "talk.mp3")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	in := s.Info()
	fmt.Printf("%s: %s %s, %d Hz, %d channel, %.1f s\n", in.Name, in.Format, in.Codec, in.SampleRate, in.Channels, in.Duration)
	// Output:
	// talk.mp3: wav pcm_s16le, 48000 Hz, 1 channel, 4.0 s
}

// Analyse a stream with a length limit: a longer input stops with
// ErrTooLong as soon as its header (or its decoding) shows it.
func ExampleAnalyzeReader() {
	ctx := context.Background()
	a, err := dsp.AnalyzeReader(ctx, bytes.NewReader(wavFile()), "talk.wav", dsp.AnalyzeOptions{MaxDuration: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.1f s, threshold %.0f dB under the speech level\n", a.Input.Duration, a.SpeechLevelDb-a.ThresholdDb)
	_, err = dsp.AnalyzeReader(ctx, bytes.NewReader(wavFile()), "talk.wav", dsp.AnalyzeOptions{MaxDuration: 3 * time.Second})
	fmt.Println(err)
	// Output:
	// 4.0 s, threshold 40 dB under the speech level
	// input too long: talk.wav lasts 4 s, over the 3 s limit
}

// Store an analysis and load it back to plan again without decoding.
func ExampleAnalysis_MarshalBinary() {
	a, err := dsp.Analyze(context.Background(), &talk{}, dsp.Info{Name: "talk"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	b, err := a.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	var back dsp.Analysis
	if err := back.UnmarshalBinary(b); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes; %s, %d frames, %.1f LUFS\n", len(b), back.Input.Name, back.Envelope.Frames(), back.Loudness.Integrated)
	// Output:
	// 10073 bytes; talk, 400 frames, -23.7 LUFS
}
