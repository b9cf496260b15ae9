package browser_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestFacts: the observation reads the values a page states in text with
// the words that name them: table cells by row and column header (links
// in the row's cell included, controls left out), an ARIA table, a
// definition list, "Label: value" lines; hidden ones are not read,
// personal data is scrubbed at capture, and a clock time is no label.
func TestFacts(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata/elements")))
	t.Cleanup(srv.Close)
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 3 * time.Second}, RunSeed: 1, Origin: srv.URL,
		Scrub: scrub.New(scrub.NewKey(), nil)})
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/facts.html"}); r.Status != branch.StatusOK {
		t.Fatalf("navigate: %+v", r)
	}
	facts := observeSnap(t, s).Facts
	got := map[string]string{}
	var all []string
	for _, f := range facts {
		got[f.Key] = f.Value
		all = append(all, f.Key+" = "+f.Value)
	}
	want := map[string]string{
		"Order number":          "A-4521",
		"Status":                "Shipped",
		"Placed":                "March 3, 2026",
		"Harbor Lamp SKU":       "HL-204",
		"Harbor Lamp Price":     "$48.00",
		"Reading Lamp Price":    "$31.50",
		"Mercury Distance (AU)": "0.39",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("fact %q = %q, want %q", k, got[k], v)
		}
	}
	for _, f := range facts {
		switch {
		case strings.Contains(f.Value, "secret-value") || strings.Contains(f.Key, "Hidden"):
			t.Errorf("a hidden table was read: %s = %s", f.Key, f.Value)
		case strings.Contains(f.Value, "example.org"):
			t.Errorf("an e-mail address reached the observation: %s = %s", f.Key, f.Value)
		case f.Value == "Edit" || strings.HasPrefix(f.Key, "Note"):
			t.Errorf("a control was read as a fact: %s = %s", f.Key, f.Value)
		case strings.HasPrefix(f.Key, "Opens"):
			t.Errorf("a clock time was read as a label: %s = %s", f.Key, f.Value)
		}
	}
	if !strings.HasPrefix(got["Contact"], "tok_") {
		t.Errorf("Contact = %q, want its token", got["Contact"])
	}
	if t.Failed() {
		t.Logf("facts:\n  %s", strings.Join(all, "\n  "))
	}
}
