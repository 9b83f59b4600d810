package jobs

import (
	"encoding/binary"
	"testing"
)

// chunk is a RIFF chunk: id, declared size, body.
func chunk(id string, size uint32, body []byte) []byte {
	b := append([]byte(id), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], size)
	return append(b, body...)
}

// fmtBody is a PCM fmt chunk's body.
func fmtBody(rate uint32, align uint16) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint16(b[0:], 1)
	binary.LittleEndian.PutUint16(b[2:], 2)
	binary.LittleEndian.PutUint32(b[4:], rate)
	binary.LittleEndian.PutUint32(b[8:], rate*uint32(align))
	binary.LittleEndian.PutUint16(b[12:], align)
	binary.LittleEndian.PutUint16(b[14:], 16)
	return b
}

func TestParseWAVLength(t *testing.T) {
	riff := func(kind string, chunks ...[]byte) []byte {
		b := append([]byte(kind), 0, 0, 0, 0)
		b = append(b, "WAVE"...)
		for _, c := range chunks {
			b = append(b, c...)
		}
		return b
	}
	ds64 := make([]byte, 28)
	binary.LittleEndian.PutUint64(ds64[8:], 48000*4*7200) // 2 hours of data
	for _, tc := range []struct {
		name string
		head []byte
		want wavLength
		ok   bool
	}{
		{"RIFF", riff("RIFF", chunk("fmt ", 16, fmtBody(48000, 4)), chunk("data", 48000*4*10, nil)), wavLength{44, 192000, 10}, true},
		{"a LIST chunk first (odd size, padded)", riff("RIFF", chunk("LIST", 3, []byte("abc\x00")), chunk("fmt ", 16, fmtBody(8000, 1)), chunk("data", 8000*60, nil)), wavLength{56, 8000, 60}, true},
		{"streamed: data size unknown", riff("RIFF", chunk("fmt ", 16, fmtBody(8000, 1)), chunk("data", 0xFFFFFFFF, nil)), wavLength{44, 8000, 0}, true},
		{"RF64 with ds64", riff("RF64", chunk("ds64", 28, ds64), chunk("fmt ", 16, fmtBody(48000, 4)), chunk("data", 0xFFFFFFFF, nil)), wavLength{80, 192000, 7200}, true},
		{"data before fmt", riff("RIFF", chunk("data", 100, nil)), wavLength{}, false},
		{"a chunk larger than the head", riff("RIFF", chunk("LIST", 1<<20, nil)), wavLength{}, false},
		{"not WAVE", []byte("RIFF\x00\x00\x00\x00AVI LIST"), wavLength{}, false},
		{"cut in fmt", riff("RIFF", chunk("fmt ", 16, fmtBody(8000, 1)[:8])), wavLength{}, false},
	} {
		got, ok := parseWAVLength(tc.head)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
