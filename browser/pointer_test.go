package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// pointerPage has a bar at the top-left corner whose menu opens on
// :hover (an admin bar), a long document, and a report of how far it
// scrolled; pane=1 makes the body fixed and a main pane scroll instead.
const pointerPage = `<!doctype html><title>Admin</title><style>
body { margin: 0 } .long { height: 4000px }
body.pane { overflow: hidden; height: 100vh } body.pane main { height: 100vh; overflow: auto }
#bar { position: fixed; top: 0; left: 0; width: 220px; height: 40px; background: #1d2327; color: #fff; z-index: 2 }
#bar .sub { display: none } #bar:hover .sub { display: block; background: #2c3338 }
</style><body class="%s"><div id="bar"><a id="site" href="/?pane=%s">Site</a><ul class="sub"><li><a href="/account">Account</a></li></ul></div>
<main><div class="long"><p style="margin-top:300px"><button id="b" onclick="this.textContent='done'">Go</button></p></div></main>
<p id="y" style="position:fixed;bottom:0;right:0">0</p>
<script>
const y = document.getElementById('y');
addEventListener('scroll', () => { y.textContent = String(scrollY); });
document.querySelector('main').addEventListener('scroll', (e) => { y.textContent = String(e.target.scrollTop); });
</script></body>`

// TestPointerRestsOffThePage: a step that loads a page or scrolls leaves
// the pointer off the page, so neither comes up hovered under it at a
// moment no one chooses; a hover's pointer stays where it put it; a
// scroll turns no wheel at the pointer and scrolls the document, or the
// main pane of a page whose body does not scroll.
func TestPointerRestsOffThePage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pane := r.URL.Query().Get("pane")
		fmt.Fprintf(w, pointerPage, map[bool]string{true: "pane", false: ""}[pane == "1"], pane)
	}))
	t.Cleanup(srv.Close)
	hovered := func(s *browser.Session) bool {
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(snap.DOM, "::hover")
	}
	scrolledTo := func(s *browser.Session) string {
		v, _, err := s.Read(context.Background(), "#y", "")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, pane := range []string{"0", "1"} {
		// Three sessions: the browser's own hover update after a scroll
		// made the bar hovered in some runs and not others.
		for i := 0; i < 3; i++ {
			s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 3 * time.Second}, RunSeed: 1, Origin: srv.URL})
			do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/?pane=" + pane})
			if r := do(t, s, branch.Action{Kind: branch.KindScroll, Value: "600"}); r.Status != branch.StatusOK {
				t.Fatalf("scroll: %+v", r)
			}
			if got := scrolledTo(s); got != "600" {
				t.Errorf("pane=%s: scrolled to %s, want 600", pane, got)
			}
			if hovered(s) {
				t.Errorf("pane=%s run %d: after a scroll the recorded page holds a hovered element", pane, i)
			}
			// A link in the bar loads the page again: the new page must not
			// come up hovered under the pointer the click left there.
			if r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{CSS: "#site"}}); r.Nav == nil {
				t.Fatalf("the bar's link navigated nowhere: %+v", r)
			}
			if hovered(s) {
				t.Errorf("pane=%s run %d: the page a click loaded came up hovered under the pointer", pane, i)
			}
			do(t, s, branch.Action{Kind: branch.KindHover, Target: &branch.Target{CSS: "#bar"}})
			if !hovered(s) {
				t.Errorf("pane=%s run %d: a hover action's pointer is not in the recorded state", pane, i)
			}
		}
	}
}
