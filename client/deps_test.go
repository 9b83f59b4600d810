package client

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestLightToImport: the client links the standard library and apiv1
// only, so that a program that talks to autocut does not link the server
// (River, SQLite, PostgreSQL, object storage): 400 packages and 39 MB
// before apiv1 existed.
func TestLightToImport(t *testing.T) {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps",
		"-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	got := strings.Fields(string(out))
	want := []string{"github.com/autocut-dev/autocut/apiv1", "github.com/autocut-dev/autocut/client"}
	if !slices.Equal(got, want) {
		t.Errorf("client imports %v, want only %v", got, want)
	}
}
