package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// TestHoverMenus: a menu that a :hover style opens and one that a
// mouse-enter listener opens are affordances that say so and name the
// controls they hide (a link with a mere hover colour is not); pointing
// at one shows its items and is a new page state; the other menus stay
// closed.
func TestHoverMenus(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	defer srv.Close()
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: srv.URL})
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/hover.html"})
	before := observeSnap(t, s)
	got := map[string]branch.Affordance{}
	for _, a := range before.Affordances {
		got[a.Target.Name] = a
	}
	for name, reveals := range map[string][]string{"Styled": {"One", "Two"}, "Scripted": {"Three"}} {
		a, ok := got[name]
		if !ok || !a.Hover || !slices.Equal(a.Reveals, reveals) {
			t.Errorf("%s: %+v, want a hover menu revealing %q", name, a, reveals)
		}
	}
	if a := got["Plain link"]; a.Hover {
		t.Errorf("a link with a hover colour is a hover menu: %+v", a)
	}
	if got["Styled"].Kind != "menu" || got["Scripted"].Kind != "link" {
		t.Errorf("kinds %q and %q, want menu (a label without a control) and link (the menu's own link)", got["Styled"].Kind, got["Scripted"].Kind)
	}
	for _, tc := range []struct{ menu, item, closed string }{{"Styled", "Two", "Three"}, {"Scripted", "Three", "One"}} {
		tgt := got[tc.menu].Target
		if r := do(t, s, branch.Action{Kind: branch.KindHover, Target: &tgt}); r.Status != branch.StatusOK {
			t.Fatalf("hover %s: %+v", tc.menu, r)
		}
		after := observeSnap(t, s)
		names := map[string]bool{}
		for _, a := range after.Affordances {
			names[a.Target.Name] = true
		}
		if !names[tc.item] || names[tc.closed] {
			t.Errorf("pointing at %s shows %v: want %s and not %s", tc.menu, names, tc.item, tc.closed)
		}
		if after.DOMHash == before.DOMHash {
			t.Errorf("pointing at %s left the page state as it was", tc.menu)
		}
	}
}

func observeSnap(t *testing.T, s *browser.Session) branch.Observation {
	t.Helper()
	snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
	if err != nil {
		t.Fatal(err)
	}
	return snap.Obs
}
