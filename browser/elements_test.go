package browser_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// elementsPage opens testdata/elements/page in a new session and returns
// the session and the page's affordances.
func elementsPage(t *testing.T, page string) (*browser.Session, []branch.Affordance) {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata/elements")))
	t.Cleanup(srv.Close)
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 3 * time.Second}, RunSeed: 1, Origin: srv.URL})
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/" + page}); r.Status != branch.StatusOK {
		t.Fatalf("navigate: %+v", r)
	}
	return s, observeSnap(t, s).Affordances
}

// byLabel returns the affordance whose accessible name, or else hint, is
// label.
func byLabel(affs []branch.Affordance, label string) (branch.Affordance, bool) {
	for _, a := range affs {
		if a.Target.Name == label || a.Target.Name == "" && a.Target.Hint == label {
			return a, true
		}
	}
	return branch.Affordance{}, false
}

// dump renders affordances for a failure message.
func dump(affs []branch.Affordance) string {
	var b strings.Builder
	for _, a := range affs {
		j, _ := json.Marshal(a.Target)
		b.WriteString("\n  " + string(a.Kind) + " href=" + a.Href + " " + string(j))
	}
	return b.String()
}

// clickAndRead clicks the affordance's target and returns the text of
// #out; the target must resolve by its first strategy (not healed).
func clickAndRead(t *testing.T, s *browser.Session, a branch.Affordance) string {
	t.Helper()
	tgt := a.Target
	r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &tgt})
	if r.Status != branch.StatusOK {
		t.Errorf("click %s: status %s (%s %s)", tgt.Describe(), r.Status, r.Strategy, r.Error)
	}
	v, _, err := s.Read(context.Background(), "#out", "")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestIconOnlyControls: a control with no text and no accessible name is
// offered, with a hint from its tooltip, the words of its classes and id
// and its icon's file name (noise words and hashed classes left out),
// never as its accessible name; its target still resolves and clicks it.
// A link whose href only runs a script carries no href.
func TestIconOnlyControls(t *testing.T) {
	s, affs := elementsPage(t, "icons.html")
	for _, tc := range []struct {
		label string
		kind  branch.ElementKind
		words []string // all in the hint, in order
		hint  bool     // the label is a hint, not the accessible name
		did   string
	}{
		{"delete selected trash", "button", []string{"delete", "selected", "trash"}, true, "did trash"},
		{"star", "clickable", []string{"star"}, true, "did star"},
		{"heart", "link", []string{"heart"}, true, ""},
		{"more", "button", []string{"more"}, true, "did more"},
		{"archive box", "button", []string{"archive", "box"}, true, "did archive"},
		{"pen", "button", []string{"pen"}, true, "did pen"},
		{"Share with people", "button", nil, true, "did share"},
		{"Reply", "button", nil, false, "did reply"},
		{"feed action share", "clickable", []string{"feed", "action", "share"}, true, "did feed share"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			a, ok := byLabel(affs, tc.label)
			if !ok {
				t.Fatalf("no affordance %q:%s", tc.label, dump(affs))
			}
			if a.Kind != tc.kind {
				t.Errorf("kind %s, want %s", a.Kind, tc.kind)
			}
			if tc.hint && (a.Target.Name != "" || a.Target.Hint != tc.label) {
				t.Errorf("name %q hint %q: a derived name must be a hint only", a.Target.Name, a.Target.Hint)
			}
			if !tc.hint && a.Target.Hint != "" {
				t.Errorf("named control %q carries hint %q", a.Target.Name, a.Target.Hint)
			}
			if got := strings.Fields(a.Target.Hint); tc.words != nil && !slices.Equal(got, tc.words) {
				t.Errorf("hint words %q, want %q", got, tc.words)
			}
			if tc.did != "" {
				if got := clickAndRead(t, s, a); got != tc.did {
					t.Errorf("clicking it shows %q, want %q", got, tc.did)
				}
			}
		})
	}
	for _, a := range affs {
		if a.Target.Name == "" && a.Target.Hint == "" {
			t.Errorf("an affordance with nothing to tell it by: %s", dump([]branch.Affordance{a}))
		}
		if strings.Contains(a.Target.Hint, "inserted") || strings.Contains(a.Target.Hint, "svg") {
			t.Errorf("hint %q holds framework words", a.Target.Hint)
		}
	}
	if n := len(affs); n != 12 {
		t.Errorf("%d affordances, want 9 icon controls and 3 links:%s", n, dump(affs))
	}
}

// TestScriptedLinks: "#" and javascript: links act like buttons (no
// href); a link to a fragment of the page keeps its href.
func TestScriptedLinks(t *testing.T) {
	s, affs := elementsPage(t, "icons.html")
	for label, scripted := range map[string]bool{"Mark all read": true, "Load more": true, "Jump to section 2": false} {
		a, ok := byLabel(affs, label)
		switch {
		case !ok:
			t.Errorf("no affordance %q:%s", label, dump(affs))
		case a.Kind != "link":
			t.Errorf("%q is a %s", label, a.Kind)
		case scripted && a.Href != "":
			t.Errorf("scripted link %q carries href %q", label, a.Href)
		case !scripted && !strings.HasSuffix(a.Href, "#section-2"):
			t.Errorf("fragment link %q carries href %q", label, a.Href)
		}
	}
	a, _ := byLabel(affs, "Mark all read")
	if got := clickAndRead(t, s, a); got != "did mark read" {
		t.Errorf("clicking the scripted link shows %q", got)
	}
}

// TestCompositeItems: a generic clickable that holds several items a
// person tells apart (a toolbar, an icon toolbar, a suggestion list, a
// tree, row actions) offers each item; a card whose parts are not alike
// stays one affordance; ARIA items inside a container are offered; each
// item's target clicks that item.
func TestCompositeItems(t *testing.T) {
	s, affs := elementsPage(t, "composite.html")
	items := map[string]string{
		"Bold": "picked Bold", "Italic": "picked Italic", "Underline": "picked Underline",
		"bold": "picked bold", "italic": "picked italic", "link": "picked link",
		"Paris, France": "picked Paris, France", "Paris, Texas": "picked Paris, Texas", "Parma, Italy": "picked Parma, Italy",
		"Documents": "picked Documents", "Reports": "picked Reports", "Invoices": "picked Invoices",
		"Holidays": "picked Holidays", "Birthdays": "picked Birthdays", "Music": "picked Music",
		"Rename": "picked Rename", "Move to": "picked Move to", "Small size": "picked Small size", "Large size": "picked Large size",
	}
	kinds := map[string]branch.ElementKind{"Rename": "menuitem", "Move to": "menuitem", "Small size": "option", "Large size": "option"}
	for label, want := range items {
		a, ok := byLabel(affs, label)
		if !ok {
			t.Errorf("no item %q:%s", label, dump(affs))
			continue
		}
		kind := kinds[label]
		if kind == "" {
			kind = "clickable"
		}
		if a.Kind != kind {
			t.Errorf("%q is a %s, want %s", label, a.Kind, kind)
		}
		if got := clickAndRead(t, s, a); got != want {
			t.Errorf("clicking %q shows %q, want %q", label, got, want)
		}
	}
	// Containers of items are not offered beside them; parts of a card
	// and the bold part of a suggestion are not items; a folder whose
	// bare text sits above its children, where a click on its centre
	// would land on a child, is not offered.
	for _, a := range affs {
		n := a.Target.Name
		for _, bad := range []string{"Bold Italic", "Reports Invoices", "France Paris", "Holidays Birthdays"} {
			if strings.Contains(n, bad) {
				t.Errorf("affordance %q is a container of items", n)
			}
		}
		if n == "Cotton, slim fit" || n == "$20" || n == "Par" || n == "Pictures" {
			t.Errorf("affordance %q is a part of an item", n)
		}
	}
	if a, ok := byLabel(affs, "Blue shirt Cotton, slim fit $20"); !ok || a.Kind != "clickable" {
		t.Errorf("the card is not one affordance:%s", dump(affs))
	}
	// Row actions: each Edit and Delete is offered, told apart by its row;
	// the table keeps its place (its items leave its orders unsaid).
	var deletes []branch.Affordance
	for _, a := range affs {
		if a.Target.Name == "Delete" {
			deletes = append(deletes, a)
		}
	}
	if len(deletes) != 2 || !strings.Contains(deletes[1].Target.Near, "Order 1002") {
		t.Fatalf("row actions:%s", dump(deletes))
	}
	if got := clickAndRead(t, s, deletes[1]); got != "picked delete Order 1002" {
		t.Errorf("clicking the second Delete shows %q", got)
	}
}

// TestVisibilityFromGeometry: entries parked off the page (a flyout
// submenu at left:-9999em, a closed drawer), cut to nothing by an
// overflow:hidden ancestor (a collapsed panel, a carousel's next slide)
// or kept for screen readers only are not offered; what a scroll brings
// into view (below a scroll container's fold, in a scrolling pane of a
// frame that hides its overflow, below the page's fold) is.
// The flyout's entry is a hover menu that reveals them, and pointing at
// it shows them.
func TestVisibilityFromGeometry(t *testing.T) {
	s, _ := elementsPage(t, "geometry.html")
	// The pointer of a new page can rest where another context's last
	// action left it (over the menu): rest it on plain text first.
	if r := do(t, s, branch.Action{Kind: branch.KindHover, Target: &branch.Target{CSS: "#idle"}}); r.Status != branch.StatusOK {
		t.Fatalf("hover: %+v", r)
	}
	affs := observeSnap(t, s).Affordances
	for _, hidden := range []string{"All Posts", "Add New Post", "Categories", "Library", "Add New Media", "Skip to main content",
		"Drawer settings", "Inside the collapsed panel", "Slide two"} {
		if _, ok := byLabel(affs, hidden); ok {
			t.Errorf("%q is offered but cannot be seen", hidden)
		}
	}
	for _, shown := range []string{"Posts", "Media", "Slide one", "First row", "Fourth row", "Deep in the pane", "Below the fold"} {
		if _, ok := byLabel(affs, shown); !ok {
			t.Errorf("%q is not offered:%s", shown, dump(affs))
		}
	}
	posts, _ := byLabel(affs, "Posts")
	if !posts.Hover || !slices.Equal(posts.Reveals, []string{"All Posts", "Add New Post", "Categories"}) {
		t.Fatalf("Posts is not a hover menu revealing its flyout: %+v", posts)
	}
	tgt := posts.Target
	if r := do(t, s, branch.Action{Kind: branch.KindHover, Target: &tgt}); r.Status != branch.StatusOK {
		t.Fatalf("hover: %+v", r)
	}
	after := observeSnap(t, s).Affordances
	if _, ok := byLabel(after, "Categories"); !ok {
		t.Errorf("pointing at Posts does not show Categories:%s", dump(after))
	}
	if _, ok := byLabel(after, "Library"); ok {
		t.Error("pointing at Posts shows the Media flyout")
	}
	// An entry of a nested menu is read with the menus it sits in.
	if cat, _ := byLabel(after, "Categories"); !strings.HasPrefix(cat.Target.Near, "Posts") {
		t.Errorf("Categories' neighbourhood %q does not name its menu, Posts", cat.Target.Near)
	}
}

// TestNeighbourLabels: a field without a label of its own is hinted by
// the label-like text before it in its row, cell, column header,
// definition term or bold lead (a checkbox by the text after it); a field
// with a label, placeholder or another control in between gets no hint;
// a hinted field is typed into through its target.
func TestNeighbourLabels(t *testing.T) {
	s, affs := elementsPage(t, "labels.html")
	byField := map[string]branch.Affordance{}
	for _, a := range affs {
		key := a.Target.Field
		if key == "" {
			key = "#" + a.Target.ID
		}
		byField[key] = a
	}
	for field, hint := range map[string]string{
		"dep": "Departure", "#ret": "Return date", "from": "From", "to": "To", "yr": "Year", "pax": "Passengers",
		"q1": "Apples Quantity", "adults": "Adults", "children": "Children", "city": "City", "ph1": "Phone", "ph2": "",
		"ins": "Travel insurance", "promo": "", "email": "", "seat": "Seat", "vol": "Volume",
	} {
		a, ok := byField[field]
		if !ok {
			t.Errorf("no field %s:%s", field, dump(affs))
			continue
		}
		if a.Target.Hint != hint {
			t.Errorf("field %s hinted %q, want %q", field, a.Target.Hint, hint)
		}
	}
	if n := byField["promo"].Target.Name; n != "Code" {
		t.Errorf("a placeholder names the field, got %q", n)
	}
	for _, f := range []string{"dep", "#ret", "q1"} {
		tgt := byField[f].Target
		if r := do(t, s, branch.Action{Kind: branch.KindType, Target: &tgt, Value: "x1"}); r.Status != branch.StatusOK {
			t.Errorf("type into %s: %+v", f, r)
		}
	}
	after := observeSnap(t, s).Affordances
	for _, a := range after {
		if (a.Target.Field == "dep" || a.Target.ID == "ret" || a.Target.Field == "q1") && a.Value != "x1" {
			t.Errorf("%s holds %q", a.Target.Describe(), a.Value)
		}
	}
}

// TestWrappedLinkIsNotObscured: a link that wraps onto two lines is hit
// on its first line, where a click lands; the middle of its box, between
// the lines, shows its cell, not something covering it.
func TestWrappedLinkIsNotObscured(t *testing.T) {
	_, affs := elementsPage(t, "wrap.html")
	a, ok := byLabel(affs, "Tempor Consequat Senectus Irure Ab")
	if !ok {
		t.Fatalf("the wrapped link is not offered:%s", dump(affs))
	}
	if a.Target.Box == nil || a.Target.Box.H < 25 {
		t.Fatalf("the link does not wrap (box %+v): the page tests nothing", a.Target.Box)
	}
	if a.Region == "obscured" {
		t.Error("the wrapped link counts as obscured")
	}
}
