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
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestConsole: what a page says on its console (errors and warnings, not
// logs) and the exceptions it does not catch belong to the step that
// caused them, scrubbed, bounded, and never fail it.
func TestConsole(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Console</title>
<button id="b" onclick="go()">Go</button><button id="many" onclick="many()">Many</button><p id="out"></p>
<script>
console.error('loaded with a warning for jane.roe@example.org');
function go() {
  console.log('a log is not kept');
  console.warn('deprecated call');
  document.getElementById('out').textContent = 'clicked';
  setTimeout(() => { throw new Error('widget failed to render'); }, 0);
}
function many() { for (let i = 0; i < 50; i++) console.error('error ' + i); }
</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 3 * time.Second}, RunSeed: 1, Origin: srv.URL,
		Scrub: scrub.New(scrub.NewKey(), nil)})
	nav := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	if nav.Status != branch.StatusOK || len(nav.Console) != 1 || nav.Console[0].Type != "error" {
		t.Fatalf("navigate: %s, console %+v", nav.Status, nav.Console)
	}
	if c := nav.Console[0].Text; strings.Contains(c, "example.org") || !strings.Contains(c, "tok_") {
		t.Errorf("the console text was not scrubbed: %q", c)
	}
	click := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{CSS: "#b"}})
	if click.Status != branch.StatusOK {
		t.Fatalf("an uncaught page error failed the step: %+v", click)
	}
	var got []string
	for _, c := range click.Console {
		got = append(got, c.Type+": "+c.Text)
	}
	if len(got) != 2 || got[0] != "warning: deprecated call" || !strings.HasPrefix(got[1], "pageerror: ") || !strings.Contains(got[1], "widget failed to render") {
		t.Errorf("the click's console = %q, want the warning and the page error", got)
	}
	flood := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{CSS: "#many"}})
	if len(flood.Console) != branch.ConsoleLimit {
		t.Errorf("a step that logged 50 errors kept %d entries, want %d", len(flood.Console), branch.ConsoleLimit)
	}
}
