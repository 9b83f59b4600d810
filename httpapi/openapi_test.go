package httpapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
	"github.com/autocut-dev/autocut/transcode"
)

// openAPIDocument decodes the embedded document as generic JSON.
func openAPIDocument(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc
}

// at follows a path of object keys and array indexes ("#name" picks the
// element of an array whose "name" is name).
func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for i, p := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			var found any
			for _, e := range c {
				if m, ok := e.(map[string]any); ok && "#"+fmt.Sprint(m["name"]) == p {
					found = e
				}
			}
			v = found
		default:
			v = nil
		}
		if v == nil {
			t.Fatalf("openapi.json has no %s", strings.Join(path[:i+1], "/"))
		}
	}
	return v
}

// strs reads a JSON array of strings.
func strs(t *testing.T, v any) []string {
	t.Helper()
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// sameSet reports a difference between a document's list and the code's.
func sameSet[T ~string](t *testing.T, what string, doc []string, code []T) {
	t.Helper()
	for _, c := range code {
		if !slices.Contains(doc, string(c)) {
			t.Errorf("%s: %q is in the code but not in the document", what, c)
		}
	}
	for _, d := range doc {
		if !slices.Contains(code, T(d)) {
			t.Errorf("%s: %q is in the document but not in the code", what, d)
		}
	}
	if len(doc) != len(code) {
		t.Errorf("%s: the document lists %d values, the code %d", what, len(doc), len(code))
	}
}

// TestOpenAPIConsistent checks that the embedded document describes every
// route the router serves.
func TestOpenAPIConsistent(t *testing.T) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFF").ID
	routes := []struct{ method, path string }{
		{"post", "/api/v1/jobs"}, {"get", "/api/v1/jobs"},
		{"get", "/api/v1/jobs/{id}"}, {"patch", "/api/v1/jobs/{id}"}, {"delete", "/api/v1/jobs/{id}"},
		{"get", "/api/v1/jobs/{id}/download"}, {"get", "/api/v1/jobs/{id}/original"}, {"get", "/api/v1/jobs/{id}/timelines/{kind}"},
		{"get", "/api/v1/jobs/{id}/preview"}, {"get", "/api/v1/jobs/{id}/envelope"},
		{"get", "/api/v1/openapi.json"}, {"get", "/healthz"}, {"get", "/readyz"}, {"get", "/metrics"},
	}
	for _, r := range routes {
		op, ok := doc.Paths[r.path][r.method]
		if !ok {
			t.Errorf("%s %s not documented", r.method, r.path)
		}
		// A job route answers 503 not_ready during a database or storage
		// outage (jobs.Manager's Service calls).
		var o struct{ Responses map[string]json.RawMessage }
		if _ = json.Unmarshal(op, &o); strings.HasPrefix(r.path, "/api/v1/jobs") && o.Responses["503"] == nil {
			t.Errorf("%s %s does not document its 503", r.method, r.path)
		}
		p := strings.NewReplacer("{id}", id, "{kind}", "csv").Replace(r.path)
		_, b := e.call(t, strings.ToUpper(r.method), p, proKey, nil, nil)
		var eb apiv1.ErrorBody
		_ = json.Unmarshal(b, &eb)
		if eb.Code == apiv1.CodeRouteNotFound || eb.Code == apiv1.CodeMethodNotAllowed {
			t.Errorf("%s %s documented but not routed", r.method, p)
		}
	}
	n := 0
	for _, m := range doc.Paths {
		n += len(m) - btoi(m["parameters"] != nil)
	}
	if n != len(routes) { // (HEAD download and original are described under GET)
		t.Errorf("document has %d operations, router %d", n, len(routes))
	}
}

// TestOpenAPIEnumerations checks every enumeration and range of the
// document against the package that owns it, both ways: error codes and
// states (apiv1), presets and parameter ranges (plan), export formats,
// normalizations and containers (transcode), timeline kinds and FCPXML
// versions (timeline).
func TestOpenAPIEnumerations(t *testing.T) {
	doc := openAPIDocument(t)
	schema := func(path ...string) any { return at(t, doc, append([]string{"components", "schemas"}, path...)...) }
	enum := func(path ...string) []string { return strs(t, at(t, schema(path...), "enum")) }

	sameSet(t, "Error.code", enum("Error", "properties", "code"), apiv1.Codes(apiv1.InResponse))
	sameSet(t, "JobError.code", enum("JobError", "properties", "code"), apiv1.Codes(apiv1.InJob))
	sameSet(t, "Job.status", enum("Job", "properties", "status"), apiv1.Statuses())
	sameSet(t, "Transcript.status", enum("Transcript", "properties", "status"), apiv1.TranscriptStatuses())
	sameSet(t, "Patch.action", enum("Patch", "properties", "action"), apiv1.Actions())
	sameSet(t, "Options.preset", enum("Options", "properties", "preset"), plan.PresetNames())
	sameSet(t, "ExportInput.format", enum("ExportInput", "properties", "format"), transcode.Formats())
	sameSet(t, "ExportInput.normalize", enum("ExportInput", "properties", "normalize"), transcode.Normalizations())
	sameSet(t, "Output.format", enum("Output", "properties", "format"), transcode.Containers())
	if got := at(t, schema("JobList", "properties", "jobs"), "maxItems"); got != float64(apiv1.MaxListLimit) {
		t.Errorf("JobList.jobs.maxItems %v, want %d", got, apiv1.MaxListLimit)
	}
	if got := at(t, schema("Patch", "properties", "cuts"), "maxItems"); got != float64(jobs.MaxCuts) {
		t.Errorf("Patch.cuts.maxItems %v, want %d", got, jobs.MaxCuts)
	}

	// Ranges: the creation/patch params and the preview query alike.
	preview := at(t, doc, "paths", "/api/v1/jobs/{id}/preview", "get", "parameters")
	for _, l := range plan.Limits() {
		for _, s := range []any{schema("ParamsInput", "properties", l.Name), at(t, preview, "#"+l.Name, "schema")} {
			if lo, hi := at(t, s, "minimum"), at(t, s, "maximum"); lo != l.Min || hi != l.Max {
				t.Errorf("%s: document %v..%v, plan %v..%v", l.Name, lo, hi, l.Min, l.Max)
			}
		}
	}
	if n := len(at(t, schema("ParamsInput"), "properties").(map[string]any)); n != len(plan.Limits())+1 {
		t.Errorf("ParamsInput has %d properties, plan %d limits and crosstalk", n, len(plan.Limits()))
	}
	sameSet(t, "ParamsInput.crosstalk", enum("ParamsInput", "properties", "crosstalk"), plan.CrosstalkModes())
	sameSet(t, "Params.crosstalk", enum("Params", "properties", "crosstalk"), plan.CrosstalkModes())
	sameSet(t, "preview crosstalk", strs(t, at(t, preview, "#crosstalk", "schema", "enum")), plan.CrosstalkModes())

	// Timelines: the kinds of the route and of the job's timelines object,
	// the FCPXML versions, the rate range.
	tl := at(t, doc, "paths", "/api/v1/jobs/{id}/timelines/{kind}")
	sameSet(t, "timeline kind", strs(t, at(t, tl, "parameters", "#kind", "schema", "enum")), timeline.Kinds())
	var props []string
	for k := range at(t, schema("Timelines", "properties")).(map[string]any) {
		props = append(props, k)
	}
	sameSet(t, "Timelines.properties", props, timeline.Kinds())
	sameSet(t, "Timelines.required", strs(t, schema("Timelines", "required")), timeline.Kinds())
	sameSet(t, "fcpxmlVersion", strs(t, at(t, tl, "get", "parameters", "#fcpxmlVersion", "schema", "enum")), timeline.FCPXMLVersions())
	if d := at(t, tl, "get", "parameters", "#fcpxmlVersion", "schema", "default"); d != timeline.DefaultFCPXMLVersion {
		t.Errorf("fcpxmlVersion default %v, writer %s", d, timeline.DefaultFCPXMLVersion)
	}
	if d := at(t, tl, "get", "parameters", "#rate", "description").(string); !strings.Contains(d, fmt.Sprintf("(%d..%d)", timeline.MinRate, timeline.MaxRate)) {
		t.Errorf("rate description %q does not give the range %d..%d", d, timeline.MinRate, timeline.MaxRate)
	}
}

// TestErrorCodesEmitted checks the other half of the code table: every
// code the router answers with or a job records comes from apiv1's table
// (statusOf maps through jobs.ErrorCode), so no code can escape the
// document's enums, which TestOpenAPIEnumerations holds to the table.
func TestErrorCodesEmitted(t *testing.T) {
	for _, c := range apiv1.Codes(apiv1.InResponse | apiv1.InJob) {
		err := apiv1.NewError(c, "x")
		if status, code := statusOf(fmt.Errorf("wrapped: %w", err)); code != c || status != c.HTTPStatus() {
			t.Errorf("%s: answered %d %s", c, status, code)
		}
	}
	if _, code := statusOf(fmt.Errorf("some unknown failure")); code != apiv1.CodeInternal {
		t.Errorf("an unknown error answers %s, want internal", code)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
