package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// observeAffordances opens testdata/affordances.html and returns its
// affordances by accessible name.
func observeAffordances(t *testing.T, s *browser.Session) map[string]branch.Affordance {
	t.Helper()
	snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]branch.Affordance{}
	for _, a := range snap.Obs.Affordances {
		key := a.Target.Name
		if key == "" {
			key = "[" + a.Target.Field + "]"
		}
		if _, dup := out[key]; dup {
			t.Errorf("two affordances named %q", key)
		}
		out[key] = a
	}
	return out
}

func affordancePage(t *testing.T) (*browser.Session, map[string]branch.Affordance) {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(srv.Close)
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second},
		RunSeed: 1, Origin: srv.URL, Scrub: scrub.New(scrub.NewKey(), nil)})
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/affordances.html"}); r.Status != branch.StatusOK {
		t.Fatalf("navigate: %+v", r)
	}
	return s, observeAffordances(t, s)
}

// TestAffordanceKinds: everything a person can interact with is an
// affordance with a role-like kind and a name: native controls, ARIA
// widgets, elements with a click handler, a pointer cursor or a tab stop,
// contenteditable, open shadow roots and same-origin iframes; hidden,
// disabled, closed-shadow and plain elements are not, and a covered one
// is marked obscured.
func TestAffordanceKinds(t *testing.T) {
	_, got := affordancePage(t)
	want := map[string]branch.ElementKind{
		"the next page": "link", "Native button": "button", "Full name": "textbox", "I agree": "checkbox",
		"Small": "radio", "Colour": "select", "Notes": "textarea", "[nick]": "textbox", "More details": "button",
		"Tab #1": "tab", "Tab #2": "tab", "Folder alpha": "treeitem", "Menu open": "menuitem", "Apple option": "option",
		"Aria check": "checkbox", "Aria radio": "radio", "Aria switch": "switch", "City search": "textbox", "Fruits": "listbox",
		"a span with a listener": "clickable", "Span with attribute": "clickable", "Pointer div pointer child": "clickable",
		"Tab stop div": "clickable", "Editable note": "textbox", "Inner link": "link",
		"Shadow button": "button", "Shadow listener": "clickable", "Frame button": "button", "Frame field": "textbox",
		"Frame secret": "textbox", "Shadow secret": "textbox", "Hidden under cover": "button",
	}
	for name, kind := range want {
		a, ok := got[name]
		switch {
		case !ok:
			t.Errorf("no affordance %q", name)
		case a.Kind != kind:
			t.Errorf("%q is a %s, want %s", name, a.Kind, kind)
		}
	}
	for _, name := range []string{"Plain span", "Display none", "Disabled button", "Aria disabled", "Invisible clickable",
		"Closed shadow button", "pointer child", "Generic", "Shadow text Shadow button"} {
		if _, ok := got[name]; ok {
			t.Errorf("%q is an affordance", name)
		}
	}
	if len(got) != len(want) {
		var extra []string
		for n := range got {
			if _, ok := want[n]; !ok {
				extra = append(extra, n)
			}
		}
		t.Errorf("unexpected affordances %q", extra)
	}
	if r := got["City search"].Target.Role; r != "combobox" {
		t.Errorf("combobox input has role %q", r)
	}
	if r := got["Hidden under cover"].Region; r != "obscured" {
		t.Errorf("covered button region %q, want obscured", r)
	}
	if a := got["Tab #1"]; !a.Checked || got["Tab #2"].Checked {
		t.Errorf("selected tab not marked: %+v / %+v", a, got["Tab #2"])
	}
	if !got["Aria radio"].Checked || got["Aria check"].Checked {
		t.Error("aria-checked not read")
	}
	for name, near := range map[string]string{"a span with a listener": "In this text", "[nick]": "Nickname:", "Frame button": "In the frame", "the next page": "Read the next page"} {
		if n := got[name].Target.Near; !strings.Contains(n, near) {
			t.Errorf("%q near %q, want it to hold %q", name, n, near)
		}
	}
	fb := got["Frame button"]
	if !strings.Contains(fb.Target.CSS, "enter-frame") || fb.Target.Box == nil || fb.Target.Box.Y < got["Shadow button"].Target.Box.Y {
		t.Errorf("frame button target %+v", fb.Target)
	}
}

// TestActOnAnyAffordance: the actions reach every kind: a click on a
// span with a listener, in an open shadow root and in an iframe; check
// on an ARIA checkbox; type into contenteditable; focus a field.
func TestActOnAnyAffordance(t *testing.T) {
	s, got := affordancePage(t)
	steps := []branch.Action{
		{Kind: branch.KindClick, Target: targetOf(got["a span with a listener"])},
		{Kind: branch.KindClick, Target: targetOf(got["Shadow listener"])},
		{Kind: branch.KindClick, Target: targetOf(got["Frame button"])},
		{Kind: branch.KindCheck, Target: targetOf(got["Aria check"]), Value: "true"},
		{Kind: branch.KindType, Target: targetOf(got["Editable note"]), Value: "hello"},
		{Kind: branch.KindType, Target: targetOf(got["Frame field"]), Value: "framed"},
		{Kind: branch.KindFocus, Target: targetOf(got["Full name"])},
	}
	for _, a := range steps {
		if r := do(t, s, a); r.Status == branch.StatusFailed {
			t.Fatalf("%s %s: %+v", a.Kind, a.Target.Describe(), r)
		}
	}
	after := observeAffordances(t, s)
	for _, name := range []string{"Listener clicked", "Shadow clicked", "Frame clicked"} {
		if _, ok := after[name]; !ok {
			t.Errorf("no %q after the clicks", name)
		}
	}
	if !after["Aria check"].Checked {
		t.Error("aria checkbox not checked")
	}
	if v := after["Editable note"].Value; v != "hello" {
		t.Errorf("contenteditable holds %q", v)
	}
	if v := after["Frame field"].Value; v != "framed" {
		t.Errorf("frame field holds %q", v)
	}
	// Secrets typed inside an iframe or a shadow root are known as
	// personal data, so the caller scrubs them like any other.
	do(t, s, branch.Action{Kind: branch.KindType, Target: targetOf(got["Frame secret"]), Value: "frame-pw-1"})
	do(t, s, branch.Action{Kind: branch.KindType, Target: targetOf(got["Shadow secret"]), Value: "shadow-pw-2"})
	snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{"frame-pw-1", "shadow-pw-2"} {
		if !slices.Contains(snap.PII, pw) {
			t.Errorf("%s typed into a password field is not in the observation's personal values %q", pw, snap.PII)
		}
		if strings.Contains(snap.DOM, pw) {
			t.Errorf("%s is in clear in the canonical DOM", pw)
		}
	}
	do(t, s, branch.Action{Kind: branch.KindFocus, Target: targetOf(got["Full name"])})
	v, ok, err := s.Read(context.Background(), ":focus", "name")
	if err != nil || !ok || v != "full" {
		t.Errorf("focused element name = %q %v %v, want full", v, ok, err)
	}
}

func targetOf(a branch.Affordance) *branch.Target {
	t := a.Target
	return &t
}
