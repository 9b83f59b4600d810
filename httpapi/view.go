package httpapi

import (
	"net/http"
	"strings"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/timeline"
)

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

// view makes the response form of j without changing j: absolute output
// and timeline URLs (timelines always an object), and the effective
// threshold.
func (s *server) view(r *http.Request, j *apiv1.Job) apiv1.Job {
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
	// The timeline addresses are known from creation on (the contract types
	// timelines as an object); they answer 409 until the plan exists.
	t := base + "/timelines/"
	c.Timelines = &apiv1.Timelines{FCPXML: t + string(timeline.FCPXML), Premiere: t + string(timeline.Premiere),
		EDL: t + string(timeline.EDL), OTIO: t + string(timeline.OTIO), CSV: t + string(timeline.CSV)}
	return c
}
