package timeline

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/dsp"
)

// tracksCase is a recording of several tracks, cut alike.
type tracksCase struct {
	name   string
	keep   []dsp.Range
	tracks []Media
	o      Options
}

func tracksCases() []tracksCase {
	host := Media{Name: "host", File: "host.wav", Path: "/Users/me/Show/host.wav", Duration: 600, SampleRate: 48000, Channels: 2}
	guest := Media{Name: "guest", File: "guest.wav", Path: "/Users/me/Show/guest.wav", Duration: 600, SampleRate: 44100, Channels: 1}
	video := Media{Name: "studio", File: "studio.mov", Path: "/Volumes/Media/studio.mov", Duration: 3602 * 1001.0 / 30000, VideoFrames: 3600,
		SampleRate: 48000, Channels: 2, HasVideo: true, FrameRate: ntsc30, Width: 1920, Height: 1080, StartTimecode: 3600 * 1001 / 1000.0}
	shortGuest := guest
	shortGuest.Duration = 31.5 // ends within the last kept range
	shortHost := host
	shortHost.Duration = 60
	longGuest := guest
	longGuest.Duration = 70
	va := []dsp.Range{{Start: 1.5, End: 4.2}, {Start: 10.0, End: 12.5}, {Start: 30.03, End: 33.0}}
	return []tracksCase{
		{"tracks2_audio", []dsp.Range{{Start: 2.0, End: 65.5}, {Start: 70.25, End: 130.0}}, []Media{host, guest}, Options{}},
		{"tracks2_video", va, []Media{video, shortGuest}, Options{DropFrame: true}},
		{"tracks2_guest_longer", []dsp.Range{{Start: 1, End: 20}, {Start: 25, End: 50}, {Start: 58, End: 68}}, []Media{shortHost, longGuest}, Options{Rate: dsp.Rational{Num: 25, Den: 1}}},
	}
}

// TestTracksGoldenAndParseBack: each format of a recording of two tracks
// matches its golden file and reads back, track by track, to the frame
// list each track has: the same cut, up to the track's own end, each track
// referring to its own media. The FCPXML passes Apple's DTDs.
func TestTracksGoldenAndParseBack(t *testing.T) {
	for _, c := range tracksCases() {
		t.Run(c.name, func(t *testing.T) {
			e, err := newTracksEdit(c.keep, c.tracks, c.o)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			files, err := WriteFilesTracks(dir, "out", Kinds(), c.keep, c.tracks, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(Kinds())+len(c.tracks)-1 {
				t.Errorf("%d files, want one per kind and an EDL per track: %q", len(files), files)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, c.name+strings.TrimPrefix(filepath.Base(f), "out-autocut"), b)
			}
			read := func(name string) []byte {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			var want [][]Segment
			for _, tr := range e.tracks {
				want = append(want, tr.segs)
			}
			for k, got := range map[Kind][][]Segment{
				FCPXML:   tracksFCPXML(t, read("out-autocut.fcpxml"), e),
				Premiere: tracksXMEML(t, read("out-autocut.xml"), e),
				OTIO:     tracksOTIO(t, read("out-autocut.otio"), e),
				CSV:      tracksCSV(t, read("out-autocut.csv"), e),
				EDL:      tracksEDL(t, dir, e),
			} {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s does not read back to each track's frame list (-want +got):\n%s", k, diff)
				}
			}
			// Every track's clips are the cut: the same record and source
			// frames, those of a track that ends sooner a prefix of it.
			for ti, segs := range want {
				for i, s := range segs {
					if full := e.segs[i]; s.SrcIn != full.SrcIn || s.RecIn != full.RecIn || s.SrcOut > full.SrcOut || i < len(segs)-1 && s != full {
						t.Errorf("track %d clip %d %+v is not the cut's %+v", ti+1, i+1, s, full)
					}
				}
			}
			for _, v := range FCPXMLVersions() {
				o := c.o
				o.FCPXMLVersion = v
				var b bytes.Buffer
				if err := WriteTracks(&b, FCPXML, c.keep, c.tracks, o); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(t.TempDir(), "x.fcpxml")
				if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				dtd := filepath.Join("testdata", "dtd", "FCPXMLv"+strings.ReplaceAll(v, ".", "_")+".dtd")
				if out, err := exec.Command("xmllint", "--noout", "--dtdvalid", dtd, p).CombinedOutput(); err != nil {
					t.Errorf("v%s: %v\n%s", v, err, out)
				}
				if v == "1.8" {
					continue
				}
				if got := tracksFCPXML(t, b.Bytes(), e); !cmp.Equal(want, got) {
					t.Errorf("v%s reads back otherwise", v)
				}
			}
		})
	}
}

// TestTracksEqualLengthsAlike: tracks of one length have equal clips in
// every format's read-back (OpenTimelineIO's structure: one audio track per
// track, every track's clips equal).
func TestTracksEqualLengthsAlike(t *testing.T) {
	c := tracksCases()[0]
	for n := 1; n <= 4; n++ {
		tracks := make([]Media, n)
		for i := range tracks {
			tracks[i] = c.tracks[i%2]
			tracks[i].Name, tracks[i].File, tracks[i].Path = fmt.Sprintf("mic%d", i+1), fmt.Sprintf("mic%d.wav", i+1), fmt.Sprintf("/rec/mic%d.wav", i+1)
		}
		e, err := newTracksEdit(c.keep, tracks, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteTracks(&b, OTIO, c.keep, tracks, Options{}); err != nil {
			t.Fatal(err)
		}
		got := tracksOTIO(t, b.Bytes(), e)
		if len(got) != n {
			t.Fatalf("%d tracks: %d OTIO audio tracks", n, len(got))
		}
		for i := range got {
			if diff := cmp.Diff(e.segs, got[i]); diff != "" {
				t.Errorf("%d tracks: track %d (-cut +clips):\n%s", n, i+1, diff)
			}
		}
	}
}

// TestTracksOneIsWrite: one track writes what Write does, byte for byte.
func TestTracksOneIsWrite(t *testing.T) {
	for _, c := range cases() {
		for _, k := range Kinds() {
			var a, b bytes.Buffer
			errA := Write(&a, k, c.keep, c.m, c.o)
			errB := WriteTracks(&b, k, c.keep, []Media{c.m}, c.o)
			if !errors.Is(errB, errA) && (errA == nil) != (errB == nil) || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s %s: WriteTracks of one track differs from Write (%v, %v)", c.name, k, errA, errB)
			}
		}
	}
}

func TestTracksErrors(t *testing.T) {
	m := Media{Name: "a", File: "a.wav", Path: "/a.wav", Duration: 10, SampleRate: 48000, Channels: 1}
	keep := []dsp.Range{{Start: 1, End: 5}}
	many := make([]Media, MaxTracks+1)
	for i := range many {
		many[i] = m
	}
	bad := m
	bad.Duration = 0
	for _, c := range []struct {
		name   string
		tracks []Media
		o      Options
	}{
		{"no track", nil, Options{}},
		{"17 tracks", many, Options{}},
		{"a track of no length", []Media{m, bad}, Options{}},
		{"EDL track past the last", []Media{m, m}, Options{EDLTrack: 3}},
	} {
		var b bytes.Buffer
		if err := WriteTracks(&b, EDL, keep, c.tracks, c.o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", c.name, err)
		}
	}
	if err := WriteTracks(&bytes.Buffer{}, EDL, keep, many[:MaxTracks], Options{EDLTrack: MaxTracks}); err != nil {
		t.Errorf("%d tracks: %v", MaxTracks, err)
	}
}

// tracksFCPXML reads each track's segments back from FCPXML: the spine's
// clips are the first track's; lane -k's connected clips track k+1's.
func tracksFCPXML(t *testing.T, b []byte, e *edit) [][]Segment {
	t.Helper()
	type clip struct {
		XMLName  xml.Name
		Ref      string `xml:"ref,attr"`
		Lane     string `xml:"lane,attr"`
		Offset   string `xml:"offset,attr"`
		Start    string `xml:"start,attr"`
		Duration string `xml:"duration,attr"`
		Children []clip `xml:"asset-clip"`
	}
	var doc struct {
		Assets []struct {
			ID    string `xml:"id,attr"`
			Start string `xml:"start,attr"`
			Src   string `xml:"src,attr"`
			Rep   struct {
				Src string `xml:"src,attr"`
			} `xml:"media-rep"`
		} `xml:"resources>asset"`
		Spine struct {
			Items []clip `xml:",any"`
		} `xml:"library>event>project>sequence>spine"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Assets) != len(e.tracks) {
		t.Fatalf("%d assets for %d tracks", len(doc.Assets), len(e.tracks))
	}
	tc := map[string]int64{}
	track := map[string]int{}
	for i, a := range doc.Assets {
		if want := fileURL(e.tracks[i].m.Path); a.Src+a.Rep.Src != want {
			t.Errorf("asset %s src %q, want %q", a.ID, a.Src+a.Rep.Src, want)
		}
		tc[a.ID], track[a.ID] = fcpFrames(t, a.Start, e.rate), i
	}
	out := make([][]Segment, len(e.tracks))
	var rec int64
	for _, it := range doc.Spine.Items {
		off, d := fcpFrames(t, it.Offset, e.rate), fcpFrames(t, it.Duration, e.rate)
		if off != rec {
			t.Errorf("spine item at %d, want %d (contiguous)", off, rec)
		}
		rec = off + d
		parentStart := int64(0)
		switch it.XMLName.Local {
		case "asset-clip":
			if it.Ref != "r2" {
				t.Errorf("spine clip of %s, want the first track's r2", it.Ref)
			}
			parentStart = fcpFrames(t, it.Start, e.rate)
			in := parentStart - tc[it.Ref]
			out[0] = append(out[0], Segment{SrcIn: in, SrcOut: in + d, RecIn: off, RecOut: off + d})
		case "gap":
		default:
			t.Errorf("spine item %s", it.XMLName.Local)
		}
		for _, c := range it.Children {
			ti, ok := track[c.Ref]
			if !ok || ti == 0 || c.Lane != "-"+strconv.Itoa(ti) {
				t.Fatalf("connected clip of %q in lane %q", c.Ref, c.Lane)
			}
			in, cd := fcpFrames(t, c.Start, e.rate)-tc[c.Ref], fcpFrames(t, c.Duration, e.rate)
			r := off + fcpFrames(t, c.Offset, e.rate) - parentStart
			out[ti] = append(out[ti], Segment{SrcIn: in, SrcOut: in + cd, RecIn: r, RecOut: r + cd})
		}
	}
	return out
}

// tracksXMEML reads each track's segments back from xmeml: every audio
// track's clipitems, by their file, all a track's channels alike.
func tracksXMEML(t *testing.T, b []byte, e *edit) [][]Segment {
	t.Helper()
	type clip struct {
		ID    string `xml:"id,attr"`
		Start int64  `xml:"start"`
		End   int64  `xml:"end"`
		In    int64  `xml:"in"`
		Out   int64  `xml:"out"`
		File  struct {
			ID      string `xml:"id,attr"`
			PathURL string `xml:"pathurl"`
		} `xml:"file"`
		Links []struct {
			Ref string `xml:"linkclipref"`
		} `xml:"link"`
	}
	var doc struct {
		Video []struct {
			Clips []clip `xml:"clipitem"`
		} `xml:"sequence>media>video>track"`
		Audio []struct {
			Clips []clip `xml:"clipitem"`
		} `xml:"sequence>media>audio>track"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	wantAudio := 0
	for _, tr := range e.tracks {
		wantAudio += 1 + boolInt(tr.m.Channels != 1)
	}
	if len(doc.Audio) != wantAudio {
		t.Fatalf("%d audio tracks, want %d", len(doc.Audio), wantAudio)
	}
	ids := map[string]bool{}
	var all []clip
	for _, tr := range doc.Video {
		all = append(all, tr.Clips...)
	}
	for _, tr := range doc.Audio {
		all = append(all, tr.Clips...)
	}
	full := map[string]string{}
	for _, c := range all {
		if ids[c.ID] {
			t.Errorf("clipitem id %s twice", c.ID)
		}
		ids[c.ID] = true
		if c.File.PathURL != "" {
			if _, ok := full[c.File.ID]; ok {
				t.Errorf("file %s defined twice", c.File.ID)
			}
			full[c.File.ID] = c.File.PathURL
		}
	}
	for _, c := range all {
		for _, l := range c.Links {
			if !ids[l.Ref] {
				t.Errorf("clipitem %s links to %s, which is not there", c.ID, l.Ref)
			}
		}
	}
	if len(full) != len(e.tracks) {
		t.Errorf("%d full file definitions for %d tracks", len(full), len(e.tracks))
	}
	out := make([][]Segment, len(e.tracks))
	seen := make([]bool, len(e.tracks))
	for _, tr := range doc.Audio {
		var segs []Segment
		ti := -1
		for _, c := range tr.Clips {
			n, err := strconv.Atoi(strings.TrimPrefix(c.File.ID, "file-"))
			if err != nil || n < 1 || n > len(e.tracks) || ti >= 0 && n-1 != ti {
				t.Fatalf("clipitem %s of file %q", c.ID, c.File.ID)
			}
			ti = n - 1
			segs = append(segs, Segment{SrcIn: c.In, SrcOut: c.Out, RecIn: c.Start, RecOut: c.End})
		}
		if ti < 0 {
			continue // a track of no clip
		}
		if want := pathURL(e.tracks[ti].m.Path); full["file-"+strconv.Itoa(ti+1)] != want {
			t.Errorf("file-%d pathurl %q, want %q", ti+1, full["file-"+strconv.Itoa(ti+1)], want)
		}
		if seen[ti] && !cmp.Equal(out[ti], segs) {
			t.Errorf("track %d's channels are cut otherwise", ti+1)
		}
		seen[ti], out[ti] = true, segs
	}
	return out
}

// tracksOTIO reads each audio track's segments back from OTIO, checking
// that its clips refer to its track's media.
func tracksOTIO(t *testing.T, b []byte, e *edit) [][]Segment {
	t.Helper()
	var doc struct {
		Tracks struct {
			Children []struct {
				Schema   string `json:"OTIO_SCHEMA"`
				Name     string `json:"name"`
				Kind     string `json:"kind"`
				Children []struct {
					Schema string    `json:"OTIO_SCHEMA"`
					Source otioRange `json:"source_range"`
					Refs   map[string]struct {
						Available otioRange `json:"available_range"`
						URL       string    `json:"target_url"`
					} `json:"media_references"`
				} `json:"children"`
			} `json:"children"`
		} `json:"tracks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if want := len(e.tracks) + boolInt(e.m.HasVideo); len(doc.Tracks.Children) != want {
		t.Fatalf("%d tracks, want %d", len(doc.Tracks.Children), want)
	}
	var out [][]Segment
	for _, tr := range doc.Tracks.Children {
		if tr.Kind != "Audio" {
			continue
		}
		ti := len(out)
		if tr.Schema != "Track.1" || tr.Name != fmt.Sprintf("A%d", ti+1) {
			t.Errorf("track %s %q", tr.Schema, tr.Name)
		}
		var rec int64
		segs := []Segment{}
		for _, c := range tr.Children {
			ref := c.Refs["DEFAULT_MEDIA"]
			if c.Schema != "Clip.2" || ref.URL != fileURL(e.tracks[ti].m.Path) || int64(ref.Available.Duration.Value) != e.tracks[ti].last {
				t.Fatalf("track %d clip %+v", ti+1, c)
			}
			in, d := int64(c.Source.Start.Value-ref.Available.Start.Value), int64(c.Source.Duration.Value)
			segs = append(segs, Segment{SrcIn: in, SrcOut: in + d, RecIn: rec, RecOut: rec + d})
			rec += d
		}
		if len(segs) == 0 {
			segs = nil
		}
		out = append(out, segs)
	}
	return out
}

// tracksCSV reads each track's rows back from the CSV's track column.
func tracksCSV(t *testing.T, b []byte, e *edit) [][]Segment {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(csvTracksHeader, rows[0]); diff != "" {
		t.Errorf("header: %s", diff)
	}
	out := make([][]Segment, len(e.tracks))
	for _, r := range rows[1:] {
		n := func(i int) int64 { v, _ := strconv.ParseInt(r[i], 10, 64); return v }
		ti := int(n(1)) - 1
		if ti < 0 || ti >= len(e.tracks) || r[2] != e.tracks[ti].m.Path || n(0) != int64(len(out[ti])+1) {
			t.Fatalf("row %q", r)
		}
		out[ti] = append(out[ti], Segment{SrcIn: n(8), SrcOut: n(9), RecIn: n(10), RecOut: n(11)})
	}
	return out
}

// tracksEDL reads each track's EDL back (the first's out-autocut.edl,
// track n's out-autocut-trackn.edl), each naming its own media.
func tracksEDL(t *testing.T, dir string, e *edit) [][]Segment {
	t.Helper()
	var out [][]Segment
	for ti, tr := range e.tracks {
		name := "out-autocut.edl"
		if ti > 0 {
			name = fmt.Sprintf("out-autocut-track%d.edl", ti+1)
		}
		one := *e
		one.m, one.tc = tr.m, tr.tc
		out = append(out, checkEDL(t, filepath.Join(dir, name), &one))
	}
	return out
}
