package worker_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/worker"
)

func spec(origin string) *job.Spec {
	return &job.Spec{
		Origin: origin, RunSeed: 99,
		Env: task.Environment{Viewport: task.Viewport{Width: 1280, Height: 800}, DeviceScaleFactor: 1, Locale: "en-US",
			Timezone: "UTC", Clock: task.DefaultClock, StepAdvance: task.Duration(time.Second)},
		Timeout:    task.Duration(10 * time.Second),
		Predicates: []scoring.Predicate{{Name: "pricing", URLMatches: "/pricing"}, {Name: "team", URLMatches: "plan=team"}},
		Boundary:   scoring.Predicate{URLMatches: "/checkout/review"},
		DeadEnds:   scoring.DefaultDetectors(),
		Inputs:     map[string]task.Input{"seats": {Value: "10", Match: "(?i)seats"}},
		ScrubKey:   []byte("k"),
		// Screenshots are on, for every step: taking one must leave no
		// trace in the page that a warm child would inherit.
		Screenshots: true, ScreenshotsAll: true,
	}
}

func plan(origin string) branch.Plan {
	click := func(id string) branch.Action {
		return branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: id}}
	}
	return branch.Plan{
		{Kind: branch.KindNavigate, URL: origin + "/"},
		click("nav-pricing"),
		click("choose-team"),
		{Kind: branch.KindSelect, Target: &branch.Target{ID: "billing"}, Value: "monthly"},
		{Kind: branch.KindType, Target: &branch.Target{ID: "seats"}, Input: "seats"},
	}
}

// newExecutor serves the demo vendor with knobs k for the test and makes
// an executor (opts with a name and an artifact store) that closes with it.
func newExecutor(t *testing.T, k sites.Knobs, opts worker.Options) (*httptest.Server, *artifacts.FS, *worker.Executor) {
	t.Helper()
	srv := sitetest.HTTPTest(t, k)
	store, err := artifacts.OpenFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts.Name, opts.Store = "test", store
	ex, err := worker.NewExecutor(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return srv, store, ex
}

// TestWarmContinuationMatchesColdReplay: a child that continues its
// parent's live context reaches the same strict hashes as one that
// replays the whole plan in a fresh context, on a page full of chaos that
// uses Math.random, Date and timers.
func TestWarmContinuationMatchesColdReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv, _, ex := newExecutor(t, sites.Knobs{PageRandom: true, TimerRace: true, LateBanner: true}, worker.Options{KeepWarm: 4})
	ctx := context.Background()
	sp := spec(srv.URL)
	p := plan(srv.URL)
	if p[2].Target.TestID == "" {
		t.Fatal("bad plan")
	}
	branchJob := func(id, parent string, n int) *job.Job {
		return &job.Job{RunID: "run", BranchID: id, ParentID: parent, Heir: parent != "", Plan: p[:n], Spec: sp}
	}
	cold, err := ex.Execute(ctx, branchJob("cold", "", 5), 1)
	if err != nil || cold.Status != job.ResultOK {
		t.Fatalf("cold: %v %+v", err, cold)
	}
	// A chain of warm continuations, each step observed with a
	// screenshot, against one cold replay of the whole plan.
	grand, err := ex.Execute(ctx, branchJob("grandparent", "", 3), 1)
	if err != nil || grand.Status != job.ResultOK {
		t.Fatalf("grandparent: %v %+v", err, grand)
	}
	parent, err := ex.Execute(ctx, branchJob("parent", "grandparent", 4), 1)
	if err != nil || parent.Status != job.ResultOK || !parent.Reused {
		t.Fatalf("parent: %v %+v", err, parent)
	}
	// A sibling that is not the parent's heir leaves the context to it.
	other := branchJob("other", "parent", 5)
	other.Heir = false
	if res, err := ex.Execute(ctx, other, 1); err != nil || res.Reused {
		t.Fatalf("a sibling other than the heir took the parent's context: %v %+v", err, res)
	}
	warm, err := ex.Execute(ctx, branchJob("child", "parent", 5), 1)
	if err != nil || warm.Status != job.ResultOK {
		t.Fatalf("warm: %v %+v", err, warm)
	}
	if !warm.Reused || cold.Reused || len(warm.Steps) != 1 || len(cold.Steps) != 5 {
		t.Fatalf("reuse: warm %v (%d steps), cold %v (%d steps)", warm.Reused, len(warm.Steps), cold.Reused, len(cold.Steps))
	}
	c, w := cold.Obs, warm.Obs
	if c.DOMHash != w.DOMHash || c.AXHash != w.AXHash || c.NetDigest != w.NetDigest || c.VirtualTime != w.VirtualTime {
		t.Fatalf("warm and cold differ:\ncold %s %s %s %d\nwarm %s %s %s %d", c.DOMHash, c.AXHash, c.NetDigest, c.VirtualTime,
			w.DOMHash, w.AXHash, w.NetDigest, w.VirtualTime)
	}
	var held bool
	for _, a := range w.Affordances {
		if a.Holds == "seats" {
			held = true
		}
	}
	if !held {
		t.Fatal("the seats field is not marked as holding the seats input")
	}
	// A sibling cannot take the parent's context twice.
	again, err := ex.Execute(ctx, branchJob("sibling", "parent", 5), 1)
	if err != nil || again.Reused {
		t.Fatalf("sibling reused a taken context: %v %+v", err, again)
	}
}

// TestScreenshotsWhereLooked: by default a speculative step gets a
// screenshot only where a person looks: not on the way (the pricing
// page), but at a failed step, at the commit boundary and where the
// goal's success predicates all hold; with ScreenshotsAll every step does.
func TestScreenshotsWhereLooked(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv, store, ex := newExecutor(t, sites.Knobs{}, worker.Options{})
	ctx := context.Background()
	looked := spec(srv.URL)
	looked.ScreenshotsAll = false
	withGoal := *looked
	withGoal.Success = []string{"pricing"}
	all := spec(srv.URL)
	p := plan(srv.URL)
	missing := append(p[:2:2], branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: "no-such-button"}})
	for i, tc := range []struct {
		name string
		sp   *job.Spec
		plan branch.Plan
		shot bool
	}{
		{"on the way", looked, p[:2], false},
		{"a failed step", looked, missing, true},
		{"the goal met", &withGoal, p[:2], true},
		{"every step", all, p[:2], true},
	} {
		res, err := ex.Execute(ctx, &job.Job{RunID: "run", BranchID: fmt.Sprintf("b%d", i), Plan: tc.plan, Spec: tc.sp}, 1)
		if err != nil || res.Obs == nil {
			t.Fatalf("%s: %v %+v", tc.name, err, res)
		}
		if got := res.Obs.ScreenshotHash != ""; got != tc.shot {
			t.Errorf("%s: screenshot taken %v, want %v (status %s %s)", tc.name, got, tc.shot, res.Status, res.ErrCode)
		}
		if tc.shot {
			if _, err := store.Get(ctx, artifacts.Digest(res.Obs.ScreenshotHash)); err != nil {
				t.Errorf("%s: the screenshot is not stored: %v", tc.name, err)
			}
		}
	}
}

// TestNetworkServesEverySession: with Options.Network, every session's
// requests go to the proxy it returns (here the only thing that knows the
// site's host), each job replays its whole plan in a fresh session even
// when its parent's could be continued, the release func runs once per
// session, and a Network that fails makes a failed result, not a
// redelivery.
func TestNetworkServesEverySession(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	const origin = "http://world.multiverse.test"
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String())
		mu.Unlock()
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>%s</title><a data-testid="next" href="/next">Next</a>`, r.URL.Path)
	}))
	defer proxy.Close()
	var served, released atomic.Int32
	fail := false
	network := func(ctx context.Context, j *job.Job) (string, func(), error) {
		if fail {
			return "", nil, errors.New("the world is closed")
		}
		served.Add(1)
		return proxy.URL, func() { released.Add(1) }, nil
	}
	store, _ := artifacts.OpenFS(t.TempDir())
	ctx := context.Background()
	ex, err := worker.NewExecutor(ctx, worker.Options{Name: "test", Store: store, KeepWarm: 4, Network: network})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	p := branch.Plan{{Kind: branch.KindNavigate, URL: origin + "/"}, {Kind: branch.KindClick, Target: &branch.Target{TestID: "next"}}}
	parent, err := ex.Execute(ctx, &job.Job{RunID: "run", BranchID: "parent", Plan: p[:1], Spec: spec(origin)}, 1)
	if err != nil || parent.Status != job.ResultOK {
		t.Fatalf("parent: %v %+v", err, parent)
	}
	child, err := ex.Execute(ctx, &job.Job{RunID: "run", BranchID: "child", ParentID: "parent", Heir: true, Plan: p, Spec: spec(origin)}, 1)
	if err != nil || child.Status != job.ResultOK || child.Reused || len(child.Steps) != 2 {
		t.Fatalf("child: %v %+v; want both steps in a fresh session", err, child)
	}
	if !strings.HasSuffix(child.Obs.URL, "/next") {
		t.Fatalf("the child ended at %s, want the proxy's /next", child.Obs.URL)
	}
	if served.Load() != 2 || released.Load() != 2 {
		t.Fatalf("%d sessions served, %d released; want 2 and 2", served.Load(), released.Load())
	}
	mu.Lock()
	if len(seen) == 0 || !strings.HasPrefix(seen[0], "GET "+origin+"/") {
		t.Errorf("the proxy saw %q, want the site's requests", seen)
	}
	mu.Unlock()
	fail = true
	res, err := ex.Execute(ctx, &job.Job{RunID: "run", BranchID: "closed", Plan: p[:1], Spec: spec(origin)}, 1)
	if err != nil || res.Status != job.ResultFailed || res.ErrCode != branch.CodeBadJob || !strings.Contains(res.ErrMsg, "the world is closed") {
		t.Fatalf("with a failing network: %v %+v; want a failed result (bad_job)", err, res)
	}
}
