// Package web is autocut's browser page: pick a file and options, follow
// the job (each step with its time, the upload's rate), then review and
// edit the cut list on a zoomable waveform as soon as the analysis ends,
// while the file renders: a click moves the playhead and selects, cutting
// or keeping is an explicit act (the selection's buttons, Enter, a
// drag-select), cut edges are dragged, one undo history covers the cuts
// and the detection settings (previewed at once), and fillers are judged
// one by one with the words around them. Listen before and after from the
// same spot, apply, and download the result and the timelines, never a
// stale one: with edits not applied a download applies them first. The
// open job is in the address (#/jobs/ID) and edits not applied are kept in
// the browser until applied. Plain HTML, CSS and JavaScript embedded in
// the binary (no build step); a service worker (static/sw.js) lets the
// media players stream the job's files with the API key.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var files embed.FS

// Handler serves the page at / and its assets under /static/.
func Handler() http.Handler {
	sub, _ := fs.Sub(files, "static")
	static := http.StripPrefix("/static/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// The page holds the API key: no other site may frame it (a
		// click-jacking overlay); X-Frame-Options for browsers without CSP 2.
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; worker-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			http.ServeFileFS(w, r, sub, "index.html")
			return
		}
		if r.URL.Path == "/static/sw.js" {
			// The worker lives with the assets but serves the whole page
			// (scope /): it adds the key to the media players' requests.
			w.Header().Set("Service-Worker-Allowed", "/")
			w.Header().Set("Cache-Control", "no-cache")
		}
		static.ServeHTTP(w, r)
	})
}
