package main

import (
	"encoding/binary"
	"math"
	"testing"
)

// pb builds protobuf fields: a length-delimited field.
func pbBytes(num int, b []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(num)<<3|2)
	out = binary.AppendUvarint(out, uint64(len(b)))
	return append(out, b...)
}

func pbVarint(num int, v uint64) []byte {
	return binary.AppendUvarint(binary.AppendUvarint(nil, uint64(num)<<3), v)
}

// TestWalk: the minimal reader finds a float tensor of a Constant node
// inside an If node's branch, with its name, dims and values.
func TestWalk(t *testing.T) {
	var raw []byte
	for _, v := range []float32{1.5, -2, 0.25} {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	tensorPB := append(append(append(pbVarint(1, 3), pbVarint(2, 1)...), pbBytes(8, []byte("w"))...), pbBytes(9, raw)...)
	constNode := pbBytes(1, pbBytes(5, append(pbBytes(1, []byte("value")), pbBytes(5, tensorPB)...)))
	ifNode := pbBytes(1, pbBytes(5, append(pbBytes(1, []byte("then_branch")), pbBytes(6, constNode)...)))
	var got []tensor
	var paths []string
	err := walk(ifNode, "", func(path, name string, tt tensor) {
		if name == "w" {
			got, paths = append(got, tt), append(paths, path)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || paths[0] != "/then_branch" || len(got[0].dims) != 1 || got[0].dims[0] != 3 || got[0].data[1] != -2 {
		t.Fatalf("walk found %v at %v", got, paths)
	}
	if _, err := parse([]byte{0x0a, 0x05, 1}); err == nil {
		t.Error("a truncated field parsed")
	}
}
