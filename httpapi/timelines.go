package httpapi

import (
	"io"

	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/timeline"
)

// WriteTimeline is the default TimelineWriter: the timeline package's writers
// over the job's plan and input.
func WriteTimeline(w io.Writer, kind timeline.Kind, src *jobs.TimelineSource, o TimelineOptions) error {
	media := timeline.MediaFromInfo(src.Info, o.MediaPath)
	return timeline.Write(w, kind, src.Plan.Keep, media,
		timeline.Options{Rate: o.Rate, FCPXMLVersion: o.FCPXMLVersion, DropFrame: o.DropFrame})
}
