package rerun_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/learn"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/rerun"
	"github.com/multiverse-orchestrator/multiverse/sites/patterns"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// routesTask is sites/patterns' two-way checkout task on srv, learning
// or not.
func routesTask(t *testing.T, url string, learning bool) *task.Task {
	t.Helper()
	tk, err := patterns.Task("routes.yaml", url)
	if err != nil {
		t.Fatal(err)
	}
	tk.Search.Learning = &learning
	return tk
}

// way is the route the winner took: the page its Continue was on.
func way(t *testing.T, sum *orchestrator.Summary, dir string) string {
	t.Helper()
	if sum.Winner == nil {
		t.Fatalf("run %s has no winner (%s)", sum.RunID, sum.Status)
	}
	ctx := context.Background()
	el, err := eventlog.OpenReadOnly(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer el.Close()
	evs, err := el.Events(ctx, sum.RunID, eventlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Kind != eventlog.KindBranchFork || e.BranchID != sum.Winner.BranchID {
			continue
		}
		f, err := payload.Decode[payload.BranchFork](e)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range f.Plan {
			for _, w := range []string{patterns.RouteStandard, patterns.RouteExpress} {
				if a.Target != nil && strings.EqualFold(a.Target.Name, w+" checkout") {
					return w
				}
			}
		}
		t.Fatalf("the winner's plan takes neither way: %v", f.Plan)
	}
	t.Fatalf("no fork event of the winner %s", sum.Winner.BranchID)
	return ""
}

// TestLearnedFasterWay: a checkout offers two equal ways to the review,
// one whose Continue takes 2 s and one whose takes 0.1 s. The slow one is
// made the way the search picks when it knows nothing (the tie goes by
// plan digest). After one run that measured both, the next run takes the
// fast way; a full rerun of that run, served from its recording and
// reading the record it read, reproduces its decisions; with learning off
// the search picks the slow way again; and a cached plan through the slow
// way does not hide the fast one.
func TestLearnedFasterWay(t *testing.T) {
	site := patterns.New(patterns.Options{})
	srv := httptest.NewServer(site)
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	runOnce := func(learning, cache bool) *orchestrator.Summary {
		t.Helper()
		sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: routesTask(t, srv.URL, learning), DataDir: dir, Workers: 2,
			NoScreenshots: true, NoCache: !cache})
		if err != nil {
			t.Fatalf("run (learning %v, cache %v): %v", learning, cache, err)
		}
		t.Logf("run (learning %v, cache %v): %d branches, %s, learning %+v, winner %s", learning, cache, sum.Branches.Executed, sum.Elapsed.Round(time.Millisecond), sum.Learning, way(t, sum, dir))
		return sum
	}

	blind := runOnce(false, false)
	slow := way(t, blind, dir)
	fast := map[string]string{patterns.RouteStandard: patterns.RouteExpress, patterns.RouteExpress: patterns.RouteStandard}[slow]
	site.SetSlowRoute(slow)
	if blind.Learning != nil {
		t.Fatalf("a run with learning off read the record: %+v", blind.Learning)
	}

	first := runOnce(true, true) // measures both ways; stores its plan (the slow way) in the cache
	if got := way(t, first, dir); got != slow || first.Learning == nil || first.Learning.Version != 0 || first.Learning.Wrote != 1 {
		t.Fatalf("first learning run: way %s, learning %+v; want %s, read version 0, wrote 1", got, first.Learning, slow)
	}
	snap, err := learn.Open(orchestrator.LearnDir(dir)).Get(ctx, orchestrator.LearnSite(routesTask(t, srv.URL, true)))
	if err != nil {
		t.Fatal(err)
	}
	d := snap.Expect()
	if ms, ok := d.SlowestMS(continueOf()); !ok || ms < 1900 {
		t.Fatalf("the record's Continue: %v ms (measured %v), want the slow way's 2 s", ms, ok)
	}

	second := runOnce(true, false)
	if got := way(t, second, dir); got != fast {
		t.Fatalf("after one run that measured both ways the search took the %s way, want the fast %s", got, fast)
	}
	if second.Learning == nil || second.Learning.Version != 1 || second.Learning.Steps == 0 {
		t.Fatalf("second run's learning: %+v", second.Learning)
	}

	// A full rerun of the second run, from its recording, reads the record
	// it read (version 1), not the data dir's (now version 2).
	src, key := sourceOf(t, dir, second.RunID)
	rep, err := rerun.Run(ctx, rerun.Options{Source: src, RunID: second.RunID, Mode: rerun.ModeFull,
		Task: routesTask(t, srv.URL, true), ScrubKey: key, Workers: 2, OutDir: t.TempDir()})
	if err != nil {
		t.Fatalf("full rerun of the second run: %v\n%s", err, report(rep))
	}
	if !rep.Compared.Same || !strings.Contains(strings.Join(rep.Notes, "\n"), "version 1") {
		t.Fatalf("the rerun: same %v, notes %q\n%s", rep.Compared.Same, rep.Notes, report(rep))
	}

	if got := way(t, runOnce(false, false), dir); got != slow {
		t.Fatalf("with learning off the search took the %s way, want the %s way it takes knowing nothing", got, slow)
	}

	guided := runOnce(true, true)
	if guided.Cache == nil || !guided.Cache.Hit {
		t.Fatalf("the last run found no cached plan: %+v", guided.Cache)
	}
	if got := way(t, guided, dir); got != fast {
		t.Fatalf("a cached plan through the slow way hid the fast one: the search took the %s way", got)
	}
}

// continueOf is the action of either way's Continue.
func continueOf() branch.Action {
	return branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: "continue"}}
}
