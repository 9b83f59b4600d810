package transcode

import (
	"slices"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

func TestFormatTables(t *testing.T) {
	if got := Formats(); !slices.Equal(got, []string{"mp3", "mp3_320", "wav", "m4a", "mp4", "mp4_hq"}) {
		t.Errorf("Formats() = %v", got)
	}
	if got := Containers(); !slices.Equal(got, []string{"mp3", "wav", "m4a", "mp4"}) {
		t.Errorf("Containers() = %v", got)
	}
	if !slices.Contains(Formats(), DefaultFormat) {
		t.Errorf("DefaultFormat %q is not a format", DefaultFormat)
	}
	for _, f := range Formats() {
		if ContainerOf(f) == "" || ContentType(ContainerOf(f)) == "application/octet-stream" {
			t.Errorf("format %s: container %q, content type %q", f, ContainerOf(f), ContentType(ContainerOf(f)))
		}
		if NeedsVideo(f) != (ContainerOf(f) == "mp4") {
			t.Errorf("NeedsVideo(%s) = %v", f, NeedsVideo(f))
		}
	}
	Formats()[0] = "changed" // a copy: the table stays
	if Formats()[0] != "mp3" {
		t.Error("Formats returns the table itself")
	}
	// Every normalization a preset can choose has a target.
	for _, p := range plan.Presets() {
		if !slices.Contains(Normalizations(), p.Normalize) {
			t.Errorf("preset %s normalizes to %q, which Render does not know", p.Name, p.Normalize)
		}
	}
	if lufs, ok := normalizationOf(plan.NormalizePodcast); !ok || lufs != -16 {
		t.Errorf("podcast target %v %v", lufs, ok)
	}
	if err := (Options{Format: "ogg"}).Validate(dsp.Info{Type: "audio"}); err == nil {
		t.Error("ogg accepted")
	}
}
