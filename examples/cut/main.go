// Command cut removes the silences of a media file with the autocut library,
// no server needed: go run ./examples/cut IN OUT.mp3
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
	"github.com/autocut-dev/autocut/transcode"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: cut IN OUT (.mp3, .wav or .m4a; .mp4 when IN is a video)")
	}
	in, out := os.Args[1], os.Args[2]
	ctx := context.Background()
	a, err := dsp.AnalyzeFile(ctx, in, nil)
	if err != nil {
		log.Fatal(err)
	}
	preset, _ := plan.LookupPreset("youtube")
	p, err := plan.Make(a, preset.Params, nil)
	if err != nil {
		log.Fatal(err)
	}
	format := strings.TrimPrefix(filepath.Ext(out), ".")
	res, err := transcode.Render(ctx, in, a, p, transcode.Options{Format: format, Normalize: preset.Normalize, Rumble: preset.Rumble}, out,
		func(f float64) { fmt.Fprintf(os.Stderr, "\r%3.0f%%", f*100) })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "\n%s: %.1f s -> %.1f s, %d bytes\n", res.Name, p.Stats.OriginalSec, res.Duration, res.Size)
}
