package timeline

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/dsp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var (
	ntsc30 = dsp.Rational{Num: 30000, Den: 1001}
	ntsc24 = dsp.Rational{Num: 24000, Den: 1001}
	ntsc60 = dsp.Rational{Num: 60000, Den: 1001}
)

// tcase is one golden scenario.
type tcase struct {
	name string
	keep []dsp.Range
	m    Media
	o    Options
}

func manyRanges(n int, dur float64) []dsp.Range {
	var out []dsp.Range
	step := dur / float64(n)
	for i := 0; i < n; i++ {
		s := float64(i)*step + step*0.2
		out = append(out, dsp.Range{Start: s, End: s + step*0.6})
	}
	return out
}

func cases() []tcase {
	video := func(rate dsp.Rational, dur float64) Media {
		return Media{Name: "My Interview", File: "My Interview.mov", Path: "/Volumes/Media/My Interview.mov", Duration: dur,
			SampleRate: 48000, Channels: 2, HasVideo: true, FrameRate: rate}
	}
	audio := Media{Name: "podcast ep1", File: "podcast ep1.wav", Path: "/Users/me/Audio/podcast ep1.wav", Duration: 600, SampleRate: 48000, Channels: 2}
	mono := audio
	mono.Channels, mono.SampleRate, mono.Name, mono.File, mono.Path = 1, 44100, "voice", "voice.wav", "/data/voice.wav"
	va := []dsp.Range{{Start: 1.5, End: 4.2}, {Start: 10.0, End: 12.5}, {Start: 30.03, End: 33.0}}
	unicode := audio
	unicode.Name, unicode.File, unicode.Path = "Épisode 3 – café", "Épisode 3 – café.wav", "/Users/zoé/Mes Podcasts/Épisode 3 – café.wav"
	small := video(ntsc30, 120)
	small.Width, small.Height, small.Name, small.File, small.Path = 640, 360, "webcam", "webcam.mp4", "/home/me/Videos/webcam.mp4"
	tall := video(dsp.Rational{Num: 30, Den: 1}, 60)
	tall.Width, tall.Height, tall.Name, tall.File, tall.Path = 1080, 1920, "story", "story.mov", "/home/me/Videos/story.mov"
	phone := mono
	phone.SampleRate, phone.Name, phone.File, phone.Path = 8000, "call", "call.wav", "/data/call.wav"
	withTC := video(ntsc30, 3600*1001.0/30000)
	withTC.StartTimecode = 3600 * 1001 / 1000.0 // 01:00:00;00 drop-frame area
	return []tcase{
		{"audio48k_stereo", []dsp.Range{{Start: 2.0, End: 65.5}, {Start: 70.25, End: 130.0}}, audio, Options{}},
		{"audio_mono_25", []dsp.Range{{Start: 0.5, End: 3.3}, {Start: 4.1, End: 9.75}}, mono, Options{Rate: dsp.Rational{Num: 25, Den: 1}}},
		{"video2997_ndf", va, video(ntsc30, 3600*1001.0/30000), Options{}},
		{"video2997_df", va, video(ntsc30, 3600*1001.0/30000), Options{DropFrame: true}},
		{"video2997_timecode", va, withTC, Options{DropFrame: true}},
		{"video25", va, video(dsp.Rational{Num: 25, Den: 1}, 120), Options{}},
		{"video23976", va, video(ntsc24, 120), Options{}},
		{"one_range", []dsp.Range{{Start: 0.25, End: 599.5}}, audio, Options{}},
		{"ranges1500", manyRanges(1500, 3000), Media{Name: "long", File: "long.wav", Path: "/srv/long.wav", Duration: 3000, SampleRate: 48000, Channels: 2}, Options{}},
		{"path_unicode_spaces", []dsp.Range{{Start: 2.0, End: 65.5}}, unicode, Options{Rate: ntsc30}},
		{"video640x360", va, small, Options{}},
		{"video_vertical", va, tall, Options{}},
		{"audio8k_mono", []dsp.Range{{Start: 0.5, End: 3.3}, {Start: 4.1, End: 9.75}}, phone, Options{}},
	}
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./timeline -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

func TestGoldenAndParseBack(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			e, err := newEdit(c.keep, c.m, c.o)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			files, err := WriteFiles(dir, "out", Kinds(), c.keep, c.m, c.o)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				b, _ := os.ReadFile(f)
				if !strings.HasPrefix(c.name, "ranges1500") || strings.HasSuffix(f, ".edl") || strings.HasSuffix(f, ".csv") {
					golden(t, c.name+strings.TrimPrefix(filepath.Base(f), "out-autocut"), b)
				}
			}
			want := e.segs
			for _, k := range Kinds() {
				var got []Segment
				switch k {
				case EDL:
					got = nil
					edls, _ := filepath.Glob(filepath.Join(dir, "out-autocut*.edl"))
					if len(edls) != len(e.edlParts(&e.tracks[0])) {
						t.Fatalf("%d EDL files, want %d", len(edls), len(e.edlParts(&e.tracks[0])))
					}
					for i := range edls {
						name := "out-autocut.edl"
						if i > 0 {
							name = fmt.Sprintf("out-autocut-part%d.edl", i+1)
						}
						got = append(got, checkEDL(t, filepath.Join(dir, name), e)...)
					}
				default:
					b, err := os.ReadFile(filepath.Join(dir, "out-autocut"+k.Ext()))
					if err != nil {
						t.Fatal(err)
					}
					got = parseBack(t, k, b, e)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s does not parse back to the frame list (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

func parseBack(t *testing.T, k Kind, b []byte, e *edit) []Segment {
	t.Helper()
	switch k {
	case FCPXML:
		return checkFCPXML(t, b, e)
	case Premiere:
		return checkXMEML(t, b, e)
	case OTIO:
		return checkOTIO(t, b, e)
	case CSV:
		return checkCSV(t, b, e)
	}
	t.Fatalf("kind %s", k)
	return nil
}

// fcpFrames reads "0s", "Ns" or "N/Ds" and returns frames at rate, failing off the grid.
func fcpFrames(t *testing.T, s string, rate dsp.Rational) int64 {
	t.Helper()
	v := strings.TrimSuffix(s, "s")
	n, d := int64(0), int64(1)
	if a, b, ok := strings.Cut(v, "/"); ok {
		n, _ = strconv.ParseInt(a, 10, 64)
		d, _ = strconv.ParseInt(b, 10, 64)
	} else {
		n, _ = strconv.ParseInt(v, 10, 64)
	}
	// frames = n/d * num/den
	if (n*rate.Num)%(d*rate.Den) != 0 {
		t.Fatalf("time %q is off the %s frame grid", s, rate)
	}
	return n * rate.Num / (d * rate.Den)
}

func checkFCPXML(t *testing.T, b []byte, e *edit) []Segment {
	var doc struct {
		Version string `xml:"version,attr"`
		Format  struct {
			Name          string `xml:"name,attr"`
			FrameDuration string `xml:"frameDuration,attr"`
			Width         int    `xml:"width,attr"`
			Height        int    `xml:"height,attr"`
		} `xml:"resources>format"`
		Asset struct {
			Start string `xml:"start,attr"`
			Src   string `xml:"src,attr"`
			Rep   struct {
				Src string `xml:"src,attr"`
			} `xml:"media-rep"`
		} `xml:"resources>asset"`
		Seq struct {
			Duration string `xml:"duration,attr"`
			Layout   string `xml:"audioLayout,attr"`
			Clips    []struct {
				Offset   string `xml:"offset,attr"`
				Start    string `xml:"start,attr"`
				Duration string `xml:"duration,attr"`
			} `xml:"spine>asset-clip"`
		} `xml:"library>event>project>sequence"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seq.Layout != "stereo" && doc.Seq.Layout != "surround" {
		t.Errorf("audioLayout %q", doc.Seq.Layout)
	}
	src := doc.Asset.Rep.Src + doc.Asset.Src
	if strings.HasPrefix(e.m.Path, "/") && !strings.HasPrefix(src, "file:///") || strings.ContainsAny(src, " é") {
		t.Errorf("media src %q is not a percent-encoded file URL", src)
	}
	if fcpFrames(t, doc.Format.FrameDuration, e.rate) != 1 {
		t.Errorf("frameDuration %s", doc.Format.FrameDuration)
	}
	if w, h := wantSize(e.m); doc.Format.Width != w || doc.Format.Height != h {
		t.Errorf("format %dx%d, want %dx%d", doc.Format.Width, doc.Format.Height, w, h)
	}
	// A built-in name only where it says the same size (1080p, 720p, ...).
	if n := doc.Format.Name; n != "" && !strings.HasPrefix(n, "FFVideoFormat"+map[int]string{1080: "1080p", 720: "720p"}[doc.Format.Height]) &&
		!strings.HasPrefix(n, fmt.Sprintf("FFVideoFormat%dx%dp", doc.Format.Width, doc.Format.Height)) {
		t.Errorf("format name %q for %dx%d", n, doc.Format.Width, doc.Format.Height)
	}
	tc := fcpFrames(t, doc.Asset.Start, e.rate)
	var out []Segment
	for _, c := range doc.Seq.Clips {
		in, d, rec := fcpFrames(t, c.Start, e.rate)-tc, fcpFrames(t, c.Duration, e.rate), fcpFrames(t, c.Offset, e.rate)
		out = append(out, Segment{SrcIn: in, SrcOut: in + d, RecIn: rec, RecOut: rec + d})
	}
	if n := len(out); n > 0 && fcpFrames(t, doc.Seq.Duration, e.rate) != out[n-1].RecOut {
		t.Errorf("sequence duration %s", doc.Seq.Duration)
	}
	return out
}

// wantSize is the frame size a timeline must declare for m.
func wantSize(m Media) (int, int) {
	if m.HasVideo && m.Width > 0 {
		return m.Width, m.Height
	}
	return 1920, 1080
}

func checkXMEML(t *testing.T, b []byte, e *edit) []Segment {
	type size struct {
		Width  int `xml:"width"`
		Height int `xml:"height"`
	}
	type clip struct {
		ID    string `xml:"id,attr"`
		Start int64  `xml:"start"`
		End   int64  `xml:"end"`
		In    int64  `xml:"in"`
		Out   int64  `xml:"out"`
		File  struct {
			ID      string `xml:"id,attr"`
			PathURL string `xml:"pathurl"`
			Name    string `xml:"name"`
			Video   size   `xml:"media>video>samplecharacteristics"`
			Rate    int    `xml:"media>audio>samplecharacteristics>samplerate"`
		} `xml:"file"`
		Rate struct {
			Timebase int64  `xml:"timebase"`
			NTSC     string `xml:"ntsc"`
		} `xml:"rate"`
	}
	var doc struct {
		Version  string `xml:"version,attr"`
		SeqVideo size   `xml:"sequence>media>video>format>samplecharacteristics"`
		SeqAudio struct {
			Rate int `xml:"samplerate"`
		} `xml:"sequence>media>audio>format>samplecharacteristics"`
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
	// Audio-only media too: the sequence settings need a video format.
	if w, h := wantSize(e.m); doc.SeqVideo != (size{w, h}) {
		t.Errorf("sequence frame size %+v, want %dx%d", doc.SeqVideo, w, h)
	}
	seqRate := e.m.SampleRate
	if !slices.Contains([]int{32000, 44100, 48000, 88200, 96000}, seqRate) {
		seqRate = 48000
	}
	if doc.SeqAudio.Rate != seqRate {
		t.Errorf("sequence sample rate %d, want %d (source %d Hz)", doc.SeqAudio.Rate, seqRate, e.m.SampleRate)
	}
	wantAudio := 2
	if e.m.Channels == 1 {
		wantAudio = 1
	}
	if len(doc.Audio) != wantAudio || (len(doc.Video) == 1) != e.m.HasVideo {
		t.Fatalf("%d video and %d audio tracks", len(doc.Video), len(doc.Audio))
	}
	ids := map[string]bool{}
	full := 0
	var all []clip
	for _, tr := range doc.Video {
		all = append(all, tr.Clips...)
	}
	for _, tr := range doc.Audio {
		all = append(all, tr.Clips...)
		if len(tr.Clips) != len(e.segs) {
			t.Errorf("audio track with %d clips", len(tr.Clips))
		}
	}
	for _, c := range all {
		if ids[c.ID] {
			t.Errorf("clipitem id %s twice", c.ID)
		}
		ids[c.ID] = true
		if c.File.PathURL != "" {
			full++
			// The file is described as it is: its own size and sample rate.
			if w, h := wantSize(e.m); e.m.HasVideo && c.File.Video != (size{w, h}) || c.File.Rate != e.m.SampleRate {
				t.Errorf("file %dx%d at %d Hz, want %dx%d at %d Hz", c.File.Video.Width, c.File.Video.Height, c.File.Rate, w, h, e.m.SampleRate)
			}
			if strings.HasPrefix(e.m.Path, "/") && !strings.HasPrefix(c.File.PathURL, "file://localhost/") || strings.ContainsAny(c.File.PathURL, " é") {
				t.Errorf("pathurl %q", c.File.PathURL)
			}
		}
		wantNTSC := map[bool]string{true: "TRUE", false: "FALSE"}[e.rate.Den == 1001]
		if c.Rate.Timebase != e.fps || c.Rate.NTSC != wantNTSC {
			t.Errorf("rate %+v", c.Rate)
		}
	}
	if full != 1 {
		t.Errorf("%d full file definitions, want 1", full)
	}
	first := doc.Audio[0].Clips
	if e.m.HasVideo {
		first = doc.Video[0].Clips
	}
	var out []Segment
	for _, c := range first {
		out = append(out, Segment{SrcIn: c.In, SrcOut: c.Out, RecIn: c.Start, RecOut: c.End})
	}
	return out
}

var edlEvent = regexp.MustCompile(`^(\d{3})  (\S{1,8}) +(V|A|AA) +C        (\d\d:\d\d:\d\d[:;]\d\d) (\d\d:\d\d:\d\d[:;]\d\d) (\d\d:\d\d:\d\d[:;]\d\d) (\d\d:\d\d:\d\d[:;]\d\d)$`)

func checkEDL(t *testing.T, path string, e *edit) []Segment {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var out []Segment
	events, lastEvent, sources := 0, -1, 0
	fcm := ""
	for i := 0; sc.Scan(); i++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "FCM: "):
			fcm = l
		case strings.HasPrefix(l, "* FROM CLIP NAME: "):
			if lastEvent != i-1 || l != "* FROM CLIP NAME: "+e.m.File {
				t.Errorf("clip name line %d %q does not follow an event or does not name %s", i, l, e.m.File)
			}
		case strings.HasPrefix(l, "* FROM FILE: "), strings.HasPrefix(l, "* SOURCE FILE: "):
			// The source file, the media's path, on the lines after the clip name.
			if _, p, _ := strings.Cut(l, ": "); p != e.m.Path || lastEvent < i-3 {
				t.Errorf("line %d %q: want the path %q on the lines after an event", i, l, e.m.Path)
			}
			sources++
		case edlEvent.MatchString(l):
			m := edlEvent.FindStringSubmatch(l)
			events++
			lastEvent = i
			if n, _ := strconv.Atoi(m[1]); n != events {
				t.Errorf("event number %s, want %d", m[1], events)
			}
			if len(m[2]) > 8 {
				t.Errorf("reel %q longer than 8", m[2])
			}
			if (strings.Contains(l, ";")) != e.drop {
				t.Errorf("timecode separators wrong for drop=%v: %s", e.drop, l)
			}
			fr := func(s string) int64 {
				v, _, err := ParseTimecode(s, e.fps)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			recStart, _, _ := ParseTimecode(Timecode(0, e.fps, false)[:0]+"01:00:00"+map[bool]string{true: ";", false: ":"}[e.drop]+"00", e.fps)
			s := Segment{SrcIn: fr(m[4]) - e.tc, SrcOut: fr(m[5]) - e.tc, RecIn: fr(m[6]) - recStart, RecOut: fr(m[7]) - recStart}
			if m[3] == "V" || !e.m.HasVideo {
				out = append(out, s)
			}
		case l == "" || strings.HasPrefix(l, "TITLE: "):
		default:
			t.Errorf("unexpected EDL line %q", l)
		}
	}
	if sources != 2*events {
		t.Errorf("%d source file lines for %d events, want two each", sources, events)
	}
	if events > edlMaxEvents {
		t.Errorf("%d events in one EDL", events)
	}
	if (fcm == "FCM: DROP FRAME") != e.drop || fcm == "" {
		t.Errorf("FCM line %q", fcm)
	}
	return out
}

// otioMeta is what an OTIO document's metadata says of the sequence
// (Timeline.1) and of the media (ExternalReference.1), under "autocut".
type otioMeta struct {
	Width         int    `json:"width"`
	Height        int    `json:"height"`
	Rate          string `json:"rate"`
	AudioRate     int    `json:"audio_rate"`
	AudioChannels int    `json:"audio_channels"`
	SampleRate    int    `json:"sample_rate"`
	Channels      int    `json:"channels"`
}

func checkOTIO(t *testing.T, b []byte, e *edit) []Segment {
	var doc struct {
		Schema   string `json:"OTIO_SCHEMA"`
		Metadata struct {
			Autocut *otioMeta `json:"autocut"`
		} `json:"metadata"`
		Tracks struct {
			Schema   string `json:"OTIO_SCHEMA"`
			Children []struct {
				Schema   string `json:"OTIO_SCHEMA"`
				Kind     string `json:"kind"`
				Children []struct {
					Schema string    `json:"OTIO_SCHEMA"`
					Source otioRange `json:"source_range"`
					Refs   map[string]struct {
						Schema    string    `json:"OTIO_SCHEMA"`
						Available otioRange `json:"available_range"`
						URL       string    `json:"target_url"`
						Metadata  struct {
							Autocut *otioMeta `json:"autocut"`
						} `json:"metadata"`
					} `json:"media_references"`
				} `json:"children"`
			} `json:"children"`
		} `json:"tracks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "Timeline.1" || doc.Tracks.Schema != "Stack.1" {
		t.Fatalf("schemas %s %s", doc.Schema, doc.Tracks.Schema)
	}
	// The sequence's frame size, rate and audio rate, as the XML formats
	// state them, and the media's own audio rate and channels.
	w, h := wantSize(e.m)
	seq := otioMeta{Width: w, Height: h, Rate: e.rate.String(), AudioRate: sequenceSampleRate(e.m.SampleRate), AudioChannels: max(e.m.Channels, 1)}
	if doc.Metadata.Autocut == nil {
		t.Errorf("no timeline metadata")
	} else if diff := cmp.Diff(seq, *doc.Metadata.Autocut); diff != "" {
		t.Errorf("timeline metadata (-want +got):\n%s", diff)
	}
	media := otioMeta{SampleRate: e.m.SampleRate, Channels: max(e.m.Channels, 1)}
	if e.m.HasVideo {
		media.Width, media.Height = w, h
	}
	wantTracks := 1 + boolInt(e.m.HasVideo)
	if len(doc.Tracks.Children) != wantTracks {
		t.Fatalf("%d tracks", len(doc.Tracks.Children))
	}
	var first []Segment
	for ti, tr := range doc.Tracks.Children {
		if tr.Schema != "Track.1" {
			t.Errorf("track schema %s", tr.Schema)
		}
		var rec int64
		var segs []Segment
		for _, c := range tr.Children {
			ref, ok := c.Refs["DEFAULT_MEDIA"]
			if c.Schema != "Clip.2" || !ok || ref.Schema != "ExternalReference.1" {
				t.Fatalf("clip %+v", c)
			}
			if ref.Metadata.Autocut == nil {
				t.Fatalf("clip %+v: no media metadata", c)
			}
			if diff := cmp.Diff(media, *ref.Metadata.Autocut); diff != "" {
				t.Fatalf("media metadata (-want +got):\n%s", diff)
			}
			for _, v := range []otioTime{c.Source.Start, c.Source.Duration, ref.Available.Start, ref.Available.Duration} {
				if v.Rate != e.rate.Float() || v.Value != float64(int64(v.Value)) {
					t.Errorf("time %+v not integral at rate %v", v, e.rate.Float())
				}
			}
			in := int64(c.Source.Start.Value - ref.Available.Start.Value)
			d := int64(c.Source.Duration.Value)
			segs = append(segs, Segment{SrcIn: in, SrcOut: in + d, RecIn: rec, RecOut: rec + d})
			rec += d
		}
		if ti == 0 {
			first = segs
		} else if diff := cmp.Diff(first, segs); diff != "" {
			t.Errorf("tracks differ: %s", diff)
		}
	}
	return first
}

func checkCSV(t *testing.T, b []byte, e *edit) []Segment {
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(csvHeader, rows[0]); diff != "" {
		t.Errorf("header: %s", diff)
	}
	var out []Segment
	for _, r := range rows[1:] {
		n := func(i int) int64 { v, _ := strconv.ParseInt(r[i], 10, 64); return v }
		out = append(out, Segment{SrcIn: n(7), SrcOut: n(8), RecIn: n(9), RecOut: n(10)})
		if r[11] != e.rate.String() {
			t.Errorf("rate column %q", r[11])
		}
	}
	return out
}

// TestReferenceFrames reproduces the frame numbers of the hand-checked
// reference timelines in testdata/reference (their CSV columns
// src_in_frame and src_out_frame; record frames run on from 0).
func TestReferenceFrames(t *testing.T) {
	for _, c := range []struct {
		file string
		keep []dsp.Range
		rate dsp.Rational
		dur  float64
	}{
		{"va_3seg.csv", []dsp.Range{{Start: 1.5, End: 4.2}, {Start: 10.0, End: 12.5}, {Start: 30.03, End: 33.0}}, ntsc30, 3600 * 1001.0 / 30000},
		{"audio_2seg.csv", []dsp.Range{{Start: 2.0, End: 65.5}, {Start: 70.25, End: 130.0}}, dsp.Rational{Num: 30, Den: 1}, 600},
	} {
		f, err := os.Open(filepath.Join("testdata", "reference", c.file))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) < 2 {
			t.Fatalf("%s: %d rows, %v", c.file, len(rows), err)
		}
		var want []Segment
		var rec int64
		for _, r := range rows[1:] {
			in, err1 := strconv.ParseInt(r[7], 10, 64)
			out, err2 := strconv.ParseInt(r[8], 10, 64)
			if err1 != nil || err2 != nil || r[9] != fmt.Sprintf("%d/%d", c.rate.Num, c.rate.Den) {
				t.Fatalf("%s: row %q", c.file, r)
			}
			want = append(want, Segment{SrcIn: in, SrcOut: out, RecIn: rec, RecOut: rec + out - in})
			rec += out - in
		}
		if diff := cmp.Diff(want, FrameList(c.keep, c.rate, c.dur)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.file, diff)
		}
	}
	// Touching after snapping merges; empty drops; clamps to the last whole frame.
	got := FrameList([]dsp.Range{{Start: 0, End: 1.001}, {Start: 1.01, End: 2}, {Start: 3, End: 3.01}, {Start: 9.9, End: 20}}, dsp.Rational{Num: 25, Den: 1}, 10.03)
	want := []Segment{{0, 50, 0, 50}, {248, 250, 50, 52}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merge/drop/clamp (-want +got):\n%s", diff)
	}
}

func TestFCPXMLValidatesAgainstDTDs(t *testing.T) {
	dtdDir := filepath.Join("testdata", "dtd")
	for _, c := range cases() {
		for _, v := range FCPXMLVersions() {
			o := c.o
			o.FCPXMLVersion = v
			var b bytes.Buffer
			if err := Write(&b, FCPXML, c.keep, c.m, o); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "x.fcpxml")
			os.WriteFile(p, b.Bytes(), 0o644)
			dtd := filepath.Join(dtdDir, "FCPXMLv"+strings.ReplaceAll(v, ".", "_")+".dtd")
			if out, err := exec.Command("xmllint", "--noout", "--dtdvalid", dtd, p).CombinedOutput(); err != nil {
				t.Errorf("%s v%s: %v\n%s", c.name, v, err, out)
			}
		}
	}
}

// TestThreeHoursFrameExact: at 1001-based rates the record end is the sum of
// durations, and timecode <-> frames is the identity for every frame of 3 h.
func TestThreeHoursFrameExact(t *testing.T) {
	for _, rate := range []dsp.Rational{ntsc24, ntsc30, ntsc60} {
		rng := rand.New(rand.NewSource(1))
		var keep []dsp.Range
		for s := 0.0; s < 3*3600-5; {
			d := 0.2 + rng.Float64()*4
			keep = append(keep, dsp.Range{Start: s, End: s + d})
			s += d + 0.1 + rng.Float64()*2
		}
		segs := FrameList(keep, rate, 3*3600)
		var sum int64
		for i, s := range segs {
			if s.RecIn != sum || (i > 0 && s.SrcIn <= segs[i-1].SrcOut-1) {
				t.Fatalf("segment %d %+v: record in %d, running sum %d", i, s, s.RecIn, sum)
			}
			sum += s.Len()
		}
		if segs[len(segs)-1].RecOut != sum {
			t.Errorf("%s: last record out %d != sum %d", rate, segs[len(segs)-1].RecOut, sum)
		}
		fps := int64(rate.Float() + 0.5)
		n := int64(3*3600*rate.Float()) + 1
		for _, drop := range []bool{false, true} {
			if drop && fps == 24 {
				continue
			}
			for f := int64(0); f < n; f++ {
				tc := Timecode(f, fps, drop)
				back, _, err := ParseTimecode(tc, fps)
				if err != nil || back != f {
					t.Fatalf("%s drop=%v: frame %d -> %s -> %d (%v)", rate, drop, f, tc, back, err)
				}
			}
		}
	}
	if tc := Timecode(1800, 30, true); tc != "00:01:00;02" {
		t.Errorf("first frame of minute 1 in DF is %s, want 00:01:00;02", tc)
	}
	if tc := Timecode(17982, 30, true); tc != "00:10:00;00" {
		t.Errorf("frame 17982 DF is %s, want 00:10:00;00", tc)
	}
}

func TestOptionsErrors(t *testing.T) {
	m := Media{Name: "a", File: "a.wav", Path: "a.wav", Duration: 10, SampleRate: 48000, Channels: 2}
	keep := []dsp.Range{{Start: 1, End: 2}}
	for _, c := range []struct {
		k Kind
		o Options
	}{
		{EDL, Options{Rate: dsp.Rational{Num: 25, Den: 1}, DropFrame: true}},
		{FCPXML, Options{FCPXMLVersion: "1.7"}},
		{Kind("aaf"), Options{}},
	} {
		if err := Write(io.Discard, c.k, keep, m, c.o); err == nil {
			t.Errorf("%s %+v: no error", c.k, c.o)
		}
	}
	if err := Write(io.Discard, CSV, []dsp.Range{{Start: 1, End: 1.001}}, m, Options{}); err == nil {
		t.Errorf("empty frame list: no error")
	}
	err := Write(io.Discard, EDL, manyRanges(1200, 3000), Media{Name: "l", File: "l.wav", Path: "l.wav", Duration: 3000, SampleRate: 48000, Channels: 2}, Options{})
	if err == nil || !strings.Contains(err.Error(), "WriteFiles") {
		t.Errorf("1200 events to one writer: %v", err)
	}
	if _, err := ParseKinds("fcpxml,aaf"); err == nil {
		t.Errorf("ParseKinds accepted aaf")
	}
	if k, err := ParseKinds("edl, EDL,csv,edl"); err != nil || !slices.Equal(k, []Kind{EDL, CSV}) {
		t.Errorf("ParseKinds with a kind named twice: %v, %v; want [edl csv]", k, err)
	}
	for _, s := range []string{"23.976", "29.97", "25", "30000/1001"} {
		if _, err := ParseRate(s); err != nil {
			t.Errorf("ParseRate(%q): %v", s, err)
		}
	}
	if _, err := ParseRate("fast"); err == nil {
		t.Errorf("ParseRate accepted fast")
	}
}

func BenchmarkWriteAllFormats3h(b *testing.B) {
	keep := manyRanges(5001, 3*3600) // 5000 cuts between 5001 kept ranges
	m := Media{Name: "long", File: "long.mov", Path: "/srv/long.mov", Duration: 3 * 3600, SampleRate: 48000, Channels: 2, HasVideo: true, FrameRate: ntsc30}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WriteFiles(dir, "bench", Kinds(), keep, m, Options{DropFrame: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFormatAll3h is BenchmarkWriteAllFormats3h without the file
// system: the five writers into io.Discard (the EDL's split parts too).
func BenchmarkFormatAll3h(b *testing.B) {
	keep := manyRanges(5001, 3*3600)
	m := Media{Name: "long", File: "long.mov", Path: "/srv/long.mov", Duration: 3 * 3600, SampleRate: 48000, Channels: 2, HasVideo: true, FrameRate: ntsc30}
	b.ReportAllocs()
	for b.Loop() {
		e, err := newEdit(keep, m, Options{DropFrame: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range []func(io.Writer) error{e.writeFCPXML, e.writeXMEML, e.writeOTIO, e.writeCSV} {
			if err := f(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		for i, p := range e.edlParts(&e.tracks[0]) {
			if err := e.writeEDL(io.Discard, &e.tracks[0], p, i+1, 11); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestFormatNamesAndRates: FCP's built-in names only for its own sizes and
// rates (others are custom formats, unnamed); Premiere's sequence rate is
// the source's where the editors offer it, else 48 kHz.
func TestFormatNamesAndRates(t *testing.T) {
	for _, c := range []struct {
		w, h int
		rate dsp.Rational
		want string
	}{
		{1920, 1080, ntsc30, "FFVideoFormat1080p2997"},
		{1280, 720, dsp.Rational{Num: 50, Den: 1}, "FFVideoFormat720p50"},
		{3840, 2160, ntsc24, "FFVideoFormat3840x2160p2398"},
		{640, 360, ntsc30, ""},
		{1080, 1920, dsp.Rational{Num: 30, Den: 1}, ""},
		{1920, 1080, dsp.Rational{Num: 15, Den: 1}, ""},
	} {
		if got := fcpFormatName(c.w, c.h, c.rate.Num, c.rate.Den); got != c.want {
			t.Errorf("%dx%d at %s: %q, want %q", c.w, c.h, c.rate, got, c.want)
		}
	}
	for hz, want := range map[int]int{8000: 48000, 16000: 48000, 22050: 48000, 32000: 32000, 44100: 44100, 48000: 48000, 96000: 96000, 192000: 48000} {
		if got := sequenceSampleRate(hz); got != want {
			t.Errorf("sequence rate for %d Hz: %d, want %d", hz, got, want)
		}
	}
}

// TestWriteRejectsBadRatesAndTimes: an edit rate ParseRate would refuse,
// kept ranges that are not times and a media duration not over 0 are
// ErrInvalidOptions for every kind; they were written (a negative or
// zero-denominator rate as 30 fps, 100000 fps as such, a NaN start as
// frame 0) or called ErrNoWholeFrame (no duration). The zero Rate is
// still 30, and a video's own rate is not judged by Options.Rate.
func TestWriteRejectsBadRatesAndTimes(t *testing.T) {
	m := Media{Name: "a", File: "a.wav", Path: "a.wav", Duration: 10, SampleRate: 48000, Channels: 2}
	video := m
	video.HasVideo, video.FrameRate = true, dsp.Rational{Num: 25, Den: 1}
	keep := []dsp.Range{{Start: 1, End: 2}}
	for _, c := range []struct {
		name string
		keep []dsp.Range
		m    Media
		rate dsp.Rational
		want error
	}{
		{"zero rate", keep, m, dsp.Rational{}, nil},
		{"25", keep, m, dsp.Rational{Num: 25, Den: 1}, nil},
		{"bad rate ignored for video", keep, video, dsp.Rational{Num: -25, Den: 1}, nil},
		{"negative", keep, m, dsp.Rational{Num: -25, Den: 1}, ErrInvalidOptions},
		{"negative denominator", keep, m, dsp.Rational{Num: 25, Den: -1}, ErrInvalidOptions},
		{"zero denominator", keep, m, dsp.Rational{Num: 25}, ErrInvalidOptions},
		{"over MaxRate", keep, m, dsp.Rational{Num: 100000, Den: 1}, ErrInvalidOptions},
		{"under MinRate", keep, m, dsp.Rational{Num: 1, Den: 2}, ErrInvalidOptions},
		{"NaN start", []dsp.Range{{Start: math.NaN(), End: 2}}, m, dsp.Rational{}, ErrInvalidOptions},
		{"infinite end", []dsp.Range{{Start: 1, End: math.Inf(1)}}, m, dsp.Rational{}, ErrInvalidOptions},
		{"no media duration", keep, Media{Name: "a", File: "a.wav"}, dsp.Rational{}, ErrInvalidOptions}, // was ErrNoWholeFrame
		{"negative media duration", keep, Media{Name: "a", File: "a.wav", Duration: -1}, dsp.Rational{}, ErrInvalidOptions},
		{"NaN media duration", keep, Media{Name: "a", File: "a.wav", Duration: math.NaN()}, dsp.Rational{}, ErrInvalidOptions},
	} {
		for _, k := range Kinds() {
			err := Write(io.Discard, k, c.keep, c.m, Options{Rate: c.rate})
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("%s, %s: %v, want %v", c.name, k, err, c.want)
			}
		}
	}
}

// TestTimecodeWithoutRate: an fps under 1 has no timecode; it divided by zero.
func TestTimecodeWithoutRate(t *testing.T) {
	for _, fps := range []int64{0, -1} {
		for _, drop := range []bool{false, true} {
			if got := Timecode(100, fps, drop); got != "" {
				t.Errorf("Timecode(100, %d, %v) = %q, want \"\"", fps, drop, got)
			}
		}
	}
	if got := Timecode(30, 30, false); got != "00:00:01:00" {
		t.Errorf("Timecode(30, 30, false) = %q", got)
	}
}

// TestRatesInLowestTerms: a rate not in lowest terms is the same rate for
// every writer. 60000/2002 was written as 30 fps in Premiere XML (ntsc
// FALSE), refused drop-frame and got no FCP format name; 50/2 got no FCP
// format name.
func TestRatesInLowestTerms(t *testing.T) {
	m := Media{Name: "a", File: "a.wav", Path: "/m/a.wav", Duration: 60, SampleRate: 48000, Channels: 2}
	keep := []dsp.Range{{Start: 1.5, End: 4.2}, {Start: 10, End: 12.5}}
	for _, c := range []struct {
		name          string
		given, lowest dsp.Rational
		drop          bool
	}{
		{"29.97 as 60000/2002", dsp.Rational{Num: 60000, Den: 2002}, ntsc30, false},
		{"29.97 DF as 60000/2002", dsp.Rational{Num: 60000, Den: 2002}, ntsc30, true},
		{"25 as 50/2", dsp.Rational{Num: 50, Den: 2}, dsp.Rational{Num: 25, Den: 1}, false},
		{"12.5 as 12500/1000", dsp.Rational{Num: 12500, Den: 1000}, dsp.Rational{Num: 25, Den: 2}, false},
	} {
		for _, k := range Kinds() {
			var got, want bytes.Buffer
			errGot := Write(&got, k, keep, m, Options{Rate: c.given, DropFrame: c.drop})
			errWant := Write(&want, k, keep, m, Options{Rate: c.lowest, DropFrame: c.drop})
			if (errGot == nil) != (errWant == nil) {
				t.Errorf("%s, %s: %v; in lowest terms: %v", c.name, k, errGot, errWant)
				continue
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("%s, %s differs from the rate in lowest terms (-lowest +given):\n%s", c.name, k, diff)
			}
		}
	}
}

// TestTimebaseRates: Premiere XML and CMX 3600 state whole frames per
// second (ntsc for N×1000/1001); at another rate they are refused, where
// they stated the nearest whole rate (12.5 fps as timebase 13, every time
// off by 4 %; 2997/100 as 30 fps). The other kinds state any rate.
func TestTimebaseRates(t *testing.T) {
	audio := Media{Name: "a", File: "a.wav", Path: "/m/a.wav", Duration: 60, SampleRate: 48000, Channels: 2}
	video := audio
	video.HasVideo, video.FrameRate = true, dsp.Rational{Num: 25, Den: 2}
	keep := []dsp.Range{{Start: 10, End: 20}}
	for _, c := range []struct {
		name string
		m    Media
		rate dsp.Rational
		ok   bool // Premiere and EDL are written
	}{
		{"12.5 audio", audio, dsp.Rational{Num: 12500, Den: 1000}, false},
		{"2997/100 audio", audio, dsp.Rational{Num: 2997, Den: 100}, false},
		{"12.5 video", video, dsp.Rational{}, false},
		{"15000/1001 audio", audio, dsp.Rational{Num: 15000, Den: 1001}, true},
		{"23.976", audio, ntsc24, true},
		{"24", audio, dsp.Rational{Num: 24, Den: 1}, true},
		{"25", audio, dsp.Rational{Num: 25, Den: 1}, true},
		{"50", audio, dsp.Rational{Num: 50, Den: 1}, true},
		{"59.94", audio, ntsc60, true},
		{"60", audio, dsp.Rational{Num: 60, Den: 1}, true},
	} {
		for _, k := range Kinds() {
			err := Write(io.Discard, k, keep, c.m, Options{Rate: c.rate})
			if want := c.ok || (k != Premiere && k != EDL); want != (err == nil) || err != nil && !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("%s, %s: %v", c.name, k, err)
			}
			// Check says so before writing.
			if cerr := Check(k, keep, c.m, Options{Rate: c.rate}); (cerr == nil) != (err == nil) {
				t.Errorf("%s, %s: Check %v, Write %v", c.name, k, cerr, err)
			}
		}
		if c.ok {
			continue
		}
		// WriteFiles refuses before it writes anything.
		dir := t.TempDir()
		files, err := WriteFiles(dir, "out", Kinds(), keep, c.m, Options{Rate: c.rate})
		left, _ := os.ReadDir(dir)
		if !errors.Is(err, ErrInvalidOptions) || len(files) != 0 || len(left) != 0 {
			t.Errorf("%s: WriteFiles of every kind: %v, wrote %v, left %d files", c.name, err, files, len(left))
		}
	}
}

// TestExtentIsTheClamp: the media extent the timelines declare (FCPXML
// asset duration, xmeml file duration, OTIO available range) is the last
// whole frame FrameList clamps to. They were computed in two ways that
// differ by a frame for durations a hair under a frame boundary, so a clip
// kept to the end passed its asset's end by a frame.
func TestExtentIsTheClamp(t *testing.T) {
	for _, c := range []struct {
		dur  float64
		rate dsp.Rational
	}{
		{130.29683329996666, ntsc30},
		{166.4496166499833, ntsc60},
		{432.99923331664996, ntsc60},
		{8648.890249958291, ntsc24},
		{120.12, ntsc30},
		{600, dsp.Rational{Num: 25, Den: 1}},
	} {
		m := Media{Name: "v", File: "v.mov", Path: "/m/v.mov", Duration: c.dur, SampleRate: 48000, Channels: 2, HasVideo: true, FrameRate: c.rate}
		keep := []dsp.Range{{Start: 1, End: c.dur + 1}}
		e, err := newEdit(keep, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if end := e.segs[len(e.segs)-1].SrcOut; end != e.last {
			t.Errorf("%v s at %s: the clip kept to the end ends at frame %d, the media extent is %d frames", c.dur, c.rate, end, e.last)
		}
		var b bytes.Buffer
		if err := Write(&b, FCPXML, keep, m, Options{}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Asset struct {
				Duration string `xml:"duration,attr"`
			} `xml:"resources>asset"`
			Clips []struct {
				Start    string `xml:"start,attr"`
				Duration string `xml:"duration,attr"`
			} `xml:"library>event>project>sequence>spine>asset-clip"`
		}
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		last := doc.Clips[len(doc.Clips)-1]
		if end, extent := fcpFrames(t, last.Start, c.rate)+fcpFrames(t, last.Duration, c.rate), fcpFrames(t, doc.Asset.Duration, c.rate); end > extent {
			t.Errorf("%v s at %s: FCPXML clip ends at frame %d, past its asset's %d", c.dur, c.rate, end, extent)
		}
	}
}

// TestWindowsMediaPaths: a Windows media path (the editor's machine, given
// as --timeline-media-path or the API's mediaPath) is an absolute file URL
// and its clip is named by the file name, on any system. On Linux it was a
// relative reference ("./D:%5CFootage%5Ca%20b.mov") and the whole path
// named the clip.
func TestWindowsMediaPaths(t *testing.T) {
	for _, c := range []struct {
		path, name, file, url, pathurl string
	}{
		{`D:\Footage\a b.mov`, "a b", "a b.mov", "file:///D:/Footage/a%20b.mov", "file://localhost/D:/Footage/a%20b.mov"},
		{`c:/Users/zoé/#1 100%.wav`, "#1 100%", "#1 100%.wav", "file:///c:/Users/zo%C3%A9/%231%20100%25.wav", "file://localhost/c:/Users/zo%C3%A9/%231%20100%25.wav"},
		{`\\nas\share\cuts\a.mov`, "a", "a.mov", "file://nas/share/cuts/a.mov", "file://nas/share/cuts/a.mov"},
		{"/Volumes/Media/a b.mov", "a b", "a b.mov", "file:///Volumes/Media/a%20b.mov", "file://localhost/Volumes/Media/a%20b.mov"},
		{"a b.mov", "a b", "a b.mov", "a%20b.mov", "a%20b.mov"},
		{"D:a.mov", "D:a", "D:a.mov", "./D:a.mov", "./D:a.mov"}, // drive-relative: not absolute
	} {
		m := MediaFromInfo(dsp.Info{Name: "x.mov", Type: "audio", Duration: 60, SampleRate: 48000, Channels: 2}, c.path)
		got := []string{m.Name, m.File, fileURL(m.Path), pathURL(m.Path)}
		if diff := cmp.Diff([]string{c.name, c.file, c.url, c.pathurl}, got); diff != "" {
			t.Errorf("%s: name, file, URL, pathurl (-want +got):\n%s", c.path, diff)
		}
		for _, k := range []Kind{FCPXML, Premiere, OTIO} {
			var b bytes.Buffer
			if err := Write(&b, k, []dsp.Range{{Start: 1, End: 2}}, m, Options{}); err != nil {
				t.Fatal(err)
			}
			want := c.url
			if k == Premiere {
				want = c.pathurl
			}
			if k != OTIO {
				want = attr(want)
			}
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: %s does not hold %s", c.path, k, want)
			}
		}
	}
}

// TestEDLLineBreaksInNames: a line break in the title, file name or path
// (a file name may hold one) stays on its EDL line; it ended the line and
// the rest was a line of its own, here an extra event.
func TestEDLLineBreaksInNames(t *testing.T) {
	fake := "002  AX       AA    C        00:00:00:00 00:00:09:00 01:00:00:00 01:00:09:00"
	for _, c := range []struct {
		name string
		m    Media
		o    Options
	}{
		{"file name", Media{Name: "a", File: "a\n" + fake + ".wav", Path: "/m/a\n" + fake + ".wav"}, Options{}},
		{"path", Media{Name: "a", File: "a.wav", Path: "/m\r\n" + fake + "/a.wav"}, Options{}},
		{"title", Media{Name: "a", File: "a.wav", Path: "/m/a.wav"}, Options{Title: "cut\n" + fake}},
	} {
		c.m.Duration, c.m.SampleRate, c.m.Channels = 60, 48000, 2
		var b bytes.Buffer
		if err := Write(&b, EDL, []dsp.Range{{Start: 1, End: 2}}, c.m, c.o); err != nil {
			t.Fatal(err)
		}
		var events, other []string
		if !strings.HasSuffix(b.String(), "\r\n") {
			t.Errorf("%s: the list does not end in CR LF", c.name)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\r\n"), "\r\n") {
			switch {
			case strings.ContainsAny(l, "\r\n"):
				other = append(other, l) // a line break of its own (every line ends in CR LF)
			case edlEvent.MatchString(l):
				events = append(events, l)
			case l == "", strings.HasPrefix(l, "TITLE: "), strings.HasPrefix(l, "FCM: "), strings.HasPrefix(l, "* "):
			default:
				other = append(other, l)
			}
		}
		if len(events) != 1 || len(other) != 0 {
			t.Errorf("%s: %d events, other lines %q:\n%s", c.name, len(events), other, b.String())
		}
	}
}

// TestEDLTwoDigitFrames: CMX 3600 timecode has two digits of frames, so an
// EDL past 100 fps is refused; at 120 fps it was written with three
// ("00:00:01:108"), out of its columns. Premiere XML states those rates.
func TestEDLTwoDigitFrames(t *testing.T) {
	for _, c := range []struct {
		rate dsp.Rational
		edl  bool
	}{
		{dsp.Rational{Num: 100, Den: 1}, true},
		{dsp.Rational{Num: 60, Den: 1}, true},
		{dsp.Rational{Num: 120000, Den: 1001}, false},
		{dsp.Rational{Num: 120, Den: 1}, false},
		{dsp.Rational{Num: 240, Den: 1}, false},
	} {
		m := Media{Name: "v", File: "v.mov", Path: "/m/v.mov", Duration: 60, SampleRate: 48000, Channels: 2, HasVideo: true, FrameRate: c.rate}
		keep := []dsp.Range{{Start: 1.9, End: 3.5}}
		var b bytes.Buffer
		err := Write(&b, EDL, keep, m, Options{})
		if c.edl != (err == nil) || err != nil && !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("EDL at %s: %v", c.rate, err)
		}
		if err == nil {
			for _, l := range strings.Split(b.String(), "\r\n") {
				if strings.HasPrefix(l, "00") && !edlEvent.MatchString(l) {
					t.Errorf("EDL at %s: event line %q", c.rate, l)
				}
			}
		}
		if err := Write(io.Discard, Premiere, keep, m, Options{}); err != nil {
			t.Errorf("Premiere XML at %s: %v", c.rate, err)
		}
	}
}

// TestMediaPathURLs: the API documents mediaPath as a path or a URL. A file
// URL is taken as its path (the EDL and CSV show the path, the XML and OTIO
// its URL); another URL stays as given. They were relative references:
// "./file:///Volumes/Media/a%2520b.mov", the name "a%20b".
func TestMediaPathURLs(t *testing.T) {
	for _, c := range []struct {
		in, name, path, url, pathurl string
	}{
		{"file:///Volumes/Media/a%20b.mov", "a b", "/Volumes/Media/a b.mov", "file:///Volumes/Media/a%20b.mov", "file://localhost/Volumes/Media/a%20b.mov"},
		{"file://localhost/Volumes/Media/%231%20100%25.mov", "#1 100%", "/Volumes/Media/#1 100%.mov", "file:///Volumes/Media/%231%20100%25.mov", "file://localhost/Volumes/Media/%231%20100%25.mov"},
		{"file://localhost/D%3a/Footage/a%20b.mov", "a b", "D:/Footage/a b.mov", "file:///D:/Footage/a%20b.mov", "file://localhost/D:/Footage/a%20b.mov"},
		{"file:///C:/Users/zo%C3%A9/a.wav", "a", "C:/Users/zoé/a.wav", "file:///C:/Users/zo%C3%A9/a.wav", "file://localhost/C:/Users/zo%C3%A9/a.wav"},
		{"file://nas/share/a%20b.mov", "a b", `\\nas\share\a b.mov`, "file://nas/share/a%20b.mov", "file://nas/share/a%20b.mov"},
		{"https://media.example.com/shows/ep%201.mov", "ep 1", "https://media.example.com/shows/ep%201.mov", "https://media.example.com/shows/ep%201.mov", "https://media.example.com/shows/ep%201.mov"},
	} {
		m := MediaFromInfo(dsp.Info{Name: "x.mov", Type: "audio", Duration: 60, SampleRate: 48000, Channels: 2}, c.in)
		got := []string{m.Name, m.Path, fileURL(m.Path), pathURL(m.Path)}
		if diff := cmp.Diff([]string{c.name, c.path, c.url, c.pathurl}, got); diff != "" {
			t.Errorf("%s: name, path, URL, pathurl (-want +got):\n%s", c.in, diff)
		}
	}
}
