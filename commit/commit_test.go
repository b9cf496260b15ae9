package commit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

type nopRecorder struct{}

func (nopRecorder) Record(context.Context, string, string, any, ...string) {}

type fixture struct {
	site  *sites.Vendor
	url   string
	task  *task.Task
	rt    *browser.Runtime
	store *artifacts.FS
	dir   string
}

func setup(t *testing.T) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := sitetest.Start(t, sites.Knobs{})
	tk, err := task.Load("../examples/procure-team-plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.WithStartURL(site.URL() + "/"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	dir := t.TempDir()
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{site: site.Vendor, url: site.URL(), task: tk, rt: rt, store: store, dir: dir}
}

// winner is a plan that reaches the review page with the goal met.
func (f *fixture) winner() commit.Candidate {
	click := func(id string) branch.Action {
		return branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: id}}
	}
	plan := branch.Plan{
		{Kind: branch.KindNavigate, URL: f.url + "/"},
		click("nav-pricing"),
		click("choose-team"),
		{Kind: branch.KindSelect, Target: &branch.Target{ID: "billing"}, Value: "monthly"},
		{Kind: branch.KindType, Target: &branch.Target{ID: "seats"}, Input: "seats"},
		{Kind: branch.KindSelect, Target: &branch.Target{ID: "country"}, Value: "DE"},
		{Kind: branch.KindType, Target: &branch.Target{ID: "email"}, Input: "email"},
		click("continue-to-review"),
	}
	return commit.Candidate{BranchID: "01WINNER", PlanDigest: plan.Digest(f.task.Digest(), f.task.Origin()), Plan: plan,
		Intent: map[string]string{"total": "178.50"}}
}

func (f *fixture) committer(t *testing.T, runID string) *commit.Committer {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(f.dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	spec := &job.Spec{Origin: f.task.Origin(), RunSeed: f.task.Seed, Env: f.task.Environment, Timeout: f.task.Budgets.ActionTimeout,
		Guard: f.task.Commit.Guard, Inputs: f.task.Inputs, ScrubKey: []byte("test-key")}
	return &commit.Committer{Task: f.task, RunID: runID, Spec: spec, Ledger: l, Store: f.store, Runtime: f.rt, Events: nopRecorder{}}
}

// TestConcurrentCommittersOneOrder: N goroutines, each with its own ledger
// handle on the same file, commit the same intent at once: exactly one
// order; every other committer is refused by the single-writer lock or
// finds the commit already in the ledger.
func TestConcurrentCommittersOneOrder(t *testing.T) {
	f := setup(t)
	const n = 5
	var wg sync.WaitGroup
	results := make([]*commit.Result, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		c := f.committer(t, "run")
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = c.Commit(context.Background(), []commit.Candidate{f.winner()})
		}(i)
	}
	wg.Wait()
	committed := 0
	for i := range errs {
		switch {
		case errs[i] == nil && !results[i].Existing:
			committed++
		case errs[i] == nil && results[i].Existing:
		case errors.Is(errs[i], commit.ErrBusy):
		default:
			t.Errorf("committer %d: %v", i, errs[i])
		}
	}
	if committed != 1 {
		t.Fatalf("%d committers placed the order, want 1", committed)
	}
	if got := len(f.site.Orders()); got != 1 {
		t.Fatalf("site holds %d orders, want 1", got)
	}
	// A later committer finds it in the ledger and sends nothing.
	res, err := f.committer(t, "run2").Commit(context.Background(), []commit.Candidate{f.winner()})
	if err != nil || !res.Existing || res.Entry.OrderID != f.site.Orders()[0].ID {
		t.Fatalf("later commit = %+v, %v", res, err)
	}
	if got := len(f.site.Orders()); got != 1 {
		t.Fatalf("site holds %d orders after a repeat, want 1", got)
	}
}

// TestRecoverProbesTheSite: an intent left by a crash after the order was
// placed is resolved by the confirm probe, without a second order.
func TestRecoverProbesTheSite(t *testing.T) {
	f := setup(t)
	c := f.committer(t, "run")
	res, err := c.Commit(context.Background(), []commit.Candidate{f.winner()})
	if err != nil {
		t.Fatal(err)
	}
	key, order := res.Entry.Key, res.Entry.OrderID
	// Simulate the crash: a fresh ledger that only holds the intent.
	if err := os.Rename(filepath.Join(f.dir, "ledger.db"), filepath.Join(f.dir, "old.db")); err != nil {
		t.Fatal(err)
	}
	c2 := f.committer(t, "run2")
	e, _, err := c2.Ledger.Intent(context.Background(), ledger.Intent{Key: key, RunID: "run", Site: res.Entry.Site, Flow: res.Entry.Flow, Payload: res.Entry.Payload})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := c2.Recover(context.Background(), e)
	if err != nil || !ok || got.State != ledger.StateCommitted || got.OrderID != order {
		t.Fatalf("recover = %+v, %v, %v", got, ok, err)
	}
	if n := len(f.site.Orders()); n != 1 {
		t.Fatalf("site holds %d orders", n)
	}
}
