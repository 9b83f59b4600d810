package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// OTIO schema objects, written with encoding/json.
type otioTime struct {
	Schema string  `json:"OTIO_SCHEMA"`
	Rate   float64 `json:"rate"`
	Value  float64 `json:"value"`
}

type otioRange struct {
	Schema   string   `json:"OTIO_SCHEMA"`
	Duration otioTime `json:"duration"`
	Start    otioTime `json:"start_time"`
}

type otioRef struct {
	Schema    string         `json:"OTIO_SCHEMA"`
	Metadata  map[string]any `json:"metadata"`
	Name      string         `json:"name"`
	Available *otioRange     `json:"available_range"`
	TargetURL string         `json:"target_url"`
}

type otioItem struct {
	Schema    string             `json:"OTIO_SCHEMA"`
	Metadata  map[string]any     `json:"metadata"`
	Name      string             `json:"name"`
	Source    *otioRange         `json:"source_range"`
	Effects   []any              `json:"effects"`
	Markers   []any              `json:"markers"`
	Enabled   bool               `json:"enabled"`
	Refs      map[string]otioRef `json:"media_references,omitempty"`
	ActiveRef string             `json:"active_media_reference_key,omitempty"`
	Kind      string             `json:"kind,omitempty"`
	Children  []otioItem         `json:"children,omitempty"`
}

// writeOTIO writes an OpenTimelineIO timeline: a stack of a video track
// (video sources) and an audio track, one clip per kept range, every time at
// the edit rate with integral frame values. Clips are encoded one at a time
// (encoding the whole document and then indenting it costs 5x more on long plans).
func (e *edit) writeOTIO(w io.Writer) error {
	r := e.rate.Float()
	t := func(f int64) otioTime { return otioTime{"RationalTime.1", r, float64(f)} }
	rng := func(start, dur int64) *otioRange { return &otioRange{"TimeRange.1", t(dur), t(start)} }
	ref := otioRef{Schema: "ExternalReference.1", Metadata: map[string]any{}, Name: e.m.File,
		Available: rng(e.tc, e.last), TargetURL: fileURL(e.m.Path)}
	bw := bufio.NewWriter(w)
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	rateJSON := js(r)
	fileJSON := js(e.m.File)
	const ind = "    "
	fmt.Fprintf(bw, "{\n%s\"OTIO_SCHEMA\": \"Timeline.1\",\n%s\"metadata\": {},\n%s\"name\": %s,\n", ind, ind, ind, js(e.title))
	gs, _ := json.MarshalIndent(t(0), ind, ind)
	fmt.Fprintf(bw, "%s\"global_start_time\": %s,\n", ind, gs)
	fmt.Fprintf(bw, "%s\"tracks\": {\n%[1]s%[1]s\"OTIO_SCHEMA\": \"Stack.1\",\n%[1]s%[1]s\"metadata\": {},\n%[1]s%[1]s\"name\": %[2]s,\n%[1]s%[1]s\"source_range\": null,\n%[1]s%[1]s\"effects\": [],\n%[1]s%[1]s\"markers\": [],\n%[1]s%[1]s\"enabled\": true,\n%[1]s%[1]s\"children\": [\n", ind, js(e.title))
	tracks := [][2]string{{"A1", "Audio"}}
	if e.m.HasVideo {
		tracks = [][2]string{{"V1", "Video"}, {"A1", "Audio"}}
	}
	p3, p4, p5 := strings.Repeat(ind, 3), strings.Repeat(ind, 4), strings.Repeat(ind, 5)
	for ti, tr := range tracks {
		fmt.Fprintf(bw, "%s{\n%s\"OTIO_SCHEMA\": \"Track.1\",\n%[2]s\"metadata\": {},\n%[2]s\"name\": %[3]s,\n%[2]s\"source_range\": null,\n%[2]s\"effects\": [],\n%[2]s\"markers\": [],\n%[2]s\"enabled\": true,\n%[2]s\"kind\": %[4]s,\n%[2]s\"children\": [\n",
			p3, p4, js(tr[0]), js(tr[1]))
		refJSON, err := json.MarshalIndent(map[string]otioRef{"DEFAULT_MEDIA": ref}, p5+ind, ind)
		if err != nil {
			return err
		}
		for i, s := range e.segs {
			sep := ","
			if i == len(e.segs)-1 {
				sep = ""
			}
			// One clip, written by hand: reflection-based encoding of 10 000
			// clips costs most of the export's time.
			fmt.Fprintf(bw, "%[1]s{\n%[2]s\"OTIO_SCHEMA\": \"Clip.2\",\n%[2]s\"metadata\": {},\n%[2]s\"name\": %[3]s,\n"+
				"%[2]s\"source_range\": {\n%[2]s%[7]s\"OTIO_SCHEMA\": \"TimeRange.1\",\n"+
				"%[2]s%[7]s\"duration\": {\"OTIO_SCHEMA\": \"RationalTime.1\", \"rate\": %[4]s, \"value\": %[5]d},\n"+
				"%[2]s%[7]s\"start_time\": {\"OTIO_SCHEMA\": \"RationalTime.1\", \"rate\": %[4]s, \"value\": %[6]d}\n%[2]s},\n"+
				"%[2]s\"effects\": [],\n%[2]s\"markers\": [],\n%[2]s\"enabled\": true,\n"+
				"%[2]s\"media_references\": %[8]s,\n%[2]s\"active_media_reference_key\": \"DEFAULT_MEDIA\"\n%[1]s}%[9]s\n",
				p5, p5+ind, fileJSON[:len(fileJSON)-1]+" #"+strconv.Itoa(i+1)+`"`, rateJSON, s.Len(), e.tc+s.SrcIn, ind, refJSON, sep)
		}
		sep := ","
		if ti == len(tracks)-1 {
			sep = ""
		}
		fmt.Fprintf(bw, "%s]\n%s}%s\n", p4, p3, sep)
	}
	fmt.Fprintf(bw, "%s%s]\n%s}\n}\n", ind, ind, ind)
	return bw.Flush()
}
