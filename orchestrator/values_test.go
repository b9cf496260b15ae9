package orchestrator_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/task"
)

// bookingPage is a flight search form as booking sites write it: labels
// beside the fields, a native date input and a time input, and a verdict
// the page itself keeps (no request is needed to check it).
const bookingPage = `<!doctype html><html><head><title>Flights</title></head><body><main>
<h1>Find a flight</h1>
<form id="search" onsubmit="return false">
<p><label for="from">From</label> <input id="from" name="from" type="text"></p>
<p><label for="to">To</label> <input id="to" name="to" type="text"></p>
<p><label for="date">Departure date</label> <input id="date" name="date" type="date"></p>
<p><label for="time">Departure time</label> <input id="time" name="time" type="time"></p>
</form>
<p id="verdict">incomplete</p>
<script>
const f = document.getElementById('search');
f.addEventListener('input', () => {
  const v = id => document.getElementById(id).value;
  document.getElementById('verdict').textContent =
    v('from') === 'Boston' && v('to') === 'Denver' && v('date') === '2011-10-11' && v('time') === '20:04' ? 'ready' : 'incomplete';
});
</script></main></body></html>`

// TestUnquotedGoalFillsAForm: a goal that states its values without
// quotes ("from Boston to Denver on 10/11/2011 at 8:04 PM") fills a
// booking form in real Chromium: each city into the field its preposition
// names, the date and the time in the inputs' own formats (2011-10-11,
// 20:04), the ambiguous date in both readings until the page's verdict
// settles it.
func TestUnquotedGoalFillsAForm(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, bookingPage)
	}))
	t.Cleanup(srv.Close)
	src := fmt.Sprintf(`start_url: %s/
seed: 3
goal:
  text: Book a flight from Boston to Denver on 10/11/2011 at 8:04 PM.
  success:
    - name: ready
      text: {selector: '#verdict', equals: ready}
budgets: {total_branches: 30, steps_per_branch: 8, wall_clock: 2m}
`, srv.URL)
	tk, err := task.Parse("booking.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := runTask(t, tk, dir, false)
	if err != nil {
		if sum != nil {
			for _, e := range events(t, dir, sum.RunID) {
				t.Logf("%s %s %s", e.Kind, e.BranchID, e.Payload)
			}
		}
		t.Fatalf("run: %v", err)
	}
	if sum.Status != "goal_reached" || sum.Winner == nil {
		t.Fatalf("status %q, winner %+v: want the goal reached", sum.Status, sum.Winner)
	}
	steps := strings.Join(sum.Winner.Steps, "\n")
	for _, v := range []string{"Boston", "Denver", "2011-10-11", "20:04"} {
		if !strings.Contains(steps, v) {
			t.Errorf("the winning plan writes no %q:\n%s", v, steps)
		}
	}
}
