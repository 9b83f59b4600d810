// Command gen converts the Silero VAD v5 ONNX model (as shipped in the npm
// package @ricky0123/vad-web, dist/silero_vad_v5.onnx) into the compact
// weight file the silero package embeds: the 16 kHz branch's tensors, in
// the order the package reads them, as little-endian float32 preceded by
// their element counts. The STFT basis is not kept (the package builds it:
// a Hann-windowed DFT, checked here against the model's).
//
//	npm pack @ricky0123/vad-web@0.0.31 && tar xzf ricky0123-vad-web-0.0.31.tgz
//	go run ./internal/silero/gen package/dist/silero_vad_v5.onnx internal/silero/silero_vad_v5_16k.bin
//
// SHA-256 of silero_vad_v5.onnx in that package:
// 2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f; of the
// weight file it gives:
// 8209a01852eb53b86670f0a488cc61ac221514f17de32e638a098e54855e9c8d. The
// silero package's TestReference checks the Go network against onnxruntime
// on the ONNX model (gen/ref.mjs).
//
// The ONNX file is read with a minimal protobuf wire-format reader (the
// few ModelProto, GraphProto, NodeProto, AttributeProto and TensorProto
// fields needed), so the module needs no protobuf dependency.
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/autocut-dev/autocut/internal/silero"
)

// field is one protobuf field: its number, and its varint/fixed value or
// its bytes.
type field struct {
	num  int
	v    uint64
	data []byte
}

func parse(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad key")
		}
		b = b[n:]
		f := field{num: int(key >> 3)}
		switch key & 7 {
		case 0:
			f.v, n = binary.Uvarint(b)
			if n <= 0 {
				return nil, errors.New("bad varint")
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return nil, errors.New("short fixed64")
			}
			f.v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, errors.New("bad length")
			}
			f.data, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return nil, errors.New("short fixed32")
			}
			f.v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			return nil, fmt.Errorf("wire type %d", key&7)
		}
		out = append(out, f)
	}
	return out, nil
}

// tensor is a float tensor of the model.
type tensor struct {
	dims []int
	data []float32
}

// walk visits every Constant node's tensor in the graph g (and in the
// graphs of If nodes' branches); path says which branch holds it.
func walk(g []byte, path string, visit func(path, name string, t tensor)) error {
	fs, err := parse(g)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if f.num != 1 { // GraphProto.node
			continue
		}
		nf, err := parse(f.data)
		if err != nil {
			return err
		}
		for _, a := range nf {
			if a.num != 5 { // NodeProto.attribute
				continue
			}
			af, err := parse(a.data)
			if err != nil {
				return err
			}
			var name string
			for _, x := range af {
				if x.num == 1 {
					name = string(x.data)
				}
			}
			for _, x := range af {
				switch x.num {
				case 5: // AttributeProto.t
					name, t, err := readTensor(x.data)
					if err != nil {
						return err
					}
					if t.data != nil {
						visit(path, name, t)
					}
				case 6: // AttributeProto.g
					if err := walk(x.data, path+"/"+name, visit); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func readTensor(b []byte) (string, tensor, error) {
	fs, err := parse(b)
	if err != nil {
		return "", tensor{}, err
	}
	var t tensor
	var name string
	dtype := 0
	var raw []byte
	for _, f := range fs {
		switch f.num {
		case 1: // dims
			if f.data != nil {
				d := f.data
				for len(d) > 0 {
					v, n := binary.Uvarint(d)
					t.dims, d = append(t.dims, int(v)), d[n:]
				}
			} else {
				t.dims = append(t.dims, int(f.v))
			}
		case 2:
			dtype = int(f.v)
		case 8:
			name = string(f.data)
		case 9:
			raw = f.data
		}
	}
	if dtype != 1 || raw == nil { // float32 raw data only
		return name, tensor{}, nil
	}
	t.data = make([]float32, len(raw)/4)
	for i := range t.data {
		t.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return name, t, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen silero_vad_v5.onnx out.bin")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	fs, err := parse(b)
	if err != nil {
		return err
	}
	// The 16 kHz branch is the one whose STFT basis has 256 taps.
	found := map[string]map[string]tensor{}
	for _, f := range fs {
		if f.num == 7 { // ModelProto.graph
			err := walk(f.data, "", func(path, name string, t tensor) {
				if found[path] == nil {
					found[path] = map[string]tensor{}
				}
				found[path][name] = t
			})
			if err != nil {
				return err
			}
		}
	}
	var ts map[string]tensor
	for _, m := range found {
		if b, ok := m["stft.forward_basis_buffer"]; ok && len(b.dims) == 3 && b.dims[2] == silero.NFFT {
			ts = m
		}
	}
	if ts == nil {
		return errors.New("no 16 kHz branch (an STFT basis of 256 taps) in the model")
	}
	// The basis the package builds must be the model's.
	basis := ts["stft.forward_basis_buffer"]
	want := silero.Basis()
	if len(want) != len(basis.data) {
		return fmt.Errorf("basis: %d values, the package builds %d", len(basis.data), len(want))
	}
	worst := 0.0
	for i := range want {
		worst = max(worst, math.Abs(float64(want[i]-basis.data[i])))
	}
	if worst > 1e-5 {
		return fmt.Errorf("basis differs from the package's by up to %g", worst)
	}
	var buf []byte
	for _, name := range silero.TensorNames() {
		t, ok := ts[name]
		if !ok {
			return fmt.Errorf("no tensor %s in the 16 kHz branch", name)
		}
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(t.data)))
		for _, v := range t.data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
	}
	fmt.Printf("basis matches (max diff %.2g); %d bytes of weights\n", worst, len(buf))
	return os.WriteFile(out, buf, 0o644)
}
