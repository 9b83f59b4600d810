package jobs

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/apiv1"
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

// mp4Box is an MP4 box of type typ holding body.
func mp4Box(typ string, body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(8+len(b)))
	return append(append(out, typ...), b...)
}

// mvhd is a movie header box of the version with the timescale and duration.
func mvhd(version byte, scale uint32, dur uint64) []byte {
	b := []byte{version, 0, 0, 0}
	if version == 1 {
		b = append(b, make([]byte, 16)...)
		b = binary.BigEndian.AppendUint32(b, scale)
		b = binary.BigEndian.AppendUint64(b, dur)
	} else {
		b = append(b, make([]byte, 8)...)
		b = binary.BigEndian.AppendUint32(b, scale)
		b = binary.BigEndian.AppendUint32(b, uint32(dur))
	}
	return mp4Box("mvhd", append(b, make([]byte, 80)...))
}

func TestMP4Duration(t *testing.T) {
	ftyp := mp4Box("ftyp", []byte("isom\x00\x00\x02\x00isomiso2mp41"))
	for _, tc := range []struct {
		name string
		head []byte
		sec  float64
		ok   bool
	}{
		{"moov first, version 0", append(ftyp, mp4Box("moov", mvhd(0, 1000, 4*3600*1000), mp4Box("trak"))...), 4 * 3600, true},
		{"moov first, version 1", append(ftyp, mp4Box("moov", mvhd(1, 48000, 48000*100))...), 100, true},
		{"free box before moov", append(append(ftyp, mp4Box("free", make([]byte, 100))...), mp4Box("moov", mvhd(0, 600, 600*30))...), 30, true},
		{"media first", append(ftyp, mp4Box("mdat", make([]byte, 64))...), 0, false},
		{"fragmented: duration 0", append(ftyp, mp4Box("moov", mvhd(0, 1000, 0))...), 0, false},
		{"cut before mvhd", append(ftyp, mp4Box("moov", mvhd(0, 1000, 5000))[:12]...), 0, false},
		{"not MP4", []byte("RIFF\x00\x00\x00\x00WAVE"), 0, false},
	} {
		sec, ok := mp4Duration(tc.head)
		if ok != tc.ok || sec != tc.sec {
			t.Errorf("%s: %g %v, want %g %v", tc.name, sec, ok, tc.sec, tc.ok)
		}
	}
}

// TestCreateTooLongMP4: an MP4 upload whose movie header (first) gives 4
// hours is refused too_long before anything is stored.
func TestCreateTooLongMP4(t *testing.T) {
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, nil)
	ftyp := mp4Box("ftyp", []byte("isom\x00\x00\x02\x00isomiso2mp41"))
	head := append(ftyp, mp4Box("moov", mvhd(0, 1000, 4*3600*1000))...)
	_, err := m.Create(context.Background(), CreateRequest{Owner: "o", Name: "long.mp4"}, io.MultiReader(bytes.NewReader(head), bytes.NewReader(make([]byte, 1<<20))))
	if ErrorCode(err) != apiv1.CodeTooLong {
		t.Fatalf("Create: %v (code %s), want too_long", err, ErrorCode(err))
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "media", "originals")); len(ents) > 0 {
		t.Errorf("%d files stored", len(ents))
	}
}
