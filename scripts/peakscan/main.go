// Command peakscan is scripts/perf's baseline: the least an analysis that
// cuts silences can do, as auto-editor does it. It reads a 16-bit PCM WAV
// file and computes only the largest |sample| of every 1/30 s; with
// -copy it also writes the WAV file of the ranges an `autocut analyze`
// JSON document keeps (its plan.keep), copying their bytes.
//
//	peakscan x.wav
//	peakscan -copy analysis.json -o kept.wav x.wav
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
)

func main() {
	keepJSON := flag.String("copy", "", "an `autocut analyze` JSON document whose plan.keep ranges are copied")
	out := flag.String("o", "", "the WAV file -copy writes")
	flag.Parse()
	if flag.NArg() != 1 || (*keepJSON == "") != (*out == "") {
		fmt.Fprintln(os.Stderr, "usage: peakscan [-copy analysis.json -o out.wav] x.wav")
		os.Exit(2)
	}
	var err error
	if *keepJSON != "" {
		err = copyKept(flag.Arg(0), *keepJSON, *out)
	} else {
		err = scan(flag.Arg(0))
	}
	if err != nil {
		slog.Error("peakscan", "err", err)
		os.Exit(1)
	}
}

// wavFile is a 16-bit PCM WAV file's layout.
type wavFile struct {
	f              *os.File
	channels, rate int
	fmtChunk       []byte
	data, size     int64 // offset and length of the data chunk
}

func openWAV(path string) (*wavFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	w := &wavFile{f: f}
	var riff [12]byte
	if _, err := io.ReadFull(f, riff[:]); err != nil || string(riff[:4]) != "RIFF" || string(riff[8:]) != "WAVE" {
		f.Close()
		return nil, fmt.Errorf("%s: not a RIFF WAVE file", path)
	}
	off := int64(12)
	for {
		var h [8]byte
		if _, err := f.ReadAt(h[:], off); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: no data chunk: %w", path, err)
		}
		size := int64(binary.LittleEndian.Uint32(h[4:]))
		switch string(h[:4]) {
		case "fmt ":
			w.fmtChunk = make([]byte, size)
			if _, err := f.ReadAt(w.fmtChunk, off+8); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: fmt chunk: %w", path, err)
			}
			w.channels = int(binary.LittleEndian.Uint16(w.fmtChunk[2:]))
			w.rate = int(binary.LittleEndian.Uint32(w.fmtChunk[4:]))
			if bits := binary.LittleEndian.Uint16(w.fmtChunk[14:]); bits != 16 || w.channels < 1 || w.rate < 30 {
				f.Close()
				return nil, fmt.Errorf("%s: %d-bit, %d channels at %d Hz: 16-bit PCM only", path, bits, w.channels, w.rate)
			}
		case "data":
			if w.fmtChunk == nil {
				f.Close()
				return nil, fmt.Errorf("%s: data before fmt", path)
			}
			w.data, w.size = off+8, size
			return w, nil
		}
		off += 8 + size + size&1
	}
}

// scan prints the number of 1/30 s frames and the largest of their peaks.
func scan(path string) error {
	w, err := openWAV(path)
	if err != nil {
		return err
	}
	defer w.f.Close()
	frame := w.rate / 30 * w.channels // samples per 1/30 s
	peaks := make([]int32, 0, w.size/int64(2*frame)+1)
	r := bufio.NewReaderSize(io.NewSectionReader(w.f, w.data, w.size), 1<<16)
	buf := make([]byte, 1<<16)
	var peak int32
	n := 0 // samples of the current frame
	for {
		k, err := io.ReadFull(r, buf)
		for i := 0; i+1 < k; i += 2 {
			v := int32(int16(binary.LittleEndian.Uint16(buf[i:])))
			if v < 0 {
				v = -v
			}
			peak = max(peak, v)
			if n++; n == frame {
				peaks, peak, n = append(peaks, peak), 0, 0
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if n > 0 {
		peaks = append(peaks, peak)
	}
	loudest := int32(0)
	for _, p := range peaks {
		loudest = max(loudest, p)
	}
	fmt.Printf("%d frames of 1/30 s, loudest peak %d\n", len(peaks), loudest)
	return nil
}

// copyKept writes the WAV file of the ranges the analysis keeps.
func copyKept(path, analysis, out string) error {
	var doc struct {
		Plan struct {
			Keep []struct{ Start, End float64 } `json:"keep"`
		} `json:"plan"`
	}
	b, err := os.ReadFile(analysis)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", analysis, err)
	}
	w, err := openWAV(path)
	if err != nil {
		return err
	}
	defer w.f.Close()
	align := int64(2 * w.channels)
	frames := w.size / align
	var total int64
	type span struct{ from, to int64 }
	var spans []span
	for _, k := range doc.Plan.Keep {
		from := min(max(int64(k.Start*float64(w.rate)), 0), frames)
		to := min(max(int64(k.End*float64(w.rate)), from), frames)
		spans = append(spans, span{from, to})
		total += (to - from) * align
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(o, 1<<16)
	h := make([]byte, 0, 44)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(4+8+len(w.fmtChunk)+8+int(total)))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(w.fmtChunk)))
	h = append(h, w.fmtChunk...)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(total))
	if _, err := bw.Write(h); err != nil {
		o.Close()
		return err
	}
	for _, s := range spans {
		if _, err := io.Copy(bw, io.NewSectionReader(w.f, w.data+s.from*align, (s.to-s.from)*align)); err != nil {
			o.Close()
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}
