package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed assets
var assetFS embed.FS

// assetHandler serves the embedded UI: index.html at /, the scripts and
// styles next to it. Nothing is loaded from elsewhere (see the page's
// Content-Security-Policy).
func assetHandler() http.Handler {
	sub, _ := fs.Sub(assetFS, "assets")
	files := http.FileServer(http.FS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
