package timeline

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLightToImport: a program that imports dsp, plan and timeline links
// at most 25 packages that are not the standard library's, autocut's own
// included (14 when written), and nothing of the server.
func TestLightToImport(t *testing.T) {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps",
		"-f", "{{if not .Standard}}{{.ImportPath}}{{end}}",
		"github.com/autocut-dev/autocut/dsp", "github.com/autocut-dev/autocut/plan", "github.com/autocut-dev/autocut/timeline").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	got := strings.Fields(string(out))
	if len(got) > 25 {
		t.Errorf("dsp+plan+timeline link %d non-standard packages (at most 25):\n%s", len(got), out)
	}
	for _, p := range got {
		for _, heavy := range []string{"riverqueue", "sqlite", "pgx", "aws", "gocloud", "prometheus", "/jobs", "/httpapi"} {
			if strings.Contains(p, heavy) {
				t.Errorf("dsp+plan+timeline link %s", p)
			}
		}
	}
}
