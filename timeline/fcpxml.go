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
	// The asset's extent: whole frames for video, whole samples for audio.
	dur := fcpTime(e.last, g)
	if !e.m.HasVideo && e.m.SampleRate > 0 {
		dur = fmt.Sprintf("%d/%ds", int64(math.Round(e.m.Duration*float64(e.m.SampleRate))), e.m.SampleRate)
	}
	src := fileURL(e.m.Path)
	video := ""
	if e.m.HasVideo {
		video = ` hasVideo="1" format="r1" videoSources="1"`
		if v == "1.8" {
			video = ` hasVideo="1" format="r1"`
		}
	}
	ch := max(e.m.Channels, 1)
	audio := fmt.Sprintf(` hasAudio="1" audioSources="1" audioChannels="%d" audioRate="%d"`, ch, e.m.SampleRate)
	start := fcpTime(e.tc, g)
	if v == "1.8" {
		fmt.Fprintf(bw, "    <asset id=\"r2\" name=\"%s\" src=\"%s\" start=\"%s\" duration=\"%s\"%s%s/>\n", attr(e.m.Name), attr(src), start, dur, video, audio)
	} else {
		fmt.Fprintf(bw, "    <asset id=\"r2\" name=\"%s\" start=\"%s\" duration=\"%s\"%s%s>\n      <media-rep kind=\"original-media\" src=\"%s\"/>\n    </asset>\n",
			attr(e.m.Name), start, dur, video, audio, attr(src))
	}
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
	for _, s := range e.segs {
		fmt.Fprintf(bw, "            <asset-clip ref=\"r2\" name=\"%s\" offset=\"%s\" start=\"%s\" duration=\"%s\"%s/>\n",
			attr(e.m.Name), fcpTime(s.RecIn, g), fcpTime(e.tc+s.SrcIn, g), fcpTime(s.Len(), g), clipTC)
	}
	fmt.Fprint(bw, "          </spine>\n        </sequence>\n      </project>\n    </event>\n  </library>\n</fcpxml>\n")
	return bw.Flush()
}
