package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// chainExecutor answers jobs without a browser: page N offers three links
// to page N+1 variants and is the boundary at depth Depth. It makes the
// orchestrator's own work (JetStream dispatch, scoring, search, event
// append) the only cost of a run.
type chainExecutor struct{ Depth int }

func (c chainExecutor) Handle(ctx context.Context, m job.Delivery) ([]byte, error) {
	j, err := job.DecodeJob(m.Data)
	if err != nil {
		return nil, err
	}
	d := len(j.Plan)
	now := time.Now()
	obs := &branch.Observation{URL: fmt.Sprintf("%s/p/%d/%s", j.Spec.Origin, d, j.PlanDigest[:8]), Title: "page",
		DOMHash: j.PlanDigest, Predicates: map[string]bool{"done": d >= c.Depth}}
	for k := 2; k < c.Depth; k++ {
		obs.Predicates["d"+strconv.Itoa(k)] = d == k
	}
	for i, name := range []string{"Continue", "Next step", "Proceed"} {
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "link", Region: "main", Form: -1,
			Href:   fmt.Sprintf("%s/p/%d/%s/%d", j.Spec.Origin, d+1, j.PlanDigest[:8], i),
			Target: branch.Target{Role: "link", Name: name, CSS: "a:nth-of-type(" + strconv.Itoa(i+1) + ")"}})
	}
	res := &job.Result{RunID: j.RunID, BranchID: j.BranchID, Attempt: m.Attempt, Worker: "chain", Status: job.ResultOK,
		Obs: obs, AtBoundary: d >= c.Depth, Started: now,
		Steps: []job.Step{{StepResult: stepAt(d, now)}}}
	return res.Encode()
}

func chainTask(b testing.TB, url string, depth int) *task.Task {
	var ms []string
	for d := 2; d < depth; d++ {
		ms = append(ms, fmt.Sprintf("{name: d%d, url_matches: '/p/%d/'}", d, d))
	}
	yaml := fmt.Sprintf(`start_url: %s/
goal:
  text: continue to the next step
  milestones: [%s]
  success: [{name: done, url_matches: '/p/%d/'}]
budgets: {total_branches: 1000, steps_per_branch: %d}
search: {beam_width: 4, min_beam_width: 4, max_children: 3}
commit:
  boundary: {url_matches: '/p/%d/'}
  intent: {x: '#x'}
  action: {click: {text: Buy}}
  idempotency: {header: Idempotency-Key}
  confirm: {success: {url_matches: /done}, token: '#t'}
`, url, strings.Join(ms, ", "), depth, depth+2, depth)
	tk, err := task.Parse("chain.yaml", []byte(yaml))
	if err != nil {
		b.Fatal(err)
	}
	return tk
}

// BenchmarkOrchestratorStep measures the orchestrator's own overhead per
// branch step, browser time excluded: each branch is dispatched over the
// embedded JetStream server, answered at once by a browser-free executor,
// scored, folded into the search and appended to the event log. Each run's
// explore wall clock divided by its branches is one sample; the median
// over runs is reported. The "disk" case stores JetStream and SQLite in
// the temp dir with fsync always (each branch pays a job store, its ack
// and a result store); "tmpfs" (when /dev/shm exists) shows the cost
// without the disk's fsync latency.
func BenchmarkOrchestratorStep(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	stores := []struct{ name, parent string }{{"disk", ""}}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		stores = append(stores, struct{ name, parent string }{"tmpfs", "/dev/shm"})
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			var branches int
			var explore, cpu time.Duration
			var samples []float64
			for i := 0; i < b.N; i++ {
				dir := b.TempDir()
				if st.parent != "" {
					d, err := os.MkdirTemp(st.parent, "mv-bench-")
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { os.RemoveAll(d) })
					dir = d
				}
				tk := chainTask(b, srv.URL, 12)
				sum, err := orchestrator.Run(context.Background(), orchestrator.Config{Task: tk, DataDir: dir, Workers: 4,
					Executor: chainExecutor{Depth: 12}, ExploreOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				branches += sum.Branches.Executed
				explore += sum.Explore
				cpu += sum.ExploreCPU
				samples = append(samples, float64(sum.Explore.Microseconds())/float64(sum.Branches.Executed))
			}
			sort.Float64s(samples)
			b.ReportMetric(samples[len(samples)/2], "median-µs/branch-step")
			b.ReportMetric(float64(explore.Microseconds())/float64(branches), "µs/branch-step")
			b.ReportMetric(float64(cpu.Microseconds())/float64(branches), "cpu-µs/branch-step")
			b.ReportMetric(float64(branches)/float64(b.N), "branches/run")
		})
	}
}

// TestChainExecutorRun keeps the benchmark's harness honest: the chain
// search reaches its boundary through the real bus and event log.
func TestChainExecutorRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	sum, err := orchestrator.Run(context.Background(), orchestrator.Config{Task: chainTask(t, srv.URL, 6), DataDir: t.TempDir(),
		Workers: 2, Executor: chainExecutor{Depth: 6}, ExploreOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != "explored" || len(sum.Winner.Steps) != 6 || !strings.Contains(sum.Winner.Steps[5], "click") {
		t.Fatalf("summary = %+v", sum)
	}
	b, _ := json.Marshal(sum)
	if !strings.Contains(string(b), `"explored_plan_digests"`) {
		t.Fatal("summary JSON lacks explored digests")
	}
}
