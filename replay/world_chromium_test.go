package replay_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/worker"
)

// TestRerunInRecordedWorld: the package's explored demo run (the demo
// task explored on the demo site) explored again, in a fresh data dir,
// with every page served from that run's recorded world while the site
// is gone (its address answers only a tripwire): the rerun reaches the
// same winner with no miss and not one request to the site. A branch
// whose plan the first run never executed is served its recorded prefix
// and refused the rest, as a miss naming it.
func TestRerunInRecordedWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	e := exploredDemo(t)
	tk, sum := e.task, e.sum
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var hits atomic.Int64
	e.serveAt(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "the rerun reached the site", http.StatusTeapot)
	}))
	dir := e.exploredCopy(t)

	src, closeSrc := source(t, dir)
	defer closeSrc()
	key, err := scrub.ReadKey(dir, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	w, err := replay.OpenWorld(ctx, src, sum.RunID, replay.WorldOptions{Scrub: scrub.New(key, tk.SecretValues())})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	network := func(ctx context.Context, j *job.Job) (string, func(), error) { return w.Serve(ctx, j.BranchID, j.Plan) }
	start := time.Now()
	again, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: t.TempDir(), Workers: 4, NoScreenshots: true,
		ExploreOnly: true, Network: network})
	if err != nil {
		t.Fatalf("rerun: %v (misses %v)", err, w.Misses())
	}
	t.Logf("run: %+v branches in %s; rerun in its recorded world: %+v branches in %s", sum.Branches, sum.Elapsed.Round(time.Millisecond),
		again.Branches, time.Since(start).Round(time.Millisecond))
	if again.Winner == nil || again.Winner.PlanDigest != sum.Winner.PlanDigest {
		t.Fatalf("rerun winner %+v, want the run's %+v", again.Winner, sum.Winner)
	}
	if m := w.Misses(); len(m) != 0 {
		t.Fatalf("the rerun missed %d request(s), the first %v", len(m), m[0])
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the rerun sent %d request(s) to the site", n)
	}

	// A plan the run never executed: the winner's first two steps, then
	// a page nobody opened.
	b, err := replay.Build(ctx, src, sum.RunID, sum.Winner.BranchID, bundle.KindBranch)
	if err != nil {
		t.Fatal(err)
	}
	novel := append(append(branch.Plan(nil), b.Manifest.Plan[:2]...),
		branch.Action{Kind: branch.KindNavigate, URL: e.url + "/never-recorded"})
	store, err := artifacts.OpenFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ex, err := worker.NewExecutor(ctx, worker.Options{Name: "test", Store: store, Network: network})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	spec := job.NewSpec(tk)
	spec.ScrubKey = key
	res, err := ex.Execute(ctx, &job.Job{RunID: "rerun", BranchID: "novel", Plan: novel, Spec: spec, Deadline: task.Duration(time.Minute)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var named bool
	for _, m := range w.Misses() {
		if m.BranchID != "novel" || m.Step != 3 || m.RecordedSteps != 2 {
			t.Errorf("miss %+v: want branch novel, step 3, 2 recorded steps", m)
		}
		named = named || strings.HasSuffix(m.URL, "/never-recorded") && m.Method == "GET" && !m.AtCapture
	}
	if !named {
		t.Fatalf("no miss names the page the run never opened: %+v (result %s %s)", w.Misses(), res.Status, res.ErrMsg)
	}
	t.Logf("the new plan: %s %s; misses %v", res.Status, res.ErrCode, w.Misses())
	if n := hits.Load(); n != 0 {
		t.Fatalf("the new plan sent %d request(s) to the site", n)
	}
}
