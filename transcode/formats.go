package transcode

import (
	"slices"

	"github.com/autocut-dev/autocut/plan"
)

// exportFormat is an export format: its container, file extension and
// the content type of what it writes.
type exportFormat struct{ name, container, ext, contentType string }

// formatTable is the one list of export formats, in the documented order.
var formatTable = [...]exportFormat{
	{"mp3", "mp3", ".mp3", "audio/mpeg"},
	{"mp3_320", "mp3", ".mp3", "audio/mpeg"},
	{"wav", "wav", ".wav", "audio/wav"},
	{"m4a", "m4a", ".m4a", "audio/mp4"},
	{"mp4", "mp4", ".mp4", "video/mp4"},
	{"mp4_hq", "mp4", ".mp4", "video/mp4"},
}

// DefaultFormat is the export format when a request names none.
const DefaultFormat = "mp3"

// formatOf returns the export format called name (zero when unknown).
func formatOf(name string) exportFormat {
	for _, r := range formatTable {
		if r.name == name {
			return r
		}
	}
	return exportFormat{}
}

// Formats returns the export formats: mp3 (VBR V2), mp3_320, wav (16-bit,
// 24-bit for deeper inputs), m4a (AAC 192 kbit/s), mp4 and mp4_hq (H.264
// and AAC; video inputs only).
func Formats() []string {
	out := make([]string, len(formatTable))
	for i, r := range formatTable {
		out[i] = r.name
	}
	return out
}

// Containers returns the containers the export formats write, each once
// (what a rendered file's Result.Format can be).
func Containers() []string {
	var out []string
	for _, r := range formatTable {
		if !slices.Contains(out, r.container) {
			out = append(out, r.container)
		}
	}
	return out
}

// ContainerOf returns the container of an export format ("mp3" for
// mp3_320), "" for an unknown format.
func ContainerOf(format string) string { return formatOf(format).container }

// Ext returns the file extension of an export format (".mp3" for
// mp3_320), "" for an unknown format.
func Ext(format string) string { return formatOf(format).ext }

// NeedsVideo reports whether an export format needs a video input.
func NeedsVideo(format string) bool { return formatOf(format).container == "mp4" }

// ContentType returns the MIME type of a container ("audio/mpeg" for mp3),
// application/octet-stream for an unknown one.
func ContentType(container string) string {
	for _, r := range formatTable {
		if r.container == container {
			return r.contentType
		}
	}
	return "application/octet-stream"
}

// normalizationTable gives each normalize option its integrated loudness
// target in LUFS (two passes: measure, then gain and true-peak limiter).
// The names are plan's, which presets choose from.
var normalizationTable = [...]struct {
	name string
	lufs float64
}{
	{plan.NormalizeNone, 0},
	{plan.NormalizePodcast, -16},
	{plan.NormalizeYouTube, -14},
}

// normalizationOf returns the target of a normalize option (ok false for
// an unknown one; none has no target and returns 0, true).
func normalizationOf(name string) (float64, bool) {
	for _, r := range normalizationTable {
		if r.name == name {
			return r.lufs, true
		}
	}
	return 0, false
}

// Normalizations returns the normalize options: none, podcast (-16 LUFS),
// youtube (-14 LUFS).
func Normalizations() []string {
	out := make([]string, len(normalizationTable))
	for i, r := range normalizationTable {
		out[i] = r.name
	}
	return out
}
