package httpapi

import (
	"net/http"
	"strings"

	"github.com/autocut-dev/autocut/jobs"
)

// TimelineKinds are the timeline exports, in the order of the job's
// timelines object.
var TimelineKinds = []string{"fcpxml", "premiere", "edl", "otio", "csv"}

// timelineFormats gives each kind's file extension and content type.
var timelineFormats = map[string]struct{ ext, contentType string }{
	"fcpxml":   {".fcpxml", "application/xml; charset=utf-8"},
	"premiere": {".xml", "application/xml; charset=utf-8"},
	"edl":      {".edl", "text/plain; charset=utf-8"},
	"otio":     {".otio", "application/json"},
	"csv":      {".csv", "text/csv; charset=utf-8"},
}

// Timelines are the timeline URLs of a job.
type Timelines struct {
	FCPXML   string `json:"fcpxml"`
	Premiere string `json:"premiere"`
	EDL      string `json:"edl"`
	OTIO     string `json:"otio"`
	CSV      string `json:"csv"`
}

// JobView is a job as the API returns it: the job record with absolute
// output and timeline URLs. Timelines is null until a plan exists.
type JobView struct {
	*jobs.Job
	Timelines *Timelines `json:"timelines"`
}

// baseURL is the absolute prefix of response URLs.
func (s *server) baseURL(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p != "" {
		p = strings.ToLower(strings.TrimSpace(strings.Split(p, ",")[0]))
		if p == "http" || p == "https" {
			scheme = p
		}
	}
	return scheme + "://" + r.Host
}

// view makes the response form of j without changing j.
func (s *server) view(r *http.Request, j *jobs.Job) JobView {
	c := *j
	base := s.baseURL(r) + "/api/v1/jobs/" + j.ID
	if j.Output != nil {
		o := *j.Output
		o.URL = base + "/download"
		c.Output = &o
	}
	if c.Params.ThresholdDb == nil && j.Plan != nil {
		// params are the effective ones: an automatic threshold shows the
		// level the analysis chose (null only until it is known).
		th := j.Plan.ThresholdDb
		c.Params.ThresholdDb = &th
	}
	v := JobView{Job: &c}
	if j.Plan != nil {
		t := base + "/timelines/"
		v.Timelines = &Timelines{FCPXML: t + "fcpxml", Premiere: t + "premiere", EDL: t + "edl", OTIO: t + "otio", CSV: t + "csv"}
	}
	return v
}
