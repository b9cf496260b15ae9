package cms

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

// renderer holds one parsed template set per page. Files whose name
// starts with "_" (layouts, style, script) are shared; every other file
// defines the "content" of one page, named after the file.
type renderer struct {
	pages map[string]*template.Template
}

var funcs = template.FuncMap{
	"roles":     func() []role { return roles },
	"roleLabel": roleLabel,
	"notice":    func(kind, text string) notice { return notice{kind, text} },
}

// newRenderer parses the embedded templates.
func newRenderer() (*renderer, error) {
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/_*.html")
	if err != nil {
		return nil, fmt.Errorf("cms: parse shared templates: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("cms: list templates: %w", err)
	}
	rd := &renderer{pages: map[string]*template.Template{}}
	for _, name := range names {
		file := path.Base(name)
		if strings.HasPrefix(file, "_") {
			continue
		}
		t, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("cms: clone templates for %s: %w", file, err)
		}
		if _, err := t.ParseFS(templateFS, name); err != nil {
			return nil, fmt.Errorf("cms: parse %s: %w", file, err)
		}
		rd.pages[strings.TrimSuffix(file, ".html")] = t
	}
	return rd, nil
}

// page is what a layout sees.
type page struct {
	Title string
	// Screen is the page's menu section (its submenu is shown open), Item
	// its submenu entry.
	Screen, Item string
	TitleAction  *link
	Notices      []notice
	Body         any

	// Filled by writeAdmin.
	Me           User
	ProfileNonce string
	SiteTitle    string
	Menu         []menuTop
}

// link is an anchor.
type link struct{ Href, Text string }

// notice is a message above a page's content. An error notice renders
// exactly as <div class="notice notice-error"><p><strong>Error:</strong>
// TEXT</p></div>.
type notice struct{ Kind, Text string }

func errorNotice(text string) notice   { return notice{"error", text} }
func successNotice(text string) notice { return notice{"success", text} }

// menuTop is an entry of the side menu: a link, or a toggle with a
// flyout submenu.
type menuTop struct {
	ID, Label, Href string
	Items           []menuItem
	Current         bool
}

type menuItem struct {
	ID, Label, Href string
	Current         bool
}

// sideMenu returns the side menu with the current section and item marked.
func sideMenu(screen, item string) []menuTop {
	m := []menuTop{
		{ID: "dashboard", Label: "Dashboard", Href: "/admin/"},
		{ID: "posts", Label: "Posts", Items: []menuItem{
			{ID: "posts-all", Label: "All Posts", Href: "/admin/posts"},
			{ID: "posts-new", Label: "Add New Post", Href: "/admin/posts/new"},
		}},
		{ID: "users", Label: "Users", Items: []menuItem{
			{ID: "users-all", Label: "All Users", Href: "/admin/users"},
			{ID: "users-new", Label: "Add New", Href: "/admin/users/new"},
			{ID: "profile", Label: "Profile", Href: "/admin/profile"},
		}},
		{ID: "settings", Label: "Settings", Items: []menuItem{
			{ID: "settings-general", Label: "General", Href: "/admin/settings"},
		}},
	}
	for i := range m {
		m[i].Current = m[i].ID == screen
		for j := range m[i].Items {
			m[i].Items[j].Current = m[i].Items[j].ID == item
		}
	}
	return m
}

// writeAdmin renders an admin page for me: the top bar, the side menu,
// the profile form (with a fresh nonce) and the heartbeat around the
// page's content.
func (s *Site) writeAdmin(w http.ResponseWriter, status int, name string, me User, p page) {
	p.Me = me
	p.ProfileNonce = s.issueNonce("profile")
	s.mu.Lock()
	p.SiteTitle = s.settings.Title
	s.mu.Unlock()
	p.Menu = sideMenu(p.Screen, p.Item)
	s.writePage(w, status, name, p)
}

// writePage renders page name into a buffer, so a template error never
// sends half a page, and writes it.
func (s *Site) writePage(w http.ResponseWriter, status int, name string, p page) {
	t, ok := s.tmpl.pages[name]
	if !ok {
		http.Error(w, "internal error: no template "+name, http.StatusInternalServerError)
		return
	}
	layout := "admin"
	if name == "login" {
		layout = "login-layout"
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, layout, p); err != nil {
		http.Error(w, "internal error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
