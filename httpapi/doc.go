// Package httpapi is autocut's v1 HTTP adapter: it maps the v1 routes
// (their contract is openapi.json, served at /api/v1/openapi.json; a
// client's walk through them is docs/api.md) onto a jobs.Service,
// authenticates API keys, turns typed errors into JSON error bodies (one
// table of statuses, apiv1's errors.go), downloads the files of URL jobs
// (Form A) through an SSRF-hardened client, and serves /healthz, /readyz
// and /metrics.
package httpapi
