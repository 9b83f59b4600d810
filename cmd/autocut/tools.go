//go:build tools

// This file pins the project's chosen dependencies in go.mod until every one
// of them is imported by real code; `go mod tidy` honours it, builds ignore it.
package main

import (
	_ "code.dny.dev/ssrf"
	_ "github.com/go-audio/wav"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/hajimehoshi/go-mp3"
	_ "github.com/julienschmidt/httprouter"
	_ "github.com/mjibson/go-dsp/fft"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/riverqueue/river"
	_ "github.com/riverqueue/river/riverdriver/riverpgxv5"
	_ "github.com/riverqueue/river/riverdriver/riversqlite"
	_ "gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob"
	_ "modernc.org/sqlite"
)
