package httpapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// TestMetricsLabelsClosed sends requests with random method names and to
// unknown paths through the real server: /metrics must not grow with them
// (issue 16: 20,000 random methods made it 44.6 MB).
func TestMetricsLabelsClosed(t *testing.T) {
	e := newTestEnv(t, nil)
	metrics := func() string {
		resp, b := e.call(t, "GET", "/metrics", "", nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("/metrics: %d", resp.StatusCode)
		}
		return string(b)
	}
	// One request of each kind first, so that the series they need exist.
	e.call(t, "XYZZY", "/api/v1/jobs", proKey, nil, nil)
	e.call(t, "GET", "/no/such/path", "", nil, nil)
	before := metrics()
	rng := rand.New(rand.NewPCG(1, 16))
	const n = 600
	for i := range n {
		var m strings.Builder
		for range 12 {
			m.WriteByte(byte('A' + rng.IntN(26)))
		}
		path := "/api/v1/jobs"
		if i%2 == 1 {
			path = fmt.Sprintf("/random/%d", rng.Uint64())
		}
		resp, _ := e.call(t, m.String(), path, proKey, nil, nil)
		if resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
			t.Fatalf("%s %s: %d", m.String(), path, resp.StatusCode)
		}
	}
	after := metrics()
	growth := len(after) - len(before)
	t.Logf("/metrics grew by %d bytes after %d requests with random methods (%d -> %d bytes)", growth, n, len(before), len(after))
	if growth >= 30<<10 {
		t.Errorf("/metrics grew by %d bytes, want < 30 kB", growth)
	}
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "autocut_http_") && (strings.Contains(line, "/random/") || strings.Contains(line, "XYZZY")) {
			t.Errorf("a request's method or path became a label: %s", line)
			break
		}
	}
	if !strings.Contains(after, `method="other"`) {
		t.Errorf("no method=\"other\" series:\n%s", after)
	}
}
