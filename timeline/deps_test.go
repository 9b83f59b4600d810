package timeline

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLightToImport: a program that imports the library (dsp, plan,
// timeline, and transcode and transcribe, which render and transcribe
// without a server) links at most 25 packages that are not the standard
// library's, autocut's own included (14 for dsp, plan and timeline when
// written, 20 with transcode and transcribe), and nothing of the server.
func TestLightToImport(t *testing.T) {
	const mod = "github.com/autocut-dev/autocut/"
	for _, pkgs := range [][]string{{"dsp", "plan", "timeline"}, {"dsp", "plan", "timeline", "transcode", "transcribe"}} {
		args := []string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}
		for _, p := range pkgs {
			args = append(args, mod+p)
		}
		out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...).Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		name := strings.Join(pkgs, "+")
		got := strings.Fields(string(out))
		if len(got) > 25 {
			t.Errorf("%s link %d non-standard packages (at most 25):\n%s", name, len(got), out)
		}
		for _, p := range got {
			for _, heavy := range []string{"riverqueue", "sqlite", "pgx", "aws", "gocloud", "prometheus", "httprouter", "chromedp", "/jobs", "/httpapi"} {
				if strings.Contains(p, heavy) {
					t.Errorf("%s link %s", name, p)
				}
			}
		}
	}
}
