package webui

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"sync"
)

// The page is plain HTML, CSS and JavaScript, embedded so the binary
// serves it offline: no framework, nothing fetched from elsewhere.
//
//go:embed assets
var assets embed.FS

var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(assets, "assets/index.html"))
})

func assetHandler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err)
	}
	return http.FileServer(http.FS(sub))
}

// pageData is what the page is given when served: the token its changes
// must carry (a page of another origin cannot read it) and the projects.
type pageData struct {
	Token    string
	Projects []string
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := pageTemplate().Execute(&buf, pageData{Token: s.pageToken, Projects: s.order}); err != nil {
		writeError(w, http.StatusInternalServerError, err, nil)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}
