package timeline

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// edlMaxEvents is CMX 3600's limit of events per list.
const edlMaxEvents = 999

// edlReel is the reel name of every event (auxiliary source; at most 8 characters).
const edlReel = "AX"

// edlTracks returns the track fields of one kept range: V and the audio
// (AA for stereo, A for mono) as separate events for a video source.
func edlTracks(m Media) []string {
	a := "AA"
	if m.Channels == 1 {
		a = "A"
	}
	if m.HasVideo {
		return []string{"V", a}
	}
	return []string{a}
}

func (e *edit) edlEvents(tr *track) int { return len(tr.segs) * len(edlTracks(tr.m)) }

// edlParts splits a track's segments so no list passes 999 events (the
// events of one segment stay in one list).
func (e *edit) edlParts(tr *track) [][]Segment {
	per := edlMaxEvents / len(edlTracks(tr.m))
	var parts [][]Segment
	for i := 0; i < len(tr.segs); i += per {
		parts = append(parts, tr.segs[i:min(i+per, len(tr.segs))])
	}
	return parts
}

// writeEDL writes a CMX 3600 list of segs. Record timecode starts at
// 01:00:00:00, the usual programme start, and runs on across split lists; source timecode is the media's start
// timecode plus the frame. Part numbers name split lists. Each event is
// followed by the comment lines through which editors link it to its
// media, as CMX 3600 itself has only the reel: "* FROM CLIP NAME:" (the
// file name: Premiere, Resolve, Avid), "* FROM FILE:" (the media path:
// OpenTimelineIO and Nucoda read it as the clip's media reference) and
// "* SOURCE FILE:" (the same path, as Avid and Resolve write it). Lines
// end in CR LF, as CMX 3600 lists always have (editors read LF too).
func (e *edit) writeEDL(w io.Writer, tr *track, segs []Segment, part, parts int) error {
	bw := bufio.NewWriter(w)
	title := e.title
	if len(e.tracks) > 1 {
		title = fmt.Sprintf("%s, track %d (%s)", title, e.trackNumber(tr), tr.m.Name)
	}
	if parts > 1 {
		title = fmt.Sprintf("%s part %d of %d", title, part, parts)
	}
	fcm := "NON-DROP FRAME"
	if e.drop {
		fcm = "DROP FRAME"
	}
	fmt.Fprintf(bw, "TITLE: %s\r\nFCM: %s\r\n\r\n", edlText(title), fcm)
	recStart := 3600 * e.fps // 01:00:00:00 in frames of the nominal rate
	if e.drop {
		recStart -= (e.fps / 15) * (60 - 6) // 01:00:00;00 in drop-frame counting
	}
	// Each event is built in one reused buffer: fixed columns are
	// event (3), reel (8), track (5), transition (8), then four timecodes.
	tracks := edlTracks(tr.m)
	source := tr.m.Path
	if source == "" {
		source = tr.m.File
	}
	source, clipName := edlText(source), edlText(tr.m.File)
	line := make([]byte, 0, 160+2*len(source))
	pad := func(b []byte, s string, w int) []byte {
		b = append(b, s...)
		for i := len(s); i < w; i++ {
			b = append(b, ' ')
		}
		return b
	}
	n := int64(0)
	for _, s := range segs {
		for _, field := range tracks {
			n++
			line = line[:0]
			if n < 100 {
				line = append(line, '0')
			}
			line = append2(line, n)
			line = append(line, "  "...)
			line = pad(line, edlReel, 8)
			line = append(line, ' ')
			line = pad(line, field, 5)
			line = append(line, " C        "...)
			line = appendTimecode(line, tr.tc+s.SrcIn, e.fps, e.drop)
			line = append(line, ' ')
			line = appendTimecode(line, tr.tc+s.SrcOut, e.fps, e.drop)
			line = append(line, ' ')
			line = appendTimecode(line, recStart+s.RecIn, e.fps, e.drop)
			line = append(line, ' ')
			line = appendTimecode(line, recStart+s.RecOut, e.fps, e.drop)
			line = append(line, "\r\n* FROM CLIP NAME: "...)
			line = append(line, clipName...)
			line = append(line, "\r\n* FROM FILE: "...)
			line = append(line, source...)
			line = append(line, "\r\n* SOURCE FILE: "...)
			line = append(line, source...)
			line = append(line, "\r\n\r\n"...)
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// trackNumber is tr's number in the edit, from 1.
func (e *edit) trackNumber(tr *track) int {
	for i := range e.tracks {
		if &e.tracks[i] == tr {
			return i + 1
		}
	}
	return 0
}

// edlText is s on one EDL line: a control character (a line break in a
// file name) would end the line and start a line of its own, read as an
// event or a comment, so each is written as a space.
func edlText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
