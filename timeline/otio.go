package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// otioTime is an OTIO RationalTime.1 (used to read documents back).
type otioTime struct {
	Schema string  `json:"OTIO_SCHEMA"`
	Rate   float64 `json:"rate"`
	Value  float64 `json:"value"`
}

// otioRange is an OTIO TimeRange.1 (used to read documents back).
type otioRange struct {
	Schema   string   `json:"OTIO_SCHEMA"`
	Duration otioTime `json:"duration"`
	Start    otioTime `json:"start_time"`
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// writeOTIO writes an OpenTimelineIO timeline: a stack of a video track
// (video sources) and an audio track per track (A1, A2, ...), one Clip.2
// per kept range with an
// ExternalReference.1, every time at the edit rate with integral frame
// values; frame size and audio rates in the metadata, under "autocut". The document is written by hand, clip by clip, with 4-space
// indentation (RationalTimes on one line): reflection-based encoding of
// 10 000 clips costs most of a long export's time.
func (e *edit) writeOTIO(w io.Writer) error {
	const ind = "    "
	rate := strconv.FormatFloat(e.rate.Float(), 'g', -1, 64)
	rt := func(b []byte, f int64) []byte {
		b = append(b, `{"OTIO_SCHEMA": "RationalTime.1", "rate": `...)
		b = append(b, rate...)
		b = append(b, `, "value": `...)
		b = strconv.AppendInt(b, f, 10)
		return append(b, '}')
	}
	title := jsonString(e.title)
	p := func(n int) string { return strings.Repeat(ind, n) }
	bw := bufio.NewWriter(w)
	// Metadata state what the XML formats do and OTIO's schema has no
	// place for: the sequence's frame size, exact rate and audio rate
	// (Timeline.1), and the media's audio rate and channels, and frame
	// size for a video (ExternalReference.1).
	width, height := e.frameSize()
	ch := max(e.m.Channels, 1)
	seqMeta := fmt.Sprintf("{\n%s\"autocut\": {\"width\": %d, \"height\": %d, \"rate\": %s, \"audio_rate\": %d, \"audio_channels\": %d}\n%s}",
		p(2), width, height, jsonString(e.rate.String()), sequenceSampleRate(e.m.SampleRate), ch, p(1))
	head := "{\n" + p(1) + `"OTIO_SCHEMA": "Timeline.1",` + "\n" + p(1) + `"metadata": ` + seqMeta + ",\n" +
		p(1) + `"name": ` + title + ",\n" + p(1) + `"global_start_time": ` + string(rt(nil, 0)) + ",\n" +
		p(1) + `"tracks": {` + "\n" + p(2) + `"OTIO_SCHEMA": "Stack.1",` + "\n" + p(2) + `"metadata": {},` + "\n" +
		p(2) + `"name": ` + title + ",\n" + p(2) + `"source_range": null,` + "\n" + p(2) + `"effects": [],` + "\n" +
		p(2) + `"markers": [],` + "\n" + p(2) + `"enabled": true,` + "\n" + p(2) + `"children": [` + "\n"
	bw.WriteString(head)

	// A track's media reference is the same in every clip: built once.
	ref := func(tr *track) string {
		meta := fmt.Sprintf("{\n%s\"autocut\": {\"sample_rate\": %d, \"channels\": %d}\n%s}", p(9), tr.m.SampleRate, max(tr.m.Channels, 1), p(8))
		if tr.m.HasVideo {
			meta = fmt.Sprintf("{\n%s\"autocut\": {\"sample_rate\": %d, \"channels\": %d, \"width\": %d, \"height\": %d}\n%s}", p(9), tr.m.SampleRate, max(tr.m.Channels, 1), width, height, p(8))
		}
		if tr.m.Stream > 0 || tr.m.Channel > 0 { // a stream or channel of the file
			meta = fmt.Sprintf("{\n%s\"autocut\": {\"sample_rate\": %d, \"channels\": %d, \"stream\": %d, \"channel\": %d}\n%s}", p(9), tr.m.SampleRate, max(tr.m.Channels, 1), tr.m.Stream, tr.m.Channel, p(8))
		}
		return p(6) + `"media_references": {` + "\n" + p(7) + `"DEFAULT_MEDIA": {` + "\n" +
			p(8) + `"OTIO_SCHEMA": "ExternalReference.1",` + "\n" + p(8) + `"metadata": ` + meta + ",\n" +
			p(8) + `"name": ` + jsonString(tr.m.File) + ",\n" + p(8) + `"available_range": {` + "\n" +
			p(9) + `"OTIO_SCHEMA": "TimeRange.1",` + "\n" +
			p(9) + `"duration": ` + string(rt(nil, tr.last)) + ",\n" +
			p(9) + `"start_time": ` + string(rt(nil, tr.tc)) + "\n" + p(8) + "},\n" +
			p(8) + `"target_url": ` + jsonString(fileURL(tr.m.Path)) + "\n" + p(7) + "}\n" + p(6) + "},\n" +
			p(6) + `"active_media_reference_key": "DEFAULT_MEDIA"` + "\n" + p(5) + "}"
	}
	// Clip names are "<file> #n": the JSON literal of the file name without its closing quote.
	clipName := func(tr *track) string {
		n := jsonString(tr.m.File)
		return n[:len(n)-1] + " #"
	}

	// The video track (the first track's picture), then an audio track per track.
	type otioTrack struct {
		name, kind string
		tr         *track
	}
	var tracks []otioTrack
	if e.m.HasVideo {
		tracks = append(tracks, otioTrack{"V1", "Video", &e.tracks[0]})
	}
	for ti := range e.tracks {
		tracks = append(tracks, otioTrack{fmt.Sprintf("A%d", ti+1), "Audio", &e.tracks[ti]})
	}
	buf := make([]byte, 0, 2048)
	for ti, ot := range tracks {
		ref, clipName, segs := ref(ot.tr), clipName(ot.tr), ot.tr.segs
		bw.WriteString(p(3) + "{\n" + p(4) + `"OTIO_SCHEMA": "Track.1",` + "\n" + p(4) + `"metadata": {},` + "\n" +
			p(4) + `"name": ` + jsonString(ot.name) + ",\n" + p(4) + `"source_range": null,` + "\n" +
			p(4) + `"effects": [],` + "\n" + p(4) + `"markers": [],` + "\n" + p(4) + `"enabled": true,` + "\n" +
			p(4) + `"kind": ` + jsonString(ot.kind) + ",\n" + p(4) + `"children": [` + "\n")
		for i, s := range segs {
			b := append(buf[:0], p(5)+"{\n"+p(6)+`"OTIO_SCHEMA": "Clip.2",`+"\n"+p(6)+`"metadata": {},`+"\n"+p(6)+`"name": `...)
			b = append(b, clipName...)
			b = strconv.AppendInt(b, int64(i+1), 10)
			b = append(b, "\",\n"+p(6)+`"source_range": {`+"\n"+p(7)+`"OTIO_SCHEMA": "TimeRange.1",`+"\n"+p(7)+`"duration": `...)
			b = rt(b, s.Len())
			b = append(b, ",\n"+p(7)+`"start_time": `...)
			b = rt(b, ot.tr.tc+s.SrcIn)
			b = append(b, "\n"+p(6)+"},\n"+p(6)+`"effects": [],`+"\n"+p(6)+`"markers": [],`+"\n"+p(6)+`"enabled": true,`+"\n"...)
			b = append(b, ref...)
			if i < len(segs)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			buf = b
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
		sep := ","
		if ti == len(tracks)-1 {
			sep = ""
		}
		bw.WriteString(p(4) + "]\n" + p(3) + "}" + sep + "\n")
	}
	bw.WriteString(p(2) + "]\n" + p(1) + "}\n}\n")
	return bw.Flush()
}
