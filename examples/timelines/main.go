// Command timelines plans a file's cuts and writes them as FCPXML and a CMX
// 3600 EDL for an editor: go run ./examples/timelines FILE [MEDIA_PATH]
// MEDIA_PATH is where the original lives on the editing machine. The files
// (FILE's name with -autocut.fcpxml, -autocut.edl) are written into the
// current directory.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: timelines FILE [MEDIA_PATH]")
	}
	in := os.Args[1]
	mediaPath, _ := filepath.Abs(in)
	if len(os.Args) > 2 {
		mediaPath = os.Args[2]
	}
	ctx := context.Background()
	a, err := dsp.AnalyzeFile(ctx, in, nil)
	if err != nil {
		log.Fatal(err)
	}
	if info, err := dsp.Probe(ctx, in); err == nil && info.Type == "video" {
		a.Input.Type, a.Input.FrameRate = info.Type, info.FrameRate // the video's exact frame rate
	}
	preset, _ := plan.LookupPreset("interview")
	p, err := plan.Make(a, preset.Params, nil)
	if err != nil {
		log.Fatal(err)
	}
	rate, err := timeline.ParseRate("25") // the edit rate of an audio-only input; a video keeps its own
	if err != nil {
		log.Fatal(err)
	}
	stem := strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
	files, err := timeline.WriteFiles(".", stem, []timeline.Kind{timeline.FCPXML, timeline.EDL}, p.Keep,
		timeline.MediaFromInfo(a.Input, mediaPath), timeline.Options{Rate: rate})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println("wrote", f)
	}
}
