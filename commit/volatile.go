package commit

import (
	"bytes"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

// nonceWords mark a hidden form field whose value a site issues anew for
// each page (a one-time number, an anti-forgery token): its name, lower
// cased, contains one of them. Such a field says nothing about what is
// submitted, so the form body the key covers leaves it out even when two
// loads of the page happen to carry the same value. Each entry says what
// it serves.
var nonceWords = []struct{ word, serves string }{
	{"nonce", "one-time numbers: WordPress _wpnonce, generic nonce fields"},
	{"csrf", "anti-forgery tokens: Django csrfmiddlewaretoken, _csrf (Express, Spring), csrf_token (Flask-WTF)"},
	{"xsrf", "anti-forgery tokens: _xsrf (Tornado), XSRF-TOKEN copies"},
	{"token", "authenticity_token (Rails), _token (Laravel), wpEditToken (MediaWiki), form_token (phpBB), __RequestVerificationToken (ASP.NET)"},
	{"viewstate", "ASP.NET __VIEWSTATE and __VIEWSTATEGENERATOR"},
	{"eventvalidation", "ASP.NET __EVENTVALIDATION"},
	{"form_key", "Magento form_key"},
	{"formkey", "form keys spelled without a separator"},
	{"sesskey", "Moodle sesskey"},
	{"timestamp", "per-load timestamps some forms carry against replays"},
}

// nonceName reports whether a hidden field's name marks it as a nonce.
func nonceName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range nonceWords {
		if strings.Contains(n, w.word) {
			return true
		}
	}
	return false
}

// formRef finds a form again in another load of the same page: by its id
// when it has one, otherwise by its position among the page's forms.
type formRef struct {
	ID    string
	Index int
}

func refOf(f *browser.Form) formRef { return formRef{ID: f.ID, Index: f.Index} }

// volatileFields returns, sorted, the names of the form's fields whose
// default values (what the server rendered into the page) differ between
// two loads of the page. A field only one load has is not counted: the
// loads cannot say whether it changes. found is false when either load
// lacks the form.
func volatileFields(first, second []byte, ref formRef) (names []string, found bool) {
	a, okA := formDefaults(first, ref)
	b, okB := formDefaults(second, ref)
	if !okA || !okB {
		return nil, false
	}
	for name, va := range a {
		if vb, ok := b[name]; ok && !slices.Equal(va, vb) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, true
}

// formDefaults parses an HTML document and returns the default values of
// the form ref names, per field name in document order, as the served
// page sets them: an input's value attribute, a checked checkbox's or
// radio's value ("on" without one), a textarea's text, a select's
// selected options (its first option when none is selected and it is not
// multiple). Buttons, file inputs and disabled fields are left out, as
// a submission leaves them out.
func formDefaults(doc []byte, ref formRef) (map[string][]string, bool) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return nil, false
	}
	var forms []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Form {
			forms = append(forms, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	var form *html.Node
	switch {
	case ref.ID != "":
		for _, f := range forms {
			if attr(f, "id") == ref.ID {
				form = f
				break
			}
		}
	case ref.Index >= 0 && ref.Index < len(forms):
		form = forms[ref.Index]
	}
	if form == nil {
		return nil, false
	}
	id := attr(form, "id")
	out := map[string][]string{}
	var controls func(n *html.Node, inside bool)
	controls = func(n *html.Node, inside bool) {
		if n.Type == html.ElementNode {
			if n == form {
				inside = true
			}
			owned := inside
			if owner, ok := attrOK(n, "form"); ok {
				owned = id != "" && owner == id
			}
			if owned && !hasAttr(n, "disabled") {
				addDefault(out, n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			controls(c, inside)
		}
	}
	controls(root, false)
	return out, true
}

// addDefault records the default value(s) of one form control.
func addDefault(out map[string][]string, n *html.Node) {
	name := attr(n, "name")
	if name == "" {
		return
	}
	switch n.DataAtom {
	case atom.Input:
		switch strings.ToLower(attr(n, "type")) {
		case "submit", "button", "image", "reset", "file":
		case "checkbox", "radio":
			if hasAttr(n, "checked") {
				v, ok := attrOK(n, "value")
				if !ok {
					v = "on"
				}
				out[name] = append(out[name], v)
			}
		default:
			out[name] = append(out[name], attr(n, "value"))
		}
	case atom.Textarea:
		out[name] = append(out[name], strings.TrimPrefix(textOf(n), "\n"))
	case atom.Select:
		var opts []*html.Node
		var find func(c *html.Node)
		find = func(c *html.Node) {
			for ; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && c.DataAtom == atom.Option {
					opts = append(opts, c)
				} else if c.Type == html.ElementNode {
					find(c.FirstChild)
				}
			}
		}
		find(n.FirstChild)
		var sel []string
		for _, o := range opts {
			if hasAttr(o, "selected") {
				sel = append(sel, optionValue(o))
			}
		}
		if len(sel) == 0 && !hasAttr(n, "multiple") && len(opts) > 0 {
			sel = append(sel, optionValue(opts[0]))
		}
		if !hasAttr(n, "multiple") && len(sel) > 1 {
			sel = sel[len(sel)-1:] // the last selected wins in a single select
		}
		out[name] = append(out[name], sel...)
	}
}

func optionValue(o *html.Node) string {
	if v, ok := attrOK(o, "value"); ok {
		return v
	}
	return strings.Join(strings.Fields(textOf(o)), " ")
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(c *html.Node)
	walk = func(c *html.Node) {
		for ; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
			walk(c.FirstChild)
		}
	}
	walk(n.FirstChild)
	return b.String()
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val, true
		}
	}
	return "", false
}

func hasAttr(n *html.Node, key string) bool {
	_, ok := attrOK(n, key)
	return ok
}
