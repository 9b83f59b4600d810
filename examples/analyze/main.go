// Command analyze measures a media file with the autocut library and prints
// its loudness and cut plan: go run ./examples/analyze FILE
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: analyze FILE")
	}
	ctx := context.Background()
	a, err := dsp.AnalyzeFile(ctx, os.Args[1], nil)
	if err != nil {
		log.Fatal(err)
	}
	l := a.Loudness
	fmt.Printf("%s: %s/%s %d Hz x%d, %.2f s\n", a.Input.Name, a.Input.Format, a.Input.Codec, a.Input.SampleRate, a.Input.Channels, a.Input.Duration)
	fmt.Printf("loudness %.1f LUFS, range %.1f LU, true peak %.1f dBTP\n", l.Integrated, l.Range, l.TruePeak)
	fmt.Printf("noise floor %.1f dB, speech %.1f dB, automatic threshold %.1f dB\n", a.NoiseFloorDb, a.SpeechLevelDb, a.ThresholdDb)

	preset, _ := plan.LookupPreset("podcast")
	p, err := plan.Make(a, preset.Params, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("plan: %d cuts, %.1f s -> %.1f s (%.1f%% saved)\n", p.Stats.CutsCount, p.Stats.OriginalSec, p.Stats.FinalSec, p.Stats.SavedPct)
	for _, c := range p.Cuts {
		fmt.Printf("  cut %8.3f - %8.3f  %s\n", c.Start, c.End, c.Reason)
	}
}
