package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// TestNavURLs: a step that navigates says where it was asked to go, the
// first document it requested and where it ended after redirects; a step
// that stays on its page says nothing.
func TestNavURLs(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/new", http.StatusFound) })
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>New</title><a id="a" href="/old">Again</a><button id="b" onclick="this.textContent='x'">Stay</button>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 3 * time.Second}, RunSeed: 1, Origin: srv.URL})
	want := branch.NavURLs{Requested: srv.URL + "/old", Original: srv.URL + "/old", Final: srv.URL + "/new"}
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/old"}); r.Nav == nil || *r.Nav != want {
		t.Errorf("navigate: nav %+v, want %+v", r.Nav, want)
	}
	want.Requested = ""
	if r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{CSS: "#a"}}); r.Nav == nil || *r.Nav != want {
		t.Errorf("a link that redirects: nav %+v, want %+v", r.Nav, want)
	}
	if r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{CSS: "#b"}}); r.Nav != nil {
		t.Errorf("a click that stays on the page: nav %+v", r.Nav)
	}
}
