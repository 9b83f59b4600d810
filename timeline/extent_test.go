package timeline

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// TestVideoExtentIsThePicture: a video's extent in every timeline (FCPXML
// asset duration, xmeml file duration, OTIO available range, the clamp of
// the last clip) is its picture's length, not its decoded audio's: 2199
// frames at 29.97 and 1834 at 25 where the audio runs two frames longer.
// The asset was 2201 and 1836 frames long, past the picture's end.
func TestVideoExtentIsThePicture(t *testing.T) {
	for _, c := range []struct {
		rate          dsp.Rational
		frames, audio int64
	}{
		{ntsc30, 2199, 2201},
		{dsp.Rational{Num: 25, Den: 1}, 1834, 1836},
	} {
		t.Run(c.rate.String(), func(t *testing.T) {
			info := dsp.Info{Name: "v.mp4", Type: "video", Format: "mp4", SampleRate: 48000, Channels: 2,
				Duration: FrameToSec(c.audio, c.rate), FrameRate: c.rate, VideoFrames: c.frames, Width: 1920, Height: 1080}
			m := MediaFromInfo(info, "/m/v.mp4")
			keep := []dsp.Range{{Start: 1, End: info.Duration}} // the plan keeps to the audio's end
			e, err := newEdit(keep, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if e.last != c.frames {
				t.Errorf("extent %d frames, want the picture's %d", e.last, c.frames)
			}
			dir := t.TempDir()
			if _, err := WriteFiles(dir, "out", Kinds(), keep, m, Options{}); err != nil {
				t.Fatal(err)
			}
			read := func(k Kind) []byte {
				b, err := os.ReadFile(filepath.Join(dir, "out-autocut"+k.Ext()))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			var fcp struct {
				Asset struct {
					Duration string `xml:"duration,attr"`
				} `xml:"resources>asset"`
			}
			if err := xml.Unmarshal(read(FCPXML), &fcp); err != nil {
				t.Fatal(err)
			}
			var xm struct {
				Files []struct {
					Duration int64 `xml:"duration"`
				} `xml:"sequence>media>video>track>clipitem>file"`
			}
			if err := xml.Unmarshal(read(Premiere), &xm); err != nil || len(xm.Files) == 0 {
				t.Fatalf("xmeml: %v, %d files", err, len(xm.Files))
			}
			var otio struct {
				Tracks struct {
					Children []struct {
						Children []struct {
							Refs map[string]struct {
								Available otioRange `json:"available_range"`
							} `json:"media_references"`
						} `json:"children"`
					} `json:"children"`
				} `json:"tracks"`
			}
			if err := json.Unmarshal(read(OTIO), &otio); err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string]int64{
				"fcpxml asset duration":   fcpFrames(t, fcp.Asset.Duration, c.rate),
				"xmeml file duration":     xm.Files[0].Duration,
				"otio available duration": int64(otio.Tracks.Children[0].Children[0].Refs["DEFAULT_MEDIA"].Available.Duration.Value),
			} {
				if got != c.frames {
					t.Errorf("%s %d frames, want the picture's %d (the audio is %d)", name, got, c.frames, c.audio)
				}
			}
			for _, k := range Kinds() {
				var segs []Segment
				if k == EDL {
					segs = checkEDL(t, filepath.Join(dir, "out-autocut.edl"), e)
				} else {
					segs = parseBack(t, k, read(k), e)
				}
				if end := segs[len(segs)-1].SrcOut; end != c.frames {
					t.Errorf("%s: the clip kept to the end ends at frame %d, want the picture's last, %d", k, end, c.frames)
				}
			}
		})
	}
}
