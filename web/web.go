// Package web is autocut's browser page: drop a file, follow the job,
// preview other settings on the waveform, download the result and the
// timelines. Plain HTML, CSS and JavaScript embedded in the binary (no build step).
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
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'")
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			http.ServeFileFS(w, r, sub, "index.html")
			return
		}
		static.ServeHTTP(w, r)
	})
}
