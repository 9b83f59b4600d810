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
// full file definition then references, stereo exploded into two mono
// tracks (mono: one), clipitems of one kept range linked together, and a
// sequence video format for audio-only media too.
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
	audioTracks := 2
	if e.m.Channels == 1 {
		audioTracks = 1
	}
	width, height := e.frameSize()
	n := len(e.segs)
	// clipitem ids: video 1..n, then audio track t (0-based) t*n+1.. after the video ones.
	id := func(track, i int) int { return track*n + i + 1 } // track 0 = video when present
	audioTrack := func(t int) int { return t + boolInt(e.m.HasVideo) }

	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE xmeml>\n<xmeml version=\"5\">\n  <sequence id=\"sequence-1\">\n")
	fmt.Fprintf(bw, "    <name>%s</name>\n    <duration>%d</duration>\n    %s\n", attr(e.title), e.total(), rate)
	fmt.Fprintf(bw, "    <timecode>%s<string>%s</string><frame>0</frame><displayformat>%s</displayformat></timecode>\n    <media>\n",
		rate, Timecode(0, e.fps, e.drop), df)
	fileDone := false
	file := func() string {
		if fileDone {
			return `<file id="file-1"/>`
		}
		fileDone = true
		var b strings.Builder
		fmt.Fprintf(&b, "<file id=\"file-1\"><name>%s</name><pathurl>%s</pathurl>%s<duration>%d</duration>", attr(e.m.File), attr(pathURL(e.m.Path)), rate, e.last)
		fmt.Fprintf(&b, "<timecode>%s<string>%s</string><frame>%d</frame><displayformat>%s</displayformat></timecode><media>", rate, Timecode(e.tc, e.fps, e.drop), e.tc, df)
		if e.m.HasVideo {
			fmt.Fprintf(&b, "<video><samplecharacteristics>%s<width>%d</width><height>%d</height><pixelaspectratio>square</pixelaspectratio></samplecharacteristics></video>", rate, width, height)
		}
		fmt.Fprintf(&b, "<audio><samplecharacteristics><depth>16</depth><samplerate>%d</samplerate></samplecharacteristics><channelcount>%d</channelcount></audio></media></file>", e.m.SampleRate, max(e.m.Channels, 1))
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
	name := attr(e.m.Name)
	clip := func(cid, i int, extra, attrs string) error {
		s := e.segs[i]
		b := append(buf[:0], "          <clipitem id=\"clipitem-"...)
		b = num(b, int64(cid))
		b = append(b, '"')
		b = append(b, attrs...)
		b = append(b, "><name>"...)
		b = append(b, name...)
		b = append(b, "</name><enabled>TRUE</enabled>"...)
		b = elem(b, "duration", e.last)
		b = append(b, rate...)
		b = elem(b, "start", s.RecIn)
		b = elem(b, "end", s.RecOut)
		b = elem(b, "in", s.SrcIn)
		b = elem(b, "out", s.SrcOut)
		b = append(b, file()...)
		b = append(b, extra...)
		if e.m.HasVideo {
			b = link(b, id(0, i), "video", 1, i+1, false)
		}
		for t := 0; t < audioTracks; t++ {
			b = link(b, id(audioTrack(t), i), "audio", t+1, i+1, true)
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
		for i := range e.segs {
			if err := clip(id(0, i), i, "", ""); err != nil {
				return err
			}
		}
		fmt.Fprint(bw, "        </track>\n")
	}
	fmt.Fprint(bw, "      </video>\n")
	fmt.Fprintf(bw, "      <audio>\n        <numOutputChannels>%d</numOutputChannels>\n        <format><samplecharacteristics><depth>16</depth><samplerate>%d</samplerate></samplecharacteristics></format>\n", audioTracks, sequenceSampleRate(e.m.SampleRate))
	for t := 0; t < audioTracks; t++ {
		attrs, trackAttrs := "", ""
		if audioTracks == 2 {
			attrs = ` premiereChannelType="stereo"`
			trackAttrs = fmt.Sprintf(` currentExplodedTrackIndex="%d" totalExplodedTrackCount="2" premiereTrackType="Stereo"`, t)
		}
		fmt.Fprintf(bw, "        <track%s>\n", trackAttrs)
		src := fmt.Sprintf("<sourcetrack><mediatype>audio</mediatype><trackindex>%d</trackindex></sourcetrack>", t+1)
		for i := range e.segs {
			if err := clip(id(audioTrack(t), i), i, src, attrs); err != nil {
				return err
			}
		}
		fmt.Fprintf(bw, "          <enabled>TRUE</enabled><locked>FALSE</locked><outputchannelindex>%d</outputchannelindex>\n        </track>\n", t+1)
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
