package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// personalPage is a form and a page text holding personal data: a card
// number typed into a cc-number field, an e-mail typed into a field whose
// name says nothing, a name typed into a name field, and an e-mail, a
// card number, a phone number and the same name in the page text. The
// font is monospace so that values of the same length lay out the same.
const personalPage = `<!doctype html><html><head><style>
body { font: 18px/1.4 monospace; margin: 20px; }
input { font: 18px monospace; width: 320px; display: block; margin: 6px 0; }
</style></head><body>
<form>
<label>Card <input id="card" name="payment" autocomplete="cc-number"></label>
<label>Notes <input id="note" name="note"></label>
<label>Name <input id="name" name="name" value="%[1]s"></label>
</form>
<p>Billed to %[1]s</p>
<p>Contact: %[2]s</p>
<p>Card on file: %[3]s</p>
<p>Call %[4]s</p>
<p>%[5]s</p>
</body></html>`

type personal struct{ name, email, card, phone, typedCard, typedEmail, plain string }

// TestScreenshotMasksPersonalData: two pages that differ only in their
// personal values (typed into fields, or in the page text) give the same
// screenshot pixels; a change of non-personal text still changes them.
func TestScreenshotMasksPersonalData(t *testing.T) {
	a := personal{"Jane Roe", "jane@example.com", "4111 1111 1111 1111", "+49 30 1234 5678", "4111111111111111", "buyer+a@example.com", "Order total for 10 seats"}
	b := personal{"John Doe", "john@example.org", "5500 0000 0000 0004", "+44 20 7946 0958", "5555555555554444", "other+b@example.net", "Order total for 10 seats"}
	c := a
	c.plain = "Order total for 20 seats"
	for _, later := range []bool{false, true} {
		// later: the observation takes none, and the screenshot is asked
		// for after it (a page found worth one: a failed step, the goal).
		checkMasked(t, a, b, c, later)
	}
}

func checkMasked(t *testing.T, a, b, c personal, later bool) {
	shot := func(p personal) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, personalPage, p.name, p.email, p.card, p.phone, p.plain)
		}))
		defer srv.Close()
		store, err := artifacts.OpenFS(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s, err := runtime(t).NewSession(context.Background(), browser.SessionOptions{
			Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: srv.URL, Store: store,
			Scrub: scrub.New(scrub.NewKey(), nil)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
		do(t, s, branch.Action{Kind: branch.KindType, Target: &branch.Target{ID: "card"}, Value: p.typedCard})
		do(t, s, branch.Action{Kind: branch.KindType, Target: &branch.Target{ID: "note"}, Value: p.typedEmail})
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{Screenshot: !later})
		if later && err == nil {
			snap.Obs.ScreenshotHash, err = s.Screenshot(context.Background())
		}
		if err != nil || snap.Obs.ScreenshotHash == "" {
			t.Fatalf("observe (screenshot later %v): %v %+v", later, err, snap.Obs)
		}
		return snap.Obs.ScreenshotHash
	}
	if ha, hb := shot(a), shot(b); ha != hb {
		t.Fatalf("the screenshot depends on personal data (taken later %v): two pages differing only in personal values differ in pixels", later)
	}
	if ha, hc := shot(a), shot(c); ha == hc {
		t.Fatal("a change of non-personal text did not change the screenshot (the check above could not fail)")
	}
}

// nested is what TestScreenshotMasksInsideFramesAndShadowRoots puts in an
// open shadow root (shadow) and a same-origin iframe (frame): typed into a
// card field, a field whose name says nothing and a password field, and
// an e-mail, a card number and a plain text in the page text.
type nested struct {
	typedCard, typedEmail, password, email, card, plainShadow, plainFrame string
}

// TestScreenshotMasksInsideFramesAndShadowRoots: personal values typed or
// shown inside an open shadow root and a same-origin iframe (offset by its
// border and padding) leave the screenshot pixels unchanged; a change of
// non-personal text in either still changes them.
func TestScreenshotMasksInsideFramesAndShadowRoots(t *testing.T) {
	top, err := os.ReadFile(filepath.Join("testdata", "mask_nested.html"))
	if err != nil {
		t.Fatal(err)
	}
	frame, err := os.ReadFile(filepath.Join("testdata", "mask_frame.html"))
	if err != nil {
		t.Fatal(err)
	}
	a := nested{"4111111111111111", "buyer+a@example.com", "hunter2", "jane@example.com", "4111 1111 1111 1111", "Shadow total 10", "Frame total 10"}
	b := nested{"5555555555554444", "x@example.net", "correct-horse-battery", "john@example.org", "5500 0000 0000 0004", "Shadow total 10", "Frame total 10"}
	shot := func(p nested) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if r.URL.Path == "/frame" {
				fmt.Fprintf(w, string(frame), p.email, p.card, p.plainFrame)
				return
			}
			fmt.Fprintf(w, string(top), p.email, p.card, p.plainShadow)
		}))
		defer srv.Close()
		store, err := artifacts.OpenFS(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s, err := runtime(t).NewSession(context.Background(), browser.SessionOptions{
			Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: srv.URL, Store: store,
			Scrub: scrub.New(scrub.NewKey(), nil)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
		in := func(id string) *branch.Target {
			return &branch.Target{CSS: "#frame >> internal:control=enter-frame >> #" + id}
		}
		for _, f := range []struct {
			target *branch.Target
			value  string
		}{
			{&branch.Target{ID: "scard"}, p.typedCard}, {&branch.Target{ID: "snote"}, p.typedEmail}, {&branch.Target{ID: "spass"}, p.password},
			{in("fcard"), p.typedCard}, {in("fnote"), p.typedEmail}, {in("fpass"), p.password},
		} {
			do(t, s, branch.Action{Kind: branch.KindType, Target: f.target, Value: f.value})
		}
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{Screenshot: true})
		if err != nil || snap.Obs.ScreenshotHash == "" {
			t.Fatalf("observe: %v %+v", err, snap.Obs)
		}
		return snap.Obs.ScreenshotHash
	}
	ha := shot(a)
	if hb := shot(b); ha != hb {
		t.Fatal("the screenshot depends on personal data inside a shadow root or an iframe: two pages differing only in personal values differ in pixels")
	}
	for _, c := range []nested{
		func() nested { c := a; c.plainShadow = "Shadow total 20"; return c }(),
		func() nested { c := a; c.plainFrame = "Frame total 20"; return c }(),
	} {
		if hc := shot(c); ha == hc {
			t.Fatalf("a change of non-personal text (%q, %q) did not change the screenshot (the check above could not fail)", c.plainShadow, c.plainFrame)
		}
	}
}
