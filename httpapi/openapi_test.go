package httpapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIConsistent checks that the embedded document describes every
// route the router serves and every machine code the error table produces.
func TestOpenAPIConsistent(t *testing.T) {
	var doc struct {
		OpenAPI    string                                `json:"openapi"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Code struct {
							Enum []string `json:"enum"`
						} `json:"code"`
					} `json:"properties"`
				} `json:"Error"`
			} `json:"schemas"`
		} `json:"components"`
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
		if _, ok := doc.Paths[r.path][r.method]; !ok {
			t.Errorf("%s %s not documented", r.method, r.path)
		}
		p := strings.NewReplacer("{id}", id, "{kind}", "csv").Replace(r.path)
		_, b := e.call(t, strings.ToUpper(r.method), p, proKey, nil, nil)
		var eb errorBody
		_ = json.Unmarshal(b, &eb)
		if eb.Code == "route_not_found" || eb.Code == "method_not_allowed" {
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
	for _, row := range errorTable {
		if !slices.Contains(doc.Components.Schemas.Error.Properties.Code.Enum, row.code) {
			t.Errorf("error code %q not documented", row.code)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
