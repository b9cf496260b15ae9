package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestMaskAgreesWithScrubber: the page script masks a text exactly when
// the scrubber tokenizes it, because both read the same patterns
// (scrub.PagePatterns).
func TestMaskAgreesWithScrubber(t *testing.T) {
	samples := []string{
		"mail buyer.one@example.com today", "first+last@example.co.uk", "link ?email=buyer%2Btest%40example.com&x=1",
		"card 4111 1111 1111 1111 ok", "4111-1111-1111-1111", "5555555555554444", "call +49 30 1234 5678",
		"see http://user:pass@shop.example.com/", "order 1234567890123", "10 seats, 178.50 USD",
		"version 1.2.3", "+ 5 seats", "at sign @ alone", "https://example.com/path",
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><body style="font: 16px monospace">`)
	for i, s := range samples {
		fmt.Fprintf(&b, `<p id="s%d">%s</p>`, i, html.EscapeString(s))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, b.String())
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := Launch(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	s, err := rt.NewSession(ctx, SessionOptions{Env: Env{ActionTimeout: 5 * time.Second, Height: 1200}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.Do(ctx, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"}, nil); err != nil || r.Status != branch.StatusOK {
		t.Fatalf("navigate: %+v %v", r, err)
	}
	boxes, err := s.maskBoxes(nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.page.Evaluate(`(n) => Array.from({length: n}, (_, i) => { const r = document.getElementById('s' + i).getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })`, len(samples))
	if err != nil {
		t.Fatal(err)
	}
	var ps []box
	data, _ := json.Marshal(raw)
	json.Unmarshal(data, &ps)
	sc := scrub.New(scrub.NewKey(), nil)
	for i, sample := range samples {
		masked := false
		for _, m := range boxes {
			if m.Y+m.H/2 >= ps[i].Y && m.Y+m.H/2 <= ps[i].Y+ps[i].H {
				masked = true
			}
		}
		if scrubbed := sc.Text(sample) != sample; scrubbed != masked {
			t.Errorf("%q: the scrubber tokenizes it: %v, the screenshot masks it: %v", sample, scrubbed, masked)
		}
	}
}
