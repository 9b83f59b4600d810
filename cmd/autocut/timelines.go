package main

import (
	"context"
	"flag"
	"path/filepath"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/timeline"
)

// timelineFlags are the timeline export flags shared by analyze and cut.
type timelineFlags struct {
	kinds, dir, rate, mediaPath, fcpxmlVersion string
	dropFrame                                  bool
}

func (t *timelineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.kinds, "timelines", "", "timelines to write: fcpxml,premiere,edl,otio,csv (or all)")
	fs.StringVar(&t.dir, "timeline-dir", ".", "directory for timeline files (<input stem>-autocut.<ext>)")
	fs.StringVar(&t.rate, "timeline-rate", "30", "edit rate for audio-only inputs: 23.976, 24, 25, 29.97, 30, 50, 59.94, 60")
	fs.StringVar(&t.mediaPath, "timeline-media-path", "", "path of the original on the editing machine (default: the input's name)")
	fs.StringVar(&t.fcpxmlVersion, "fcpxml-version", "1.10", "FCPXML version: 1.8, 1.9, 1.10, 1.11")
	fs.BoolVar(&t.dropFrame, "drop-frame", false, "drop-frame timecode in EDLs and XML (29.97 and 59.94 only)")
}

// check validates the flags before any work is done.
func (t *timelineFlags) check() error {
	if t.kinds == "" {
		return nil
	}
	if _, err := timeline.ParseKinds(t.kinds); err != nil {
		return usageError{err.Error()}
	}
	if _, err := timeline.ParseRate(t.rate); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// write writes the asked timelines for the kept ranges and returns their paths.
func (t *timelineFlags) write(ctx context.Context, inputPath string, keep []dsp.Range, info dsp.Info) ([]string, error) {
	if t.kinds == "" {
		return nil, nil
	}
	kinds, err := timeline.ParseKinds(t.kinds)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	rate, err := timeline.ParseRate(t.rate)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	mediaPath := t.mediaPath
	if mediaPath == "" {
		mediaPath = filepath.Base(inputPath)
	}
	info.Name = filepath.Base(inputPath)
	stem := strings.TrimSuffix(info.Name, filepath.Ext(info.Name))
	return timeline.WriteFiles(t.dir, stem, kinds, keep, timeline.MediaFromInfo(info, mediaPath),
		timeline.Options{Rate: rate, FCPXMLVersion: t.fcpxmlVersion, DropFrame: t.dropFrame})
}
