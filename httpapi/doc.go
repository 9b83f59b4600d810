// Package httpapi is autocut's v1 HTTP adapter: it maps the routes of
// shared/spec/api-v1.md onto a jobs.Service, authenticates API keys, turns
// typed errors into JSON error bodies (one table, errors.go), downloads
// Form A URLs through an SSRF-hardened client, and serves /healthz, /readyz,
// /metrics and the OpenAPI 3.1 document at /api/v1/openapi.json.
package httpapi
