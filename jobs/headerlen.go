package jobs

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/autocut-dev/autocut/dsp"
)

// An upload whose header tells its length is judged against the duration
// limit before it is stored: a WAV whose header gives more than the limit
// and whose declared size agrees, an MP3 whose Xing/Info frame does, or an
// MP4 (QuickTime) whose movie header comes first and does, is refused at once (422 too_long) instead of after storing gigabytes; a WAV
// is stored only up to the bytes the limit allows (its byte rate times the
// limit), so that a file of unknown length, or one whose header tells less
// than it holds, stops at the limit too. A header that claims more than
// the declared size holds (a truncated file) is not trusted: the analysis
// reads what there is, as before.

// wavTrailerSlack is room for the chunks a WAV may hold after its samples
// (LIST, id3, cue) in the byte limit of storing.
const wavTrailerSlack = 1 << 20

// wavLength is what a WAV header tells of the file's length.
type wavLength struct {
	dataOffset  int64   // where the samples start
	bytesPerSec int64   // block align times the sample rate
	seconds     float64 // the data chunk's length; 0 when not given (streamed)
}

// parseWAVLength reads a RIFF/RF64/BW64 WAVE header from head (the first
// bytes of the file); ok is false when head holds no complete header.
func parseWAVLength(head []byte) (l wavLength, ok bool) {
	if len(head) < 12 || string(head[8:12]) != "WAVE" {
		return l, false
	}
	rf64 := false
	switch string(head[:4]) {
	case "RIFF":
	case "RF64", "BW64":
		rf64 = true
	default:
		return l, false
	}
	var dataSize, ds64Size uint64
	for off := 12; off+8 <= len(head); {
		id, size := string(head[off:off+4]), uint64(binary.LittleEndian.Uint32(head[off+4:off+8]))
		body := off + 8
		switch id {
		case "ds64":
			if body+16 <= len(head) {
				ds64Size = binary.LittleEndian.Uint64(head[body+8 : body+16])
			}
		case "fmt ":
			if body+16 > len(head) {
				return l, false
			}
			rate := int64(binary.LittleEndian.Uint32(head[body+4 : body+8]))
			align := int64(binary.LittleEndian.Uint16(head[body+12 : body+14]))
			l.bytesPerSec = rate * align
		case "data":
			if l.bytesPerSec <= 0 {
				return l, false
			}
			dataSize = size
			if rf64 && size == 0xFFFFFFFF {
				dataSize = ds64Size
			}
			l.dataOffset = int64(body)
			if dataSize != 0 && dataSize != 0xFFFFFFFF {
				l.seconds = float64(dataSize) / float64(l.bytesPerSec)
			}
			return l, true
		}
		if size > uint64(len(head)) {
			return l, false
		}
		off = body + int(size) + int(size&1)
	}
	return l, false
}

// lengthLimit judges an upload by its first bytes against the duration
// limit. It returns dsp.TooLongError when the header gives more than the
// limit and size (the declared length, 0 when unknown) holds that much;
// else the most bytes the upload may hold (0: no limit known from the
// header).
func (m *Manager) lengthLimit(container string, head []byte, size int64, name string) (maxBytes int64, err error) {
	limit := m.cfg.MaxDuration.Seconds()
	tooLong := func(sec float64) error { return &dsp.TooLongError{Name: name, Duration: sec, Limit: limit} }
	switch container {
	case "wav", "rf64":
		l, ok := parseWAVLength(head)
		if !ok {
			return 0, nil
		}
		allowed := l.dataOffset + int64(limit*float64(l.bytesPerSec))
		if l.seconds > limit && size > allowed {
			return 0, tooLong(l.seconds)
		}
		return allowed + wavTrailerSlack, nil
	case "mp3":
		// A Xing/Info frame counts the frames the encoder wrote.
		if sec, ok := dsp.MP3GaplessDuration(head); ok && sec > limit {
			return 0, tooLong(sec)
		}
	case "mp4", "mov":
		// The movie header, when the index comes first (as the analysis
		// reads it: it fails too_long on the same figure).
		if sec, ok := mp4Duration(head); ok && sec > limit {
			return 0, tooLong(sec)
		}
	}
	return 0, nil
}

// mp4Duration reads the movie's duration from the mvhd box of a moov box
// that starts in head (an MP4 or QuickTime file whose index precedes its
// media); ok is false when head holds none.
func mp4Duration(head []byte) (sec float64, ok bool) {
	box := func(b []byte, off int) (typ string, start, end int, ok bool) {
		if off+8 > len(b) {
			return "", 0, 0, false
		}
		size := int64(binary.BigEndian.Uint32(b[off:]))
		typ, start = string(b[off+4:off+8]), off+8
		switch size {
		case 1: // 64-bit size
			if off+16 > len(b) {
				return "", 0, 0, false
			}
			size, start = int64(binary.BigEndian.Uint64(b[off+8:])), off+16
		case 0: // to the end of the file
			size = int64(len(b) - off)
		}
		if size < int64(start-off) {
			return "", 0, 0, false
		}
		return typ, start, off + int(min(size, int64(len(b)-off))), true
	}
	for off := 0; off < len(head); {
		typ, start, end, ok := box(head, off)
		if !ok {
			return 0, false
		}
		if typ == "moov" {
			for c := start; c < end; {
				ct, cs, ce, ok := box(head, c)
				if !ok {
					return 0, false
				}
				if ct == "mvhd" {
					b := head[cs:ce]
					var scale, dur uint64
					switch {
					case len(b) >= 32 && b[0] == 1:
						scale, dur = uint64(binary.BigEndian.Uint32(b[20:])), binary.BigEndian.Uint64(b[24:])
					case len(b) >= 20 && b[0] == 0:
						scale, dur = uint64(binary.BigEndian.Uint32(b[12:])), uint64(binary.BigEndian.Uint32(b[16:]))
					default:
						return 0, false
					}
					if scale == 0 || dur == 0 || dur == 0xFFFFFFFF || dur == 1<<64-1 {
						return 0, false // unknown (fragmented, streamed)
					}
					return float64(dur) / float64(scale), true
				}
				if ce <= c {
					return 0, false
				}
				c = ce
			}
			return 0, false
		}
		if typ == "mdat" || end <= off {
			return 0, false // the media first: the index follows
		}
		off = end
	}
	return 0, false
}

// durationLimitReader ends an upload with dsp.ErrTooLong once it holds
// more than max bytes (the duration limit at the header's byte rate).
type durationLimitReader struct {
	r         io.Reader
	left, max int64
	limit     float64
}

func (d *durationLimitReader) Read(p []byte) (int, error) {
	if d.left < 0 {
		return 0, fmt.Errorf("%w: the file holds more than %.0f s of audio at its header's byte rate (more than %d bytes), over the %.0f s limit",
			dsp.ErrTooLong, d.limit, d.max, d.limit)
	}
	if int64(len(p)) > d.left+1 {
		p = p[:d.left+1]
	}
	n, err := d.r.Read(p)
	d.left -= int64(n)
	if d.left < 0 {
		return n, nil // the next read reports it
	}
	return n, err
}
