package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/drift"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/plancache"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// runSummary runs the small checkout task against siteURL in dir with
// extra flags and returns its exit code and summary.
func runSummary(t *testing.T, siteURL, dir string, extra ...string) (int, orchestrator.Summary) {
	t.Helper()
	args := append([]string{"run", smallTask(t), "--start-url", siteURL + "/checkout?plan=team&billing=monthly",
		"--data-dir", dir, "--no-screenshots", "--quiet", "--json"}, extra...)
	code, out := cli(t, nil, args...)
	var res struct {
		Summary orchestrator.Summary `json:"summary"`
	}
	if i := strings.Index(out, "{"); i < 0 || json.Unmarshal([]byte(out[i:]), &res) != nil {
		t.Fatalf("run --json: exit %d\n%s", code, out)
	}
	return code, res.Summary
}

// TestPlanCache: a committed run caches its winning plan; the next run of
// the task on the site follows it one branch per step and finds the
// commit already in the ledger (one order, one key); after the site's test
// ids drift the plan is still followed, and cached again without the test
// ids that no longer name its targets; a cache that expects other
// predicates after a step diverges there, says so in the events, and the
// run searches on to the same commit; --no-cache searches from zero.
func TestPlanCache(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startCountingSite(t)
	dir := t.TempDir()
	code, first := runSummary(t, site.URL(), dir)
	if code != 0 || first.Cache == nil || !first.Cache.Stored || first.Cache.Hit {
		t.Fatalf("first run: exit %d, cache %+v", code, first.Cache)
	}
	steps := len(first.Winner.Steps)
	if n := cachedTestIDs(t, dir); n == 0 {
		t.Fatal("the first run cached no target with a test id: the drift below would prove nothing")
	}

	code, cached := runSummary(t, site.URL(), dir)
	c := cached.Cache
	if code != 0 || c == nil || !c.Hit || c.Followed != steps || c.DivergedAt != 0 {
		t.Fatalf("cached run: exit %d, cache %+v (winner of %d steps)", code, c, steps)
	}
	if cached.Branches.Executed != steps || cached.Waves != steps {
		t.Errorf("cached run executed %d branches in %d waves, want one per step (%d)", cached.Branches.Executed, cached.Waves, steps)
	}
	if cached.Commit == nil || !cached.Commit.Existing || cached.Commit.Key != first.Commit.Key {
		t.Errorf("cached run's commit = %+v, want the first run's key %s found in the ledger", cached.Commit, first.Commit.Key)
	}
	if n := len(site.Vendor.Orders()); n != 1 {
		t.Fatalf("the site holds %d orders, want 1", n)
	}

	if err := site.Vendor.SetKnobs(sites.Knobs{TestIDDrift: true}); err != nil {
		t.Fatal(err)
	}
	code, drifted := runSummary(t, site.URL(), dir)
	if code != 0 || drifted.Cache == nil || drifted.Cache.Followed != steps {
		t.Errorf("after the test ids drifted: exit %d, cache %+v", code, drifted.Cache)
	}
	// The run committed (the ledger's commit, found again): its healed
	// targets are cached without the test ids that no longer name them.
	store := plancache.Open(orchestrator.PlanCacheDir(dir))
	entries, err := store.List(context.Background())
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache entries: %d, %v", len(entries), err)
	}
	for i, st := range entries[0].Steps {
		if tg := st.Action.Target; tg != nil && tg.TestID != "" {
			t.Errorf("step %d is cached with the test id %q the site no longer has", i+1, tg.TestID)
		}
	}
	checkDrift(t, dir, 3)
	if err := site.Vendor.SetKnobs(sites.Knobs{}); err != nil {
		t.Fatal(err)
	}

	// The cache says a predicate held after step 2 that does not.
	entries, err = store.List(context.Background())
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache entries: %d, %v", len(entries), err)
	}
	e := entries[0]
	e.Steps[1].Expect = map[string]bool{"plan_is_team": false, "billed_to_germany": true}
	if err := store.Put(e); err != nil {
		t.Fatal(err)
	}
	code, diverged := runSummary(t, site.URL(), dir)
	if code != 0 || diverged.Cache == nil || diverged.Cache.DivergedAt != 2 || !strings.Contains(diverged.Cache.Reason, "billed_to_germany no longer held") {
		t.Fatalf("diverging run: exit %d, cache %+v", code, diverged.Cache)
	}
	if !hasDivergence(t, dir, diverged.RunID, 2) {
		t.Errorf("run %s's events do not say the cache diverged at step 2", diverged.RunID)
	}

	code, fresh := runSummary(t, site.URL(), dir, "--no-cache")
	if code != 0 || fresh.Cache != nil {
		t.Errorf("--no-cache: exit %d, cache %+v", code, fresh.Cache)
	}
	if n := len(site.Vendor.Orders()); n != 1 {
		t.Errorf("the site holds %d orders after five runs, want 1", n)
	}

	var o, errb bytes.Buffer
	if code := runCLI([]string{"cache", "show", "team-checkout", "--data-dir", dir}, &o, &errb); code != 0 || !strings.Contains(o.String(), "then: ") {
		t.Errorf("cache show: exit %d\n%s%s", code, o.String(), errb.String())
	}
	o.Reset()
	if code := runCLI([]string{"cache", "drop", "--all", "--data-dir", dir}, &o, &errb); code != 0 || !strings.Contains(o.String(), "dropped 1") {
		t.Errorf("cache drop --all: exit %d\n%s%s", code, o.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(orchestrator.PlanCacheDir(dir), plancache.Name(e.TaskDigest, e.Site))); !os.IsNotExist(err) {
		t.Errorf("the dropped entry is still there: %v", err)
	}
}

// checkDrift: `orchestrator drift` over the runs before and after the
// site's test ids drifted names the targets the plan names by test id as
// healed in the last run, by the strategy that found them, and the text
// report says so too.
func checkDrift(t *testing.T, dir string, runs int) {
	t.Helper()
	var o, errb bytes.Buffer
	if code := runCLI([]string{"drift", "--data-dir", dir, "--task", "team-checkout", "--json"}, &o, &errb); code != 0 {
		t.Fatalf("drift --json: exit %d\n%s%s", code, o.String(), errb.String())
	}
	var rep drift.Report
	if err := json.Unmarshal(o.Bytes(), &rep); err != nil {
		t.Fatalf("drift --json: %v\n%s", err, o.String())
	}
	if rep.Runs != runs || len(rep.Healed) == 0 {
		t.Fatalf("drift over %d runs, healed %+v; want %d runs and the drifted targets", rep.Runs, rep.Healed, runs)
	}
	for _, h := range rep.Healed {
		last := h.History[len(h.History)-1]
		if !strings.HasPrefix(h.Selector, "testid=") || len(h.Strategies) == 0 || !last.Healed || last.Strategy == "" || h.LastNamed.IsZero() {
			t.Errorf("healed target %+v: want a test id named before the drift and healed by a strategy after", h)
		}
	}
	o.Reset()
	if code := runCLI([]string{"drift", "--data-dir", dir}, &o, &errb); code != 0 || !strings.Contains(o.String(), "healed    ") ||
		!strings.Contains(o.String(), rep.Healed[0].Selector) {
		t.Errorf("drift: exit %d\n%s%s", code, o.String(), errb.String())
	}
}

// hasDivergence reports whether the run's events record the cache
// diverging at step.
func hasDivergence(t *testing.T, dir, runID string, step int) bool {
	t.Helper()
	l, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	evs, err := l.Events(context.Background(), runID, eventlog.Query{Kinds: []string{eventlog.KindPlanCache}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		p, err := payload.Decode[payload.PlanCache](ev)
		if err == nil && p.What == "diverged" && p.Step == step && p.Reason != "" {
			return true
		}
	}
	return false
}

// cachedTestIDs counts the cached steps whose target has a test id.
func cachedTestIDs(t *testing.T, dir string) int {
	t.Helper()
	entries, err := plancache.Open(orchestrator.PlanCacheDir(dir)).List(context.Background())
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache entries: %d, %v", len(entries), err)
	}
	n := 0
	for _, st := range entries[0].Steps {
		if tg := st.Action.Target; tg != nil && tg.TestID != "" {
			n++
		}
	}
	return n
}
