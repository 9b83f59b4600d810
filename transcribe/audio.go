package transcribe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/proc"
	"github.com/autocut-dev/autocut/internal/tail"
)

// to16kWAV converts any media file to 16 kHz mono 16-bit WAV in dir (what
// both engines read), returning its path. ffmpeg decodes and resamples
// it, keeping its channels, and the mono mix is made here as the voice
// detector makes its own: the channels' mean, but for two channels in
// opposite polarity (a cable wired the other way round, dsp.Polarity)
// half their difference, since their mean, which ffmpeg's mono mix
// gives, is silent.
func to16kWAV(ctx context.Context, in, dir string) (string, error) {
	out := filepath.Join(dir, "speech-16k.wav")
	f, err := os.Create(out)
	if err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	defer f.Close()
	cmd := proc.Command(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", in, "-vn", "-ar", "16000", "-c:a", "pcm_f32le", "-f", "wav", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pcm, err := cmd.StdoutPipe()
	if err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("transcribe: convert to 16 kHz: %w", err)
	}
	werr := monoWAV(f, pcm)
	if werr != nil {
		io.Copy(io.Discard, pcm) // let ffmpeg finish
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("transcribe: convert to 16 kHz: %v: %s", err, tail.Lines(strings.TrimSpace(stderr.String()), 3))
	}
	if werr != nil {
		return "", fmt.Errorf("transcribe: convert to 16 kHz: %w", werr)
	}
	return out, f.Close()
}

// monoWAV reads the WAV stream ffmpeg writes (16 kHz float samples, any
// channels) from r and writes it to w as a 16-bit mono WAV file, the
// channels mixed down 10 ms at a time (dsp.Polarity for two).
func monoWAV(w io.WriteSeeker, r io.Reader) error {
	src, err := dsp.NewWAVReader(r)
	if err != nil {
		return err
	}
	ch := src.Format().Channels
	if rate := src.Format().SampleRate; rate != 16000 {
		return fmt.Errorf("%d Hz from ffmpeg, want 16000", rate)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.Write(make([]byte, 44)); err != nil { // the header, once the size is known
		return err
	}
	const frame = 160 // 10 ms
	buf := make([]float32, frame*ch)
	out := make([]byte, 2*frame)
	var pol dsp.Polarity
	var frames int64
	for {
		n, err := 0, error(nil)
		for n < len(buf) && err == nil {
			var m int
			m, err = src.Read(buf[n:])
			n += m
		}
		k := n / ch
		s := buf[:k*ch]
		sign := float32(1)
		if ch == 2 && k > 0 && pol.Frame(s) {
			sign = -1
		}
		for i := range k {
			var v float32
			switch ch {
			case 1:
				v = s[i]
			case 2:
				v = (s[2*i] + sign*s[2*i+1]) * 0.5
			default:
				for _, x := range s[i*ch : (i+1)*ch] {
					v += x
				}
				v /= float32(ch)
			}
			binary.LittleEndian.PutUint16(out[2*i:], uint16(int16(max(-32768, min(32767, math.Round(float64(v)*32768))))))
		}
		if _, err := bw.Write(out[:2*k]); err != nil {
			return err
		}
		frames += int64(k)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if frames*2 > math.MaxUint32-36 {
		return fmt.Errorf("%d samples: too long for a WAV file", frames)
	}
	data := uint32(frames * 2)
	h := make([]byte, 0, 44)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, 36+data)
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1) // PCM
	h = binary.LittleEndian.AppendUint16(h, 1) // mono
	h = binary.LittleEndian.AppendUint32(h, 16000)
	h = binary.LittleEndian.AppendUint32(h, 32000)
	h = binary.LittleEndian.AppendUint16(h, 2)
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, data)
	if _, err := w.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = w.Write(h)
	return err
}

// scratch makes a temporary directory removed by the returned func.
func scratch() (string, func(), error) {
	d, err := os.MkdirTemp("", "autocut-transcribe-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}
