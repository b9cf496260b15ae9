package orchestrator_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	evpayload "github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// TestConsoleInEvents: a page whose button logs an error and throws one
// it does not catch still reaches its goal (a page error fails no step),
// and the step's action_end says what the page said.
func TestConsoleInEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Widgets</title><main><button id="b">Show the report</button><p id="out"></p></main>
<script>document.getElementById('b').onclick = () => {
  console.error('chart library failed to load');
  document.getElementById('out').textContent = 'Report';
  setTimeout(() => { throw new TypeError('cannot read properties of undefined'); }, 10);
};</script>`)
	}))
	t.Cleanup(srv.Close)
	src := fmt.Sprintf("start_url: %s/\ngoal:\n  text: \"Click Show the report.\"\n  success:\n    - {name: shown, text: {selector: \"#out\", equals: Report}}\n", srv.URL)
	sum, dir := reachGoal(t, src, 1, 2*time.Minute)
	var said []string
	for _, e := range events(t, dir, sum.RunID) {
		if e.Kind != eventlog.KindActionEnd || e.BranchID != sum.Winner.BranchID {
			continue
		}
		end, err := evpayload.Decode[evpayload.ActionEnd](e)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range end.Console {
			said = append(said, c.Type+": "+c.Text)
		}
	}
	got := strings.Join(said, " | ")
	if !strings.Contains(got, "error: chart library failed to load") || !strings.Contains(got, "pageerror: TypeError: cannot read properties of undefined") {
		t.Errorf("the winner's action_end events say %q", got)
	}
}
