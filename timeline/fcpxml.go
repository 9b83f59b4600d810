package timeline

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// FCPXMLVersions returns the FCPXML versions the writer produces, each
// validated against Apple's DTD by the tests (testdata/dtd): 1.8 to 1.11.
func FCPXMLVersions() []string { return []string{"1.8", "1.9", "1.10", "1.11"} }

// DefaultFCPXMLVersion is the version written when Options name none
// (DaVinci Resolve 18.5 reads up to 1.10).
const DefaultFCPXMLVersion = "1.10"

// attr escapes a string for an XML attribute.
func attr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&quot;")
}

// fcpTime formats frames on the rate's grid: "0s", "Ns" or "N/Ds".
func fcpTime(frames int64, r rateGrid) string {
	if frames == 0 {
		return "0s"
	}
	n, d := frames*r.Den, r.Num
	if n%d == 0 {
		return fmt.Sprintf("%ds", n/d)
	}
	return fmt.Sprintf("%d/%ds", n, d)
}

type rateGrid struct{ Num, Den int64 }

// fcpFormatName names Final Cut Pro's built-in video format for a frame
// size and rate ("FFVideoFormat1080p2997", "FFVideoFormat3840x2160p25"),
// or returns "" when FCP has none: the format is then written without a
// name, as FCP itself exports a project of custom size, and its width,
// height and frameDuration define it.
func fcpFormatName(w, h int, num, den int64) string {
	rates := map[[2]int64]string{{24000, 1001}: "2398", {24, 1}: "24", {25, 1}: "25", {30000, 1001}: "2997",
		{30, 1}: "30", {50, 1}: "50", {60000, 1001}: "5994", {60, 1}: "60"}
	sizes := map[[2]int]string{{1920, 1080}: "1080p", {1280, 720}: "720p", {3840, 2160}: "3840x2160p", {4096, 2160}: "4096x2160p"}
	r, ok1 := rates[[2]int64{num, den}]
	sz, ok2 := sizes[[2]int{w, h}]
	if !ok1 || !ok2 {
		return ""
	}
	return "FFVideoFormat" + sz + r
}

// fcpAudioRate is the sequence audioRate value FCPXML allows for a rate.
func fcpAudioRate(hz int) string {
	switch hz {
	case 32000:
		return "32k"
	case 44100:
		return "44.1k"
	case 88200:
		return "88.2k"
	case 96000:
		return "96k"
	case 176400:
		return "176.4k"
	case 192000:
		return "192k"
	}
	return "48k"
}

// writeFCPXML writes one asset and one asset-clip per kept range, on the
// sequence's frame grid. Source timecode is the asset's start.
func (e *edit) writeFCPXML(w io.Writer) error {
	v := e.o.FCPXMLVersion
	if v == "" {
		v = DefaultFCPXMLVersion
	}
	if !slices.Contains(FCPXMLVersions(), v) {
		return fmt.Errorf("%w: FCPXML version %q (allowed %s)", ErrInvalidOptions, v, strings.Join(FCPXMLVersions(), ", "))
	}
	g := rateGrid{e.rate.Num, e.rate.Den}
	bw := bufio.NewWriter(w)
	tcFormat := "NDF"
	if e.drop {
		tcFormat = "DF"
	}
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE fcpxml>\n<fcpxml version=\"%s\">\n  <resources>\n", v)
	width, height := e.frameSize()
	name := fcpFormatName(width, height, g.Num, g.Den)
	if name != "" {
		name = ` name="` + name + `"`
	}
	fmt.Fprintf(bw, "    <format id=\"r1\"%s frameDuration=\"%s\" width=\"%d\" height=\"%d\" colorSpace=\"1-1-1 (Rec. 709)\"/>\n", name, fcpTime(1, g), width, height)
	// One asset per track (r2, r3, ...): its extent in whole frames for
	// video, whole samples for audio.
	for ti := range e.tracks {
		tr := &e.tracks[ti]
		dur := fcpTime(tr.last, g)
		if !tr.m.HasVideo && tr.m.SampleRate > 0 {
			dur = fmt.Sprintf("%d/%ds", int64(math.Round(tr.m.Duration*float64(tr.m.SampleRate))), tr.m.SampleRate)
		}
		src := fileURL(tr.m.Path)
		video := ""
		if tr.m.HasVideo {
			video = ` hasVideo="1" format="r1" videoSources="1"`
			if v == "1.8" {
				video = ` hasVideo="1" format="r1"`
			}
		}
		audio := fmt.Sprintf(` hasAudio="1" audioSources="1" audioChannels="%d" audioRate="%d"`, max(tr.m.Channels, 1), tr.m.SampleRate)
		start := fcpTime(tr.tc, g)
		if v == "1.8" {
			fmt.Fprintf(bw, "    <asset id=\"r%d\" name=\"%s\" src=\"%s\" start=\"%s\" duration=\"%s\"%s%s/>\n", ti+2, attr(tr.m.Name), attr(src), start, dur, video, audio)
		} else {
			fmt.Fprintf(bw, "    <asset id=\"r%d\" name=\"%s\" start=\"%s\" duration=\"%s\"%s%s>\n      <media-rep kind=\"original-media\" src=\"%s\"/>\n    </asset>\n",
				ti+2, attr(tr.m.Name), start, dur, video, audio, attr(src))
		}
	}
	ch := max(e.m.Channels, 1)
	layout := "stereo"
	if ch > 2 {
		layout = "surround"
	}
	fmt.Fprintf(bw, "  </resources>\n  <library>\n    <event name=\"Kept segments\">\n      <project name=\"%s\">\n", attr(e.title))
	fmt.Fprintf(bw, "        <sequence format=\"r1\" duration=\"%s\" tcStart=\"0s\" tcFormat=\"%s\" audioLayout=\"%s\" audioRate=\"%s\">\n          <spine>\n",
		fcpTime(e.total(), g), tcFormat, layout, fcpAudioRate(e.m.SampleRate))
	clipTC := ""
	if e.m.HasVideo {
		clipTC = ` tcFormat="` + tcFormat + `"`
	}
	// The first track's clips are the spine; each other track's clip of
	// the same kept range is connected to it, in lane -1, -2, ..., at its
	// start (a gap holds them past the first track's end).
	first := e.tracks[0].segs
	for i, s := range e.segs {
		open, end := "", "/>\n"
		if i < len(first) {
			f := first[i]
			open = fmt.Sprintf("            <asset-clip ref=\"r2\" name=\"%s\" offset=\"%s\" start=\"%s\" duration=\"%s\"%s",
				attr(e.m.Name), fcpTime(f.RecIn, g), fcpTime(e.tc+f.SrcIn, g), fcpTime(f.Len(), g), clipTC)
			if len(e.tracks) > 1 {
				end = ">\n"
			}
		} else {
			open = fmt.Sprintf("            <gap name=\"Gap\" offset=\"%s\" start=\"0s\" duration=\"%s\"", fcpTime(s.RecIn, g), fcpTime(s.Len(), g))
			end = ">\n"
		}
		bw.WriteString(open)
		bw.WriteString(end)
		if end == "/>\n" {
			continue
		}
		parentStart := int64(0)
		if i < len(first) {
			parentStart = e.tc + first[i].SrcIn
		}
		for ti := 1; ti < len(e.tracks); ti++ {
			tr := &e.tracks[ti]
			if i >= len(tr.segs) {
				continue
			}
			c := tr.segs[i]
			fmt.Fprintf(bw, "              <asset-clip ref=\"r%d\" lane=\"-%d\" name=\"%s\" offset=\"%s\" start=\"%s\" duration=\"%s\"/>\n",
				ti+2, ti, attr(tr.m.Name), fcpTime(parentStart, g), fcpTime(tr.tc+c.SrcIn, g), fcpTime(c.Len(), g))
		}
		if i >= len(first) {
			bw.WriteString("            </gap>\n")
			continue
		}
		bw.WriteString("            </asset-clip>\n")
		if f := first[i]; f.RecOut < s.RecOut { // the first track ends within this clip
			fmt.Fprintf(bw, "            <gap name=\"Gap\" offset=\"%s\" start=\"0s\" duration=\"%s\"/>\n", fcpTime(f.RecOut, g), fcpTime(s.RecOut-f.RecOut, g))
		}
	}
	fmt.Fprint(bw, "          </spine>\n        </sequence>\n      </project>\n    </event>\n  </library>\n</fcpxml>\n")
	return bw.Flush()
}
