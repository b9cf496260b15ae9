package sites

import (
	"net/http"
	"strings"
)

// homeBody is the home page model.
type homeBody struct {
	Drift string
}

// home renders the landing page.
func (v *Vendor) home(w http.ResponseWriter, r *http.Request) {
	v.writePage(w, r, http.StatusOK, view{page: "home", body: homeBody{Drift: stateOf(r).knobs.Drift}})
}

// contentTitles are the titles of the plain content pages.
var contentTitles = map[string]string{
	"product":   "Product",
	"customers": "Customers",
	"blog":      "Blog",
	"careers":   "Careers",
	"status":    "Status",
}

// contentPage renders one of the plain content pages.
func (v *Vendor) contentPage(name string) http.HandlerFunc {
	section := ""
	if name == "product" {
		section = "product"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		v.writePage(w, r, http.StatusOK, view{page: name, title: contentTitles[name], section: section})
	}
}

// docPage is one page of the documentation dead end.
type docPage struct {
	Slug, Title string
}

// docPages in navigation order; the index page has slug "".
var docPages = []docPage{
	{Slug: "getting-started", Title: "Getting started"},
	{Slug: "api", Title: "API reference"},
	{Slug: "billing", Title: "Billing and invoices"},
	{Slug: "faq", Title: "FAQ"},
}

// docsBody is the docs page model.
type docsBody struct {
	Slug  string
	Title string
	Pages []docPage
}

// docs renders /docs and /docs/{page}; an unknown page is a 404.
func (v *Vendor) docs(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("page")
	b := docsBody{Pages: docPages, Title: "Documentation"}
	if slug != "" {
		found := false
		for _, p := range docPages {
			if p.Slug == slug {
				b.Slug, b.Title, found = p.Slug, p.Title, true
			}
		}
		if !found {
			v.notFound(w, r)
			return
		}
	}
	title := b.Title
	if slug != "" {
		title += " · Docs"
	}
	v.writePage(w, r, http.StatusOK, view{page: "docs", title: title, section: "docs", body: b})
}

// signup renders the paused trial sign-up page (also for POST).
func (v *Vendor) signup(w http.ResponseWriter, r *http.Request) {
	v.writePage(w, r, http.StatusOK, view{page: "signup", title: "Start your free trial"})
}

// searchBody is the search results model.
type searchBody struct {
	Query string
	Hit   bool
}

// searchTerms make a query match the pricing result.
var searchTerms = []string{"pricing", "price", "plan", "plans", "cost", "buy"}

// search renders /search?q=…; queries about pricing find the pricing page.
func (v *Vendor) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	lq := strings.ToLower(q)
	hit := false
	for _, t := range searchTerms {
		if strings.Contains(lq, t) {
			hit = true
			break
		}
	}
	v.writePage(w, r, http.StatusOK, view{page: "search", title: "Search", body: searchBody{Query: q, Hit: hit}})
}

// contactBody is the contact-sales form model.
type contactBody struct {
	Plan string // "enterprise" when asked about a plan
}

// contactSales renders the contact-sales form.
func (v *Vendor) contactSales(w http.ResponseWriter, r *http.Request) {
	b := contactBody{}
	if r.URL.Query().Get("plan") == "enterprise" {
		b.Plan = "enterprise"
	}
	v.writePage(w, r, http.StatusOK, view{page: "contact", title: "Contact sales", section: "contact", body: b})
}

// contactSalesPost accepts any message and redirects to the thanks page.
func (v *Vendor) contactSalesPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxOrderBodyLen)
	_ = r.ParseForm() // the demo keeps nothing; a bad body still gets thanked
	http.Redirect(w, r, "/contact-sales/thanks", http.StatusSeeOther)
}

// contactThanks renders the contact-sales dead end.
func (v *Vendor) contactThanks(w http.ResponseWriter, r *http.Request) {
	v.writePage(w, r, http.StatusOK, view{page: "contact-thanks", title: "Thanks", section: "contact"})
}
