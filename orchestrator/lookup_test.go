package orchestrator_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// lookupSite serves two back-office pages whose form takes a value the
// page states elsewhere: a quote form under a price list (a table with
// column headers, product names as links, an Edit button per row), and a
// parcel tracking form on an order page ("Order number: A-4521").
func lookupSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	page := func(title, body, field, button, out string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<!doctype html><title>%s</title><main>%s
<form id="f"><label for="v">%s</label> <input id="v" name="v"> <button>%s</button></form><p id="out"></p></main>
<script>document.getElementById('f').onsubmit = (e) => {
  e.preventDefault();
  document.getElementById('out').textContent = %q + ' ' + document.getElementById('v').value;
};</script>`, title, body, field, button, out)
		}
	}
	mux.HandleFunc("/prices", page("Price list", `<h1>Price list</h1><table><thead><tr><th>Product</th><th>SKU</th><th>Price</th><th></th></tr></thead><tbody>
<tr><td><a href="#hl">Harbor Lamp</a></td><td>HL-204</td><td>$48.00</td><td><button type="button">Edit</button></td></tr>
<tr><td><a href="#rl">Reading Lamp</a></td><td>RL-118</td><td>$31.50</td><td><button type="button">Edit</button></td></tr>
<tr><td><a href="#dl">Desk Lamp</a></td><td>DL-090</td><td>$27.00</td><td><button type="button">Edit</button></td></tr></tbody></table>`,
		"Unit price", "Add to quote", "Quoted:"))
	mux.HandleFunc("/order", page("Order A-4521", `<h1>Your order</h1><p><b>Order number:</b> A-4521</p><p><b>Placed:</b> March 3, 2026</p>
<p><b>Items:</b> 3</p>`, "Reference", "Track", "Tracking"))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// reachGoal runs the task src explore-only, without the plan cache, in a
// data dir of its own, and fails the test unless it reaches its goal
// within limit. It returns the summary and the data dir.
func reachGoal(t *testing.T, src string, workers int, limit time.Duration) (*orchestrator.Summary, string) {
	t.Helper()
	tk, err := task.Parse("goal.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: workers, NoScreenshots: true,
		ExploreOnly: true, NoCache: true})
	if err != nil || sum.Status != "goal_reached" {
		t.Fatalf("goal of %s: status %v, err %v", tk.Goal.Text, statusOf(sum), err)
	}
	return sum, dir
}

// TestValuesFromThePage: a goal that names its value by what the page
// states ("the price of the Reading Lamp", "the order number ... enter
// it") types that value, end to end in Chromium.
func TestValuesFromThePage(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := lookupSite(t)
	cases := []struct{ path, goal, want string }{
		{"/prices", "Enter the price of the Reading Lamp into the Unit price field and click Add to quote.", "Quoted: $31.50"},
		{"/order", "Find the order number and enter it in the Reference field, then click Track.", "Tracking A-4521"},
	}
	for _, c := range cases {
		t.Run(c.path[1:], func(t *testing.T) {
			src := fmt.Sprintf("start_url: %s%s\ngoal:\n  text: %q\n  success:\n    - {name: done, text: {selector: \"#out\", equals: %q}}\n",
				site.URL, c.path, c.goal, c.want)
			sum, _ := reachGoal(t, src, 2, 3*time.Minute)
			t.Logf("%+v branches", sum.Branches)
		})
	}
}

// TestPlanCacheAcrossPorts: a plan cached on a site served at one port is
// followed when the same site is served at another (a test's, a
// developer's or `make demo`'s free port), one branch per step.
func TestPlanCacheAcrossPorts(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	dir := t.TempDir()
	run := func(site *httptest.Server) *orchestrator.Summary {
		t.Helper()
		src := fmt.Sprintf("start_url: %s/order\ngoal:\n  text: %q\n  success:\n    - {name: done, text: {selector: \"#out\", equals: %q}}\n",
			site.URL, "Find the order number and enter it in the Reference field, then click Track.", "Tracking A-4521")
		tk, err := task.Parse("lookup.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2, NoScreenshots: true})
		if err != nil || sum.Status != "goal_reached" {
			t.Fatalf("status %v, err %v", statusOf(sum), err)
		}
		return sum
	}
	a, b := lookupSite(t), lookupSite(t)
	if a.URL == b.URL {
		t.Fatal("two servers on one address")
	}
	first := run(a)
	if first.Cache == nil || !first.Cache.Stored {
		t.Fatalf("first run cached nothing: %+v", first.Cache)
	}
	second := run(b)
	steps := len(first.Winner.Steps)
	if c := second.Cache; c == nil || !c.Hit || c.Followed != steps || c.DivergedAt != 0 {
		t.Fatalf("on another port: cache %+v, want the %d steps followed", second.Cache, steps)
	}
	if second.Branches.Executed != steps {
		t.Errorf("on another port the run executed %d branches, want one per step (%d)", second.Branches.Executed, steps)
	}
}
