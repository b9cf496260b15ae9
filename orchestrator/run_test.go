package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// These tests drive real Chromium through a real embedded NATS JetStream
// server and real SQLite files against the demo vendor site.

type site = sitetest.Site

func runDemo(t *testing.T, s *site, dataDir string) (*orchestrator.Summary, error) {
	t.Helper()
	return runTask(t, demoTask(t, s.URL()), dataDir, false)
}

func runTask(t *testing.T, tk *task.Task, dataDir string, exploreOnly bool) (*orchestrator.Summary, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	return orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dataDir, Workers: 4, NoScreenshots: true, ExploreOnly: exploreOnly})
}

func events(t *testing.T, dataDir, runID string) []eventlog.Event {
	t.Helper()
	l, err := eventlog.Open(context.Background(), filepath.Join(dataDir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Verify(context.Background(), runID); err != nil {
		t.Fatalf("event log does not verify: %v", err)
	}
	es, err := l.Events(context.Background(), runID, eventlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func payload(t *testing.T, e eventlog.Event) map[string]any {
	t.Helper()
	var m map[string]any
	if len(e.Payload) > 0 {
		if err := json.Unmarshal(e.Payload, &m); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// maxOverlap returns how many branches had action spans open at once,
// from the action_start/action_end events.
func maxOverlap(t *testing.T, es []eventlog.Event) int {
	type edge struct {
		at    time.Time
		delta int
		br    string
	}
	var edges []edge
	for _, e := range es {
		switch e.Kind {
		case eventlog.KindActionStart:
			edges = append(edges, edge{e.Time, 1, e.BranchID})
		case eventlog.KindActionEnd:
			edges = append(edges, edge{e.Time, -1, e.BranchID})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if !edges[i].at.Equal(edges[j].at) {
			return edges[i].at.Before(edges[j].at)
		}
		return edges[i].delta < edges[j].delta
	})
	open := map[string]int{}
	best := 0
	for _, e := range edges {
		open[e.br] += e.delta
		if open[e.br] == 0 {
			delete(open, e.br)
		}
		best = max(best, len(open))
	}
	return best
}

func siteOrders(t *testing.T, url string) []map[string]any {
	t.Helper()
	resp, err := http.Get(url + "/api/orders")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Orders []map[string]any `json:"orders"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Orders
}

// TestDemoEndToEnd is the walking skeleton's acceptance: the demo task
// commits exactly one order, in parallel, with dead ends pruned and the
// order endpoint touched by the committer only; a second run with the same
// data dir follows the cached plan to the same winner and makes no second
// order; a third run against the same site at another address (a fresh
// data dir) explores the same plans and picks the same winner.
func TestDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	k := sites.DefaultKnobs()
	k.Latency = 20 * time.Millisecond
	k.ABVariant = "A"
	s := startSite(t, k)
	dir := t.TempDir()

	first, err := runDemo(t, s, dir)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if first.Status != "committed" || first.Commit == nil || first.Commit.OrderID == "" {
		t.Fatalf("first run did not commit: %+v", first)
	}
	checkCommitted(t, s, dir, first)
	checkEvents(t, dir, first.RunID)
	checkTreeCPU(t, first)

	second, err := runDemo(t, s, dir)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	checkRerun(t, s, first, second)

	// The same site at another address: digests fold the origin.
	other := startSite(t, k)
	third, err := runTask(t, demoTask(t, other.URL()), t.TempDir(), true)
	if err != nil {
		t.Fatalf("third run: %v", err)
	}
	if third.Winner.PlanDigest != first.Winner.PlanDigest || !equal(first.Explored, third.Explored) {
		t.Errorf("a different port changed the search: winner %s vs %s", third.Winner.PlanDigest, first.Winner.PlanDigest)
	}
}

// checkTreeCPU asserts that the run counted its driver's and Chromium's
// CPU, and split Chromium's by process type without losing any (a
// process that exited moves its time to the type of the one that reaped
// it, so a type can gain what another lost, never less in all).
func checkTreeCPU(t *testing.T, sum *orchestrator.Summary) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return // no /proc: nothing is counted
	}
	var split int64
	for _, ms := range sum.BrowserCPUByType {
		split += ms
	}
	d := split - sum.BrowserCPU.Milliseconds()
	if sum.DriverCPU <= 0 || sum.BrowserCPU <= 0 || sum.BrowserCPUByType["renderer"] <= 0 || sum.BrowserCPUByType["browser"] <= 0 ||
		d < -int64(len(sum.BrowserCPUByType)) {
		t.Errorf("CPU: driver %s, Chromium %s split %v (sum %d ms)", sum.DriverCPU, sum.BrowserCPU, sum.BrowserCPUByType, split)
	}
}

// checkCommitted asserts that the first run's order is the site's only
// one, and that the ledger holds it, committed, with its evidence.
func checkCommitted(t *testing.T, s *site, dir string, first *orchestrator.Summary) {
	t.Helper()
	orders := siteOrders(t, s.URL())
	if len(orders) != 1 {
		t.Fatalf("site holds %d orders after the first run, want 1", len(orders))
	}
	if orders[0]["id"] != first.Commit.OrderID || orders[0]["client_reference"] != first.Commit.Key {
		t.Fatalf("site order %v does not match the ledger (%s, %s)", orders[0], first.Commit.OrderID, first.Commit.Key)
	}
	l, err := ledger.Open(context.Background(), filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := l.Get(context.Background(), first.Commit.Key)
	l.Close()
	if err != nil || e.State != ledger.StateCommitted || e.OrderID != first.Commit.OrderID {
		t.Fatalf("ledger row = %+v, %v", e, err)
	}
	for _, name := range []string{"pre_submit_dom", "submit_transcript", "invoice"} {
		if e.Artifacts[name] == "" {
			t.Errorf("ledger row lacks the %s evidence", name)
		}
	}
}

// checkEvents asserts that the run's branches ran in parallel, that
// every prune records its reason and dead ends were pruned, and that no
// speculative POST reached the site.
func checkEvents(t *testing.T, dir, runID string) {
	t.Helper()
	es := events(t, dir, runID)
	if n := maxOverlap(t, es); n < 3 {
		t.Errorf("at most %d branches ran at once, want at least 3", n)
	}
	var deadEnds, postOrders int
	for _, ev := range es {
		p := payload(t, ev)
		switch ev.Kind {
		case eventlog.KindBranchPruned:
			if p["rule"] == "" || p["detail"] == nil {
				t.Errorf("prune without a recorded reason: %s", ev.Payload)
			}
			if p["rule"] == "dead_end" {
				deadEnds++
			}
		case eventlog.KindNet:
			if p["method"] == "POST" && p["blocked"] != true {
				postOrders++
			}
		}
	}
	if deadEnds == 0 {
		t.Error("no dead-end branch was pruned")
	}
	if postOrders != 0 {
		t.Errorf("%d speculative POST requests reached the site", postOrders)
	}
}

// checkRerun asserts that a second run with the same data dir found the
// existing commit, made no second order and explored the same plans.
func checkRerun(t *testing.T, s *site, first, second *orchestrator.Summary) {
	t.Helper()
	if second.Status != "existing" || !second.Commit.Existing || second.Commit.OrderID != first.Commit.OrderID {
		t.Fatalf("second run = %s %+v, want the existing commit", second.Status, second.Commit)
	}
	if n := len(siteOrders(t, s.URL())); n != 1 {
		t.Fatalf("site holds %d orders after the second run, want 1", n)
	}
	if second.Winner.PlanDigest != first.Winner.PlanDigest {
		t.Errorf("winner changed: %s then %s", first.Winner.PlanDigest, second.Winner.PlanDigest)
	}
	// The second run follows the first one's cached plan, one branch per
	// step: it explores the winner's chain, each a plan the first run
	// explored too.
	if c := second.Cache; c == nil || !c.Hit || c.Followed != len(first.Winner.Steps) || c.DivergedAt != 0 {
		t.Errorf("second run's plan cache = %+v, want the %d cached steps followed", c, len(first.Winner.Steps))
	}
	if len(second.Explored) != len(first.Winner.Steps) {
		t.Errorf("second run explored %d plans, want the winner's %d steps", len(second.Explored), len(first.Winner.Steps))
	}
	for _, d := range second.Explored {
		if !slices.Contains(first.Explored, d) {
			t.Errorf("second run explored plan %s, which the first run did not", d)
		}
	}
}

// TestRandomVariantNoSecondOrder: with the A/B variant random, a second run
// may take another path but the key is the purchase intent, so no second
// order is placed.
func TestRandomVariantNoSecondOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	k := sites.DefaultKnobs()
	k.Latency = 10 * time.Millisecond
	k.ABVariant = "random"
	s := startSite(t, k)
	dir := t.TempDir()
	// Start at the pricing page, where the variants differ (variant B
	// shows monthly prices first and orders the plans the other way).
	tk, err := demoTask(t, s.URL()).WithStartURL(s.URL() + "/pricing")
	if err != nil {
		t.Fatal(err)
	}
	a, err := runTask(t, tk, dir, false)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	b, err := runTask(t, tk, dir, false)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !b.Commit.Existing || b.Commit.Key != a.Commit.Key {
		t.Fatalf("second run committed again: %+v", b.Commit)
	}
	if n := len(siteOrders(t, s.URL())); n != 1 {
		t.Fatalf("site holds %d orders, want 1", n)
	}
}

// TestUnreachableAndFailingSite: a start URL nobody answers, and a site
// that answers 500, are clear errors with their exit code, and they lose
// nothing recorded before.
func TestUnreachableAndFailingSite(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	dir := t.TempDir()
	k := sites.DefaultKnobs()
	k.Latency = 0
	s := startSite(t, k)
	s.Vendor.SetKnobs(sites.Knobs{FailStatus: map[string]int{"/": 500}})
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: demoTask(t, s.URL()), DataDir: dir, Workers: 1})
	if !errors.Is(err, orchestrator.ErrSiteUnreachable) || orchestrator.ExitCode(err) != orchestrator.ExitSite {
		t.Fatalf("500 site: err = %v", err)
	}
	es := events(t, dir, sum.RunID)
	if es[len(es)-1].Kind != eventlog.KindRunEnd {
		t.Fatalf("last event = %s, want run_end", es[len(es)-1].Kind)
	}
	s.Server.Close(ctx)
	_, err = orchestrator.Run(ctx, orchestrator.Config{Task: demoTask(t, s.URL()), DataDir: dir, Workers: 1})
	if !errors.Is(err, orchestrator.ErrSiteUnreachable) {
		t.Fatalf("closed site: err = %v", err)
	}
	// The first run's records are intact.
	events(t, dir, sum.RunID)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHostileSite runs the demo task against a site whose docs never
// answer and whose pricing redirects forever. The run must end within its
// wall clock budget and a small margin, whatever it finds: branches that
// run into the hostile pages fail with stable codes, the run either
// commits or reports that no boundary was reached, nothing is ordered
// unless it committed, and run_end is the last event.
func TestHostileSite(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	dir := t.TempDir()
	s := startSite(t, sites.Knobs{RedirectLoop: true, HangPaths: []string{"/docs"}})
	tk := demoTask(t, s.URL())
	tk.Budgets.ActionTimeout = task.Duration(3 * time.Second)
	tk.Budgets.BranchWallClock = task.Duration(20 * time.Second)
	tk.Budgets.WallClock = task.Duration(60 * time.Second)
	// The first wave already runs into both hostile pages (the start
	// page's links to /pricing and /docs); two waves of six are enough
	// to see both failures, where the whole tree took some 50 branches.
	tk.Budgets.TotalBranches = 12
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	t0 := time.Now()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2, NoScreenshots: true})
	took := time.Since(t0)
	if err != nil && !errors.Is(err, orchestrator.ErrNoBoundary) {
		t.Fatalf("hostile site: %v, want a commit or ErrNoBoundary", err)
	}
	// Exploration stops at the wall clock; ending the in-flight branches,
	// committing and closing down get a bounded margin on top.
	if limit := 60*time.Second + 45*time.Second; took > limit {
		t.Fatalf("the run took %s, more than its wall clock budget and margin %s", took, limit)
	}
	es := events(t, dir, sum.RunID)
	if es[len(es)-1].Kind != eventlog.KindRunEnd {
		t.Fatalf("last event = %s, want run_end", es[len(es)-1].Kind)
	}
	codes := map[string]int{}
	for _, e := range es {
		if e.Kind == eventlog.KindActionEnd {
			if c, _ := payload(t, e)["code"].(string); c != "" {
				codes[c]++
			}
		}
	}
	t.Logf("took %s, err %v, failure codes %v", took, err, codes)
	// The redirect loop fails its steps with page_error, the hanging docs
	// with one of the timeout codes.
	if codes["page_error"] == 0 {
		t.Fatalf("no step failed on the redirect loop with page_error: codes %v", codes)
	}
	if codes["navigation_timeout"]+codes["timeout"]+codes["page_unresponsive"]+codes["branch_timeout"] == 0 {
		t.Fatalf("no step failed on the hanging page with a timeout code: codes %v", codes)
	}
	orders := siteOrders(t, s.URL())
	if err != nil && len(orders) != 0 {
		t.Fatalf("no commit, yet the site holds %d orders", len(orders))
	}
	if err == nil && len(orders) != 1 {
		t.Fatalf("committed, and the site holds %d orders, want 1", len(orders))
	}
}

func startSite(t *testing.T, k sites.Knobs) *site { return sitetest.Start(t, k) }

func demoTask(t *testing.T, url string) *task.Task { return sitetest.DemoTask(t, url, nil) }
