package plan_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"math"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// talk is a generated signal: a 1 kHz tone at -20 dBFS for a second,
// two seconds of digital silence, the tone again for a second; 48 kHz mono.
type talk struct{ pos int }

func (t *talk) Format() dsp.Format { return dsp.Format{SampleRate: 48000, Channels: 1} }

func (t *talk) Read(p []float32) (int, error) {
	const total = 4 * 48000
	if t.pos >= total {
		return 0, io.EOF
	}
	n := min(len(p), total-t.pos)
	for i := range n {
		s := t.pos + i
		p[i] = 0
		if sec := s / 48000; sec == 0 || sec == 3 {
			p[i] = float32(0.1 * math.Sin(2*math.Pi*1000*float64(s)/48000))
		}
	}
	t.pos += n
	return n, nil
}

// Plan the cuts of an analysis with a preset's parameters: the two-second
// pause is cut down to the preset's 250 ms, half of it on each side.
func ExampleMake() {
	a, err := dsp.Analyze(context.Background(), &talk{}, dsp.Info{Name: "talk"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	preset, err := plan.LookupPreset("podcast")
	if err != nil {
		log.Fatal(err)
	}
	p, err := plan.Make(a, preset.Params, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range p.Cuts {
		fmt.Printf("cut %.3f-%.3f s (%s)\n", c.Start, c.End, c.Reason)
	}
	fmt.Printf("keep %v\n", p.Keep)
	fmt.Printf("%.2f s -> %.2f s, %d cut\n", p.Stats.OriginalSec, p.Stats.FinalSec, p.Stats.CutsCount)
	// Output:
	// cut 1.125-2.875 s (silence)
	// keep [{0 1.125} {2.875 4}]
	// 4.00 s -> 2.25 s, 1 cut
}

// Extra cuts (fillers a transcription found) merge with the silences.
func ExampleMake_extraCuts() {
	a, err := dsp.Analyze(context.Background(), &talk{}, dsp.Info{Name: "talk"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	p, err := plan.Make(a, plan.DefaultPreset().Params, []plan.Cut{{Start: 3.2, End: 3.5, Reason: plan.ReasonFiller}})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range p.Cuts {
		fmt.Printf("cut %.3f-%.3f s (%s)\n", c.Start, c.End, c.Reason)
	}
	// Output:
	// cut 1.125-2.875 s (silence)
	// cut 3.200-3.500 s (filler)
}

// Presets are named starting points; names ignore case.
func ExampleLookupPreset() {
	p, err := plan.LookupPreset("YouTube")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: pauses of %.2f s or more down to %.0f ms, normalize %s\n", p.Name, p.Params.MinSilenceSec, p.Params.KeepSilenceMs, p.Normalize)
	_, err = plan.LookupPreset("loud")
	fmt.Println(err)
	fmt.Println(plan.PresetNames())
	// Output:
	// youtube: pauses of 0.35 s or more down to 120 ms, normalize youtube
	// invalid parameters: preset "loud" unknown, allowed podcast, youtube, cours, interview, radical
	// [podcast youtube cours interview radical]
}
