package sites

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

// renderer holds one parsed template set per page. Files whose name starts
// with "_" (layout, style, scripts, partials) are shared by every page; every
// other file defines the "content" of one page, named after the file.
type renderer struct {
	pages map[string]*template.Template
}

// newRenderer parses the embedded templates.
func newRenderer() (*renderer, error) {
	base, err := template.New("base").ParseFS(templateFS, "templates/_*.html")
	if err != nil {
		return nil, fmt.Errorf("sites: parse shared templates: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("sites: list templates: %w", err)
	}
	rd := &renderer{pages: map[string]*template.Template{}}
	for _, name := range names {
		file := path.Base(name)
		if strings.HasPrefix(file, "_") {
			continue
		}
		t, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("sites: clone templates for %s: %w", file, err)
		}
		if _, err := t.ParseFS(templateFS, name); err != nil {
			return nil, fmt.Errorf("sites: parse %s: %w", file, err)
		}
		rd.pages[strings.TrimSuffix(file, ".html")] = t
	}
	return rd, nil
}

// pageData is what the layout sees. Body is the page-specific model.
type pageData struct {
	Title      string // the page part of <title>; "" on the home page
	Variant    string
	Section    string // active top-nav section: product, docs, pricing, contact
	Query      string // search box value
	Banner     bool   // inject the late consent banner
	Modal      bool   // the banner is a click-intercepting modal
	PageRandom bool
	TimerRace  bool
	Body       any
}

// render executes page into a buffer so a template error never sends half a
// page.
func (rd *renderer) render(page string, d pageData) ([]byte, error) {
	t, ok := rd.pages[page]
	if !ok {
		return nil, fmt.Errorf("sites: no template for page %q", page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", d); err != nil {
		return nil, fmt.Errorf("sites: render %s: %w", page, err)
	}
	return buf.Bytes(), nil
}

// testIDs matches a data-testid attribute in a rendered page.
var testIDs = regexp.MustCompile(`data-testid="([^"]*)"`)

// view names a page to render with its title, nav section and model.
type view struct {
	page, title, section string
	body                 any
}

// writePage renders v for r with the request's variant and chaos flags.
func (vd *Vendor) writePage(w http.ResponseWriter, r *http.Request, status int, v view) {
	st := stateOf(r)
	d := pageData{
		Title: v.title, Variant: st.variant, Section: v.section,
		Query:      r.URL.Query().Get("q"),
		Banner:     st.knobs.banner() && !consented(r),
		Modal:      st.knobs.Modal,
		PageRandom: st.knobs.PageRandom,
		TimerRace:  st.knobs.TimerRace,
		Body:       v.body,
	}
	if r.URL.Path != "/search" {
		d.Query = ""
	}
	b, err := vd.tmpl.render(v.page, d)
	if err != nil {
		http.Error(w, "internal error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if st.knobs.TestIDDrift {
		b = testIDs.ReplaceAll(b, []byte(`data-testid="$1-v2"`))
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
