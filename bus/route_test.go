package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

// A job routed to one worker runs there, promptly, even while every
// worker waits on the shared queue; shared jobs still go to anyone.
func TestRoutedJobRunsOnItsWorker(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	orch := connect(t, srv.ClientURL(), bus.WithName("orchestrator"))
	handler := func(name string) bus.Handler {
		return func(ctx context.Context, job bus.Job) ([]byte, error) {
			return []byte(name + "|" + job.Route), nil
		}
	}
	work(t, connect(t, srv.ClientURL()), bus.WorkerConfig{Route: "ra"}, handler("a"))
	work(t, connect(t, srv.ClientURL()), bus.WorkerConfig{Route: "rb"}, handler("b"))
	res := results(t, orch, "run1")
	// Let both workers' pull requests wait on the shared queue.
	time.Sleep(300 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i, route := range []string{"rb", "ra", "rb"} {
		branch := "b" + string(rune('1'+i))
		t0 := time.Now()
		if _, err := orch.PublishRouted(ctx, "run1", branch, route, nil, nil); err != nil {
			t.Fatal(err)
		}
		r := nextResult(t, res, 5*time.Second)
		requireEqual(t, r.BranchID, branch, "branch")
		want := map[string]string{"ra": "a|ra", "rb": "b|rb"}[route]
		requireEqual(t, string(r.Data), want, "worker|route")
		if took := time.Since(t0); took > 2*time.Second {
			t.Fatalf("routed job %s took %s to run on an idle worker", branch, took)
		}
	}
	publish(t, orch, "run1", "shared", "x")
	r := nextResult(t, res, 5*time.Second)
	requireEqual(t, r.BranchID, "shared", "branch")
	waitPending(t, orch, "run1", 0)
}

// waitPending waits for the run's pending count to reach want: a job is
// acked only after its result is stored.
func waitPending(t *testing.T, c *bus.Client, runID string, want uint64) {
	t.Helper()
	var n uint64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if n, err = c.Pending(context.Background(), runID); err == nil && n == want {
			return
		}
	}
	t.Fatalf("pending jobs of %s: %d, want %d", runID, n, want)
}

// A routed job nobody takes can be withdrawn and queued for any worker;
// once done it cannot be withdrawn.
func TestUnroute(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	orch := connect(t, srv.ClientURL(), bus.WithName("orchestrator"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq, err := orch.PublishRouted(ctx, "run1", "b1", "gone", []byte("x"), nil)
	requireNoErr(t, err)
	n, err := orch.Pending(ctx, "run1")
	requireNoErr(t, err)
	requireEqual(t, n, uint64(1), "pending routed jobs")
	removed, err := orch.Unroute(ctx, seq)
	requireNoErr(t, err)
	requireEqual(t, removed, true, "removed")
	removed, err = orch.Unroute(ctx, seq)
	requireNoErr(t, err)
	requireEqual(t, removed, false, "removed twice")
	// The same branch can still be queued for anyone.
	work(t, connect(t, srv.ClientURL()), bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		return []byte("ran"), nil
	})
	res := results(t, orch, "run1")
	publish(t, orch, "run1", "b1", "x")
	r := nextResult(t, res, 5*time.Second)
	requireEqual(t, r.BranchID, "b1", "branch")
	waitPending(t, orch, "run1", 0)

	// A taken job is not withdrawn.
	seq, err = orch.PublishRouted(ctx, "run1", "b2", "self", nil, nil)
	requireNoErr(t, err)
	work(t, connect(t, srv.ClientURL()), bus.WorkerConfig{Route: "self"}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		return nil, nil
	})
	r = nextResult(t, res, 5*time.Second)
	requireEqual(t, r.BranchID, "b2", "branch")
	waitPending(t, orch, "run1", 0)
	removed, err = orch.Unroute(ctx, seq)
	requireNoErr(t, err)
	requireEqual(t, removed, false, "removed after it ran")
}
