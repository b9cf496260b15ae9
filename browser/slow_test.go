package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// TestSlowSettle: a step whose page keeps a request open past the action
// timeout (a long poll, a slow report) is slow, not failed: it ends when
// its time is up, says why, and the page is observed as it is then.
func TestSlowSettle(t *testing.T) {
	done := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Reports</title><button id="b">Build the report</button><p id="out"></p>
<script>document.getElementById('b').onclick = () => {
  document.getElementById('out').textContent = 'Building…';
  fetch('/slow').then(() => { document.getElementById('out').textContent = 'Ready'; });
};</script>`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	const timeout = 2 * time.Second
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: timeout}, RunSeed: 1, Origin: srv.URL})
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{CSS: "#b"}})
	if r.Status != branch.StatusOK || !strings.Contains(r.Slow, "did not settle") {
		t.Fatalf("a step whose request stays open: status %s (%s %s), slow %q; want ok and slow", r.Status, r.Code, r.Error, r.Slow)
	}
	if took := r.End.Sub(r.Start); took < timeout || took > 3*timeout {
		t.Errorf("the slow step took %s, want about its action timeout %s", took, timeout)
	}
	if v, _, _ := s.Read(t.Context(), "#out", ""); v != "Building…" {
		t.Errorf("the page after the slow step shows %q", v)
	}
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"}); r.Slow != "" {
		t.Errorf("the next step, which settles, is slow too: %q", r.Slow)
	}
}
