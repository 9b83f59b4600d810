package timeline

import (
	"fmt"
	"strconv"
	"strings"
)

// Timecode formats frame f at nominal fps (30 for 29.97) as HH:MM:SS:FF, or
// HH:MM:SS;FF drop-frame (frame numbers 0 and 1, or 0-3 at 59.94, skipped
// at the start of every minute but each tenth). An fps under 1 has no
// timecode: "".
func Timecode(f int64, fps int64, drop bool) string {
	if fps < 1 {
		return "" // (no timecode; it divided by zero)
	}
	var b [16]byte
	return string(appendTimecode(b[:0], f, fps, drop))
}

// appendTimecode appends Timecode(f, fps, drop) to b without allocating.
func appendTimecode(b []byte, f int64, fps int64, drop bool) []byte {
	sep := byte(':')
	if drop {
		sep = ';'
		d := fps / 15 // frames dropped per minute: 2 at 29.97, 4 at 59.94
		perMin := fps*60 - d
		per10 := perMin*10 + d
		tens, rem := f/per10, f%per10
		f += 9 * d * tens
		if rem > d {
			f += d * ((rem - d) / perMin)
		}
	}
	ff := f % fps
	s := f / fps
	b = append2(b, s/3600)
	b = append(b, ':')
	b = append2(b, s/60%60)
	b = append(b, ':')
	b = append2(b, s%60)
	b = append(b, sep)
	return append2(b, ff)
}

// append2 appends v as at least two decimal digits.
func append2(b []byte, v int64) []byte {
	if v >= 0 && v < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}

// ParseTimecode reads HH:MM:SS:FF (or ;FF drop-frame) at nominal fps into a frame number.
func ParseTimecode(tc string, fps int64) (frames int64, drop bool, err error) {
	drop = strings.Contains(tc, ";")
	parts := strings.FieldsFunc(tc, func(r rune) bool { return r == ':' || r == ';' })
	if len(parts) != 4 {
		return 0, false, fmt.Errorf("timecode %q: want HH:MM:SS:FF", tc)
	}
	var v [4]int64
	for i, p := range parts {
		if v[i], err = strconv.ParseInt(p, 10, 64); err != nil || v[i] < 0 {
			return 0, false, fmt.Errorf("timecode %q: bad field %q", tc, p)
		}
	}
	if v[1] > 59 || v[2] > 59 || v[3] >= fps {
		return 0, false, fmt.Errorf("timecode %q out of range at %d fps", tc, fps)
	}
	frames = ((v[0]*60+v[1])*60+v[2])*fps + v[3]
	if drop {
		d := fps / 15
		mins := v[0]*60 + v[1]
		if v[2] == 0 && v[3] < d && mins%10 != 0 {
			return 0, false, fmt.Errorf("timecode %q does not exist in drop-frame", tc)
		}
		frames -= d * (mins - mins/10)
	}
	return frames, drop, nil
}
