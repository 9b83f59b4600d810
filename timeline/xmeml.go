package timeline

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// pathURL is the xmeml pathurl: file://localhost/ + the percent-encoded
// absolute path (a relative path stays a relative reference).
func pathURL(p string) string {
	u := fileURL(p)
	if strings.HasPrefix(u, "file:///") {
		return "file://localhost/" + strings.TrimPrefix(u, "file:///")
	}
	return u
}

// writeXMEML writes Final Cut Pro 7 XML (xmeml v5) as Premiere reads it: one
// full file definition per track then references, each track's stereo
// exploded into two mono tracks (mono: one), the clipitems of one kept
// range of one file linked together, and a sequence video format for
// audio-only media too.
func (e *edit) writeXMEML(w io.Writer) error {
	bw := bufio.NewWriter(w)
	ntsc := "FALSE"
	if e.rate.Den == 1001 {
		ntsc = "TRUE"
	}
	rate := fmt.Sprintf("<rate><timebase>%d</timebase><ntsc>%s</ntsc></rate>", e.fps, ntsc)
	df := "NDF"
	if e.drop {
		df = "DF"
	}
	// The sequence's audio tracks: each track's channels, stereo exploded
	// into two mono tracks (mono: one).
	type audioTrack struct{ track, channel, channels int }
	var audio []audioTrack
	outputs := 1
	for ti, tr := range e.tracks {
		n := 2
		if tr.m.Channels == 1 {
			n = 1
		}
		outputs = max(outputs, n)
		for c := range n {
			audio = append(audio, audioTrack{ti, c, n})
		}
	}
	width, height := e.frameSize()
	n := len(e.segs)
	// clipitem ids: video 1..n, then audio track a (0-based) a*n+1.. after the video ones.
	id := func(track, i int) int { return track*n + i + 1 } // track 0 = video when present
	audioIndex := func(a int) int { return a + boolInt(e.m.HasVideo) }

	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE xmeml>\n<xmeml version=\"5\">\n  <sequence id=\"sequence-1\">\n")
	fmt.Fprintf(bw, "    <name>%s</name>\n    <duration>%d</duration>\n    %s\n", attr(e.title), e.total(), rate)
	fmt.Fprintf(bw, "    <timecode>%s<string>%s</string><frame>0</frame><displayformat>%s</displayformat></timecode>\n    <media>\n",
		rate, Timecode(0, e.fps, e.drop), df)
	fileDone := make([]bool, len(e.tracks))
	// file is track ti's file element: its full definition the first time, then references.
	file := func(ti int) string {
		if fileDone[ti] {
			return fmt.Sprintf(`<file id="file-%d"/>`, ti+1)
		}
		fileDone[ti] = true
		tr := &e.tracks[ti]
		var b strings.Builder
		fmt.Fprintf(&b, "<file id=\"file-%d\"><name>%s</name><pathurl>%s</pathurl>%s<duration>%d</duration>", ti+1, attr(tr.m.File), attr(pathURL(tr.m.Path)), rate, tr.last)
		fmt.Fprintf(&b, "<timecode>%s<string>%s</string><frame>%d</frame><displayformat>%s</displayformat></timecode><media>", rate, Timecode(tr.tc, e.fps, e.drop), tr.tc, df)
		if tr.m.HasVideo {
			fmt.Fprintf(&b, "<video><samplecharacteristics>%s<width>%d</width><height>%d</height><pixelaspectratio>square</pixelaspectratio></samplecharacteristics></video>", rate, width, height)
		}
		fmt.Fprintf(&b, "<audio><samplecharacteristics><depth>16</depth><samplerate>%d</samplerate></samplecharacteristics><channelcount>%d</channelcount></audio></media></file>", tr.m.SampleRate, max(tr.m.Channels, 1))
		return b.String()
	}
	// Clipitems are built in one reused buffer (a 3-hour plan has tens of
	// thousands of them).
	buf := make([]byte, 0, 1024)
	num := func(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }
	elem := func(b []byte, tag string, v int64) []byte {
		b = append(b, '<')
		b = append(b, tag...)
		b = append(b, '>')
		b = num(b, v)
		b = append(b, "</"...)
		b = append(b, tag...)
		return append(b, '>')
	}
	link := func(b []byte, cid int, media string, track, clip int, group bool) []byte {
		b = append(b, "<link><linkclipref>clipitem-"...)
		b = num(b, int64(cid))
		b = append(b, "</linkclipref><mediatype>"...)
		b = append(b, media...)
		b = append(b, "</mediatype>"...)
		b = elem(b, "trackindex", int64(track))
		b = elem(b, "clipindex", int64(clip))
		if group {
			b = append(b, "<groupindex>1</groupindex>"...)
		}
		return append(b, "</link>"...)
	}
	names := make([]string, len(e.tracks))
	for ti, tr := range e.tracks {
		names[ti] = attr(tr.m.Name)
	}
	// clip writes clipitem cid of track ti's kept range i, linked to the
	// clipitems of the same range of its own file (the video's too, for
	// the first track).
	clip := func(ti, cid, i int, extra, attrs string) error {
		tr := &e.tracks[ti]
		s := tr.segs[i]
		b := append(buf[:0], "          <clipitem id=\"clipitem-"...)
		b = num(b, int64(cid))
		b = append(b, '"')
		b = append(b, attrs...)
		b = append(b, "><name>"...)
		b = append(b, names[ti]...)
		b = append(b, "</name><enabled>TRUE</enabled>"...)
		b = elem(b, "duration", tr.last)
		b = append(b, rate...)
		b = elem(b, "start", s.RecIn)
		b = elem(b, "end", s.RecOut)
		b = elem(b, "in", s.SrcIn)
		b = elem(b, "out", s.SrcOut)
		b = append(b, file(ti)...)
		b = append(b, extra...)
		if ti == 0 && e.m.HasVideo {
			b = link(b, id(0, i), "video", 1, i+1, false)
		}
		for a, at := range audio {
			if at.track == ti {
				b = link(b, id(audioIndex(a), i), "audio", a+1, i+1, true)
			}
		}
		b = append(b, "</clipitem>\n"...)
		buf = b
		_, err := bw.Write(b)
		return err
	}
	// The sequence has a video format even for audio-only media (1920x1080
	// at the edit rate), as FCPXML's does: the editor's sequence settings
	// need one.
	fmt.Fprintf(bw, "      <video>\n        <format><samplecharacteristics>%s<width>%d</width><height>%d</height><pixelaspectratio>square</pixelaspectratio></samplecharacteristics></format>\n", rate, width, height)
	if e.m.HasVideo {
		fmt.Fprint(bw, "        <track>\n")
		for i := range e.tracks[0].segs {
			if err := clip(0, id(0, i), i, "", ""); err != nil {
				return err
			}
		}
		fmt.Fprint(bw, "        </track>\n")
	}
	fmt.Fprint(bw, "      </video>\n")
	fmt.Fprintf(bw, "      <audio>\n        <numOutputChannels>%d</numOutputChannels>\n        <format><samplecharacteristics><depth>16</depth><samplerate>%d</samplerate></samplecharacteristics></format>\n", outputs, sequenceSampleRate(e.m.SampleRate))
	for a, at := range audio {
		attrs, trackAttrs := "", ""
		if at.channels == 2 {
			attrs = ` premiereChannelType="stereo"`
			trackAttrs = fmt.Sprintf(` currentExplodedTrackIndex="%d" totalExplodedTrackCount="2" premiereTrackType="Stereo"`, at.channel)
		}
		fmt.Fprintf(bw, "        <track%s>\n", trackAttrs)
		srcTrack := at.channel + 1
		if c := e.tracks[at.track].m.Channel; c > 0 { // one channel of the file
			srcTrack = c
		}
		src := fmt.Sprintf("<sourcetrack><mediatype>audio</mediatype><trackindex>%d</trackindex></sourcetrack>", srcTrack)
		for i := range e.tracks[at.track].segs {
			if err := clip(at.track, id(audioIndex(a), i), i, src, attrs); err != nil {
				return err
			}
		}
		fmt.Fprintf(bw, "          <enabled>TRUE</enabled><locked>FALSE</locked><outputchannelindex>%d</outputchannelindex>\n        </track>\n", at.channel+1)
	}
	fmt.Fprint(bw, "      </audio>\n    </media>\n  </sequence>\n</xmeml>\n")
	return bw.Flush()
}

// sequenceSampleRate is the sequence's audio rate: the source's when the
// editors' sequence settings offer it (Premiere Pro and Final Cut Pro 7:
// 32, 44.1, 48, 88.2 and 96 kHz), else 48 kHz, as FCPXML does. The file
// element keeps the source's own rate; the editor resamples.
func sequenceSampleRate(hz int) int {
	switch hz {
	case 32000, 44100, 48000, 88200, 96000:
		return hz
	}
	return 48000
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
