#!/usr/bin/env bash
# Installs the tools the tests need (when missing, via apt-get as root) and runs
# the whole test suite. The README's test command and .ci/run both call this.
set -euo pipefail
cd "$(dirname "$0")/.."

# command -> Debian package
need=(
  "ffmpeg:ffmpeg" "ffprobe:ffmpeg" "sox:sox" "xmllint:libxml2-utils" "loudgain:loudgain"
  "espeak-ng:espeak-ng" "flite:flite" "pocketsphinx_continuous:pocketsphinx" "chromium:chromium"
)
missing=()
for pair in "${need[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ -d /usr/share/pocketsphinx/model/en-us ] || missing+=(pocketsphinx-en-us)
# PostgreSQL server for the job layer's and the cluster tests (started by the tests on loopback).
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
  if [ "$(id -u)" = 0 ]; then
    echo "installing: $pkgs" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
  else
    echo "missing tools; run as root or install: sudo apt-get install $pkgs" >&2
    exit 1
  fi
fi

# versitygw: the S3 server of the cluster test.
gobin="$(go env GOPATH)/bin"
export PATH="$PATH:$gobin"
if ! command -v versitygw >/dev/null 2>&1; then
  echo "installing: versitygw" >&2
  go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
fi
# Tests that need PostgreSQL or versitygw fail rather than skip without them.
export AUTOCUT_REQUIRE_SERVERS=1

# Real material from public repositories is not in the repository: tests
# read it from the folder AUTOCUT_REALDATA names (internal/realdata; .ci/run
# sets it). Each test that looks for it records whether it ran with it,
# skipped for lack of it or ran on the repository's material only.
realdata_log=$(mktemp)
trap 'rm -f "$realdata_log"' EXIT
export AUTOCUT_REALDATA_LOG="$realdata_log"
if [ -n "${AUTOCUT_REALDATA:-}" ]; then
  echo "real material: AUTOCUT_REALDATA=$AUTOCUT_REALDATA" >&2
else
  echo "real material: AUTOCUT_REALDATA is not set; the tests that need it skip (under CI=true they fail)" >&2
fi
realdata_summary() {
  local ran skipped partial
  count() { { grep "^$1"$'\t' "$realdata_log" || true; } | cut -f2 | sort -u | wc -l; }
  ran=$(count ran)
  skipped=$(count skipped)
  partial=$(count partial)
  echo "real material: $ran tests ran with AUTOCUT_REALDATA, $skipped skipped for lack of AUTOCUT_REALDATA, $partial ran on the repository's material only" >&2
}

# Both tiers: the fast one (go test ./..., what a contributor runs after a
# change) and the slow one (internal/testtier: the accuracy sweeps over the
# corpora, hour-long media, the cluster and outage tests).
export AUTOCUT_SLOW=1

go vet ./...
# The soak test (cmd/autocut TestSoakHeavyKey) compares two 60 s phases of
# load on the real server: it runs on its own after the rest, so that the
# other packages' tests do not load one phase and not the other.
go test -count=1 -timeout 30m -skip '^TestSoakHeavyKey$' "$@" ./...
realdata_summary
go test -count=1 -timeout 10m -run '^TestSoakHeavyKey$' ./cmd/autocut

# The race detector over the packages that run goroutines (the job layer's
# workers, leases and sweeps; the HTTP adapter's handlers, uploads and
# downloads; the client's polling).
# httpapi's two real-media tests are left out here: they drive the same
# handlers and job layer as the other end-to-end tests, through the decoders,
# which -race slows about 8x (140 s of the step).
go test -race -count=1 -timeout 20m -skip 'TestRealMediaEndToEnd|TestRealTranscriptionCutsFillers' ./jobs/... ./httpapi/... ./client/...
# dsp's staged analysis (reader, channel lanes, voice detector on their own
# goroutines) and transcode's render pipe (chain and encoder side by side):
# the tests that drive them, not the whole packages' accuracy suites.
go test -race -count=1 -timeout 10m -run 'TestAnalyzeMatchesWrite|TestAnalyzeSourcePanic|TestAnalyzeProgressAndCancel|TestFFmpeg' ./dsp
go test -race -count=1 -timeout 10m -run 'TestRenderWAVIsSampleAccurateAndClickFree|TestRenderErrors|TestRenderToWAVMatchesRenderByteForByte|TestRenderReplacesOnlyWhenComplete' ./transcode

# Fuzz smoke: every Fuzz target of the module, AUTOCUT_FUZZTIME each
# (default 10s). Targets are listed per package by go test -list, so new
# ones run without changing this script.
fuzztime="${AUTOCUT_FUZZTIME:-10s}"
for pkg in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($fuzztime)" >&2
    # Go 1.26's fuzz coordinator can end a time-limited run with a bare
    # "context deadline exceeded" under load, with no failing input; that
    # one outcome is not a finding. Any failing input fails the step.
    if ! out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" 2>&1); then
      echo "$out" >&2
      if grep -q 'Failing input written\|panic:' <<<"$out" || ! grep -q 'context deadline exceeded' <<<"$out"; then
        exit 1
      fi
      echo "fuzz $pkg $target: coordinator deadline without a failing input (not a finding)" >&2
    fi
  done
done
