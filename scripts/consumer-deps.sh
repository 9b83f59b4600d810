#!/usr/bin/env bash
# consumer-deps.sh [REPO_DIR]: what a Go program pays to import autocut as a
# library. Builds two throwaway consumer modules in a temp dir, each with a
# replace directive to REPO_DIR (default: this checkout):
#   client: imports only github.com/autocut-dev/autocut/client
#   core:   imports dsp, plan and timeline
# and prints, for each, the non-standard packages `go list -deps` reports
# (the consumer's own package left out), their modules and the size of the
# binary `go build` makes.
set -euo pipefail
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/client" "$tmp/core"
cat >"$tmp/client/main.go" <<'GO'
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/autocut-dev/autocut/client"
)

func main() {
	c := client.New(os.Args[1], os.Getenv("AUTOCUT_KEY"))
	j, err := c.Get(context.Background(), os.Args[2])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(j.ID, j.Status)
}
GO
cat >"$tmp/core/main.go" <<'GO'
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
)

func main() {
	a, err := dsp.AnalyzeFile(context.Background(), os.Args[1], nil)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	p, err := plan.Make(a, plan.DefaultPreset().Params, nil)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	if err := timeline.Write(os.Stdout, timeline.FCPXML, p.Keep, timeline.MediaFromInfo(a.Input, ""), timeline.Options{}); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}
GO
for c in client core; do
	cd "$tmp/$c"
	cat >go.mod <<MOD
module example.com/consumer

go 1.26.0

require github.com/autocut-dev/autocut v0.0.0

replace github.com/autocut-dev/autocut => $repo
MOD
	cp "$repo/go.sum" .
	GOFLAGS=-mod=mod go mod tidy >/dev/null
	pkgs=$(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' . | grep -vx example.com/consumer | wc -l)
	mods=$(go list -deps -f '{{if not .Standard}}{{with .Module}}{{.Path}}{{end}}{{end}}' . | sort -u | grep -vx example.com/consumer | wc -l)
	go build -o consumer .
	size=$(stat -c %s consumer)
	printf '%-6s %4d non-standard packages from %3d modules, binary %10d bytes (%.1f MiB)\n' \
		"$c" "$pkgs" "$mods" "$size" "$(echo "$size/1048576" | bc -l)"
done
