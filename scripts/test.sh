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

go vet ./...
go test -count=1 -timeout 30m "$@" ./...
