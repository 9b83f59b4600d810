package main

import (
	"context"
	"errors"
	"flag"

	"github.com/autocut-dev/autocut/dsp"
)

// timelineFlags are the --timelines flags (placeholder until the timeline writers land).
type timelineFlags struct{ kinds, dir string }

func (t *timelineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.kinds, "timelines", "", "timelines to write: fcpxml,premiere,edl,otio,csv")
	fs.StringVar(&t.dir, "timeline-dir", ".", "directory for timeline files")
}

func (t *timelineFlags) write(ctx context.Context, inputPath string, keep []dsp.Range, info dsp.Info) ([]string, error) {
	if t.kinds == "" {
		return nil, nil
	}
	return nil, errors.New("--timelines: timeline export is not in this build yet")
}
