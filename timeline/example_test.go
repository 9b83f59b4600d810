package timeline_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log"
	"regexp"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/timeline"
)

// keep is a plan's kept ranges: the first 1.125 s and the last 1.125 s of
// a 4-second recording.
var keep = []dsp.Range{{Start: 0, End: 1.125}, {Start: 2.875, End: 4}}

// media is the recording as the editor will find it.
var media = timeline.MediaFromInfo(dsp.Info{Name: "talk.wav", Type: "audio", Duration: 4, SampleRate: 48000, Channels: 2}, "/projects/talk.wav")

// lines prints the lines of b that contain any of subs.
func lines(b []byte, subs ...string) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		for _, s := range subs {
			if strings.Contains(sc.Text(), s) {
				fmt.Println(strings.TrimSpace(sc.Text()))
				break
			}
		}
	}
}

// A CSV of the kept segments, at 25 frames per second (RFC 4180: CRLF
// line ends, read back here with encoding/csv).
func ExampleWrite_csv() {
	rate, err := timeline.ParseRate("25")
	if err != nil {
		log.Fatal(err)
	}
	var b bytes.Buffer
	if err := timeline.Write(&b, timeline.CSV, keep, media, timeline.Options{Rate: rate}); err != nil {
		log.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		fmt.Println(strings.Join(r, " "))
	}
	// Output:
	// index source src_in_s src_out_s rec_in_s rec_out_s duration_s src_in_frame src_out_frame rec_in_frame rec_out_frame rate
	// 1 /projects/talk.wav 0.000000 1.120000 0.000000 1.120000 1.120000 0 28 0 28 25
	// 2 /projects/talk.wav 2.880000 4.000000 1.120000 2.240000 1.120000 72 100 28 56 25
}

// A CMX 3600 EDL: one event per kept segment, on the record timeline.
func ExampleWrite_edl() {
	rate, _ := timeline.ParseRate("25")
	var b bytes.Buffer
	if err := timeline.Write(&b, timeline.EDL, keep, media, timeline.Options{Rate: rate}); err != nil {
		log.Fatal(err)
	}
	fmt.Print(strings.ReplaceAll(b.String(), "\r\n", "\n")) // its lines end in CR LF
	// Output:
	// TITLE: talk (cut)
	// FCM: NON-DROP FRAME
	//
	// 001  AX       AA    C        00:00:00:00 00:00:01:03 01:00:00:00 01:00:01:03
	// * FROM CLIP NAME: talk.wav
	// * FROM FILE: /projects/talk.wav
	// * SOURCE FILE: /projects/talk.wav
	//
	// 002  AX       AA    C        00:00:02:22 00:00:04:00 01:00:01:03 01:00:02:06
	// * FROM CLIP NAME: talk.wav
	// * FROM FILE: /projects/talk.wav
	// * SOURCE FILE: /projects/talk.wav
}

// FCPXML for Final Cut Pro: one asset-clip per kept segment.
func ExampleWrite_fcpxml() {
	rate, _ := timeline.ParseRate("25")
	var b bytes.Buffer
	if err := timeline.Write(&b, timeline.FCPXML, keep, media, timeline.Options{Rate: rate, FCPXMLVersion: "1.11"}); err != nil {
		log.Fatal(err)
	}
	lines(b.Bytes(), "<fcpxml", "media-rep", "<asset-clip")
	// Output:
	// <fcpxml version="1.11">
	// <media-rep kind="original-media" src="file:///projects/talk.wav"/>
	// <asset-clip ref="r2" name="talk" offset="0s" start="0s" duration="28/25s"/>
	// <asset-clip ref="r2" name="talk" offset="28/25s" start="72/25s" duration="28/25s"/>
}

// Premiere Pro XML (xmeml), which DaVinci Resolve reads too.
func ExampleWrite_premiere() {
	rate, _ := timeline.ParseRate("25")
	var b bytes.Buffer
	if err := timeline.Write(&b, timeline.Premiere, keep, media, timeline.Options{Rate: rate}); err != nil {
		log.Fatal(err)
	}
	// The clip items of the first audio track: record start/end, source in/out (frames).
	for _, m := range regexp.MustCompile(`<clipitem id="clipitem-([12])".*?<start>(\d+)</start><end>(\d+)</end><in>(\d+)</in><out>(\d+)</out>`).FindAllSubmatch(b.Bytes(), -1) {
		fmt.Printf("clip %s: record %s-%s, source %s-%s\n", m[1], m[2], m[3], m[4], m[5])
	}
	// Output:
	// clip 1: record 0-28, source 0-28
	// clip 2: record 28-56, source 72-100
}

// OpenTimelineIO: one clip per kept segment with its source range.
func ExampleWrite_otio() {
	rate, _ := timeline.ParseRate("25")
	var b bytes.Buffer
	if err := timeline.Write(&b, timeline.OTIO, keep, media, timeline.Options{Rate: rate}); err != nil {
		log.Fatal(err)
	}
	var doc struct {
		Tracks struct {
			Children []struct {
				Kind     string `json:"kind"`
				Children []struct {
					Name        string `json:"name"`
					SourceRange struct {
						Start    struct{ Value, Rate float64 } `json:"start_time"`
						Duration struct{ Value, Rate float64 } `json:"duration"`
					} `json:"source_range"`
				} `json:"children"`
			} `json:"children"`
		} `json:"tracks"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		log.Fatal(err)
	}
	for _, tr := range doc.Tracks.Children {
		for _, c := range tr.Children {
			r := c.SourceRange
			fmt.Printf("%s %s: from frame %.0f, %.0f frames at %.0f fps\n", tr.Kind, c.Name, r.Start.Value, r.Duration.Value, r.Duration.Rate)
		}
	}
	// Output:
	// Audio talk.wav #1: from frame 0, 28 frames at 25 fps
	// Audio talk.wav #2: from frame 72, 28 frames at 25 fps
}

// Rates in every common spelling: NTSC decimals become exact ratios.
func ExampleParseRate() {
	for _, s := range []string{"25", "29.97", "23.976", "30000/1001", "12.5", "fast"} {
		r, err := timeline.ParseRate(s)
		fmt.Println(s, "->", r, err)
	}
	// Output:
	// 25 -> 25 <nil>
	// 29.97 -> 30000/1001 <nil>
	// 23.976 -> 24000/1001 <nil>
	// 30000/1001 -> 30000/1001 <nil>
	// 12.5 -> 12500/1000 <nil>
	// fast -> 0/0 invalid timeline options: rate "fast": want a frame rate from 1 to 240 such as 25, 29.97 or 30000/1001
}
