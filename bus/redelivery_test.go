package bus_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

// Many short runs, as the orchestrator makes them: each run starts a Work
// call with a few slots and a fresh route, publishes waves of jobs (the
// first shared, the next ones a mix of jobs routed to that Work call and
// shared ones, published at once), and stops its Work call when the last
// result is in. A second worker shares the queue throughout. No handler
// fails and no worker dies, so every job must run on its first delivery:
// a job that needs a second one was delivered to a pull nobody read and
// waited for the ack deadline.
func TestNoJobWaitsForRedelivery(t *testing.T) {
	t.Parallel()
	const (
		ackWait = 2 * time.Second
		runs    = 40
		waves   = 5
		perWave = 4
	)
	srv, _ := startServer(t)
	opts := []bus.Option{bus.WithAckWait(ackWait)}
	orch := connect(t, srv.ClientURL(), append(opts, bus.WithName("orchestrator"))...)
	var mu sync.Mutex
	var late []string
	handler := func(ctx context.Context, job bus.Job) ([]byte, error) {
		if job.Attempt > 1 {
			mu.Lock()
			late = append(late, fmt.Sprintf("%s/%s (attempt %d)", job.RunID, job.BranchID, job.Attempt))
			mu.Unlock()
		}
		select {
		case <-time.After(time.Duration(rand.IntN(15)) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return nil, nil
	}
	work(t, connect(t, srv.ClientURL(), append(opts, bus.WithName("remote"))...), bus.WorkerConfig{Slots: 2}, handler)

	jobs, slow := 0, 0
	for run := range runs {
		runID := fmt.Sprintf("run%d", run)
		route := bus.NewRoute()
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- orch.Work(ctx, bus.WorkerConfig{Slots: 4, Route: route}, handler) }()
		res := results(t, orch, runID)
		for wave := range waves {
			t0 := time.Now()
			var wg sync.WaitGroup
			for i := range perWave {
				branch := fmt.Sprintf("w%db%d", wave, i)
				wg.Go(func() {
					pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					var err error
					if wave > 0 && i%2 == 0 {
						_, err = orch.PublishRouted(pctx, runID, branch, route, nil, nil)
					} else {
						err = orch.PublishJob(pctx, runID, branch, nil, nil)
					}
					if err != nil {
						t.Errorf("publishing %s: %v", branch, err)
					}
				})
			}
			wg.Wait()
			for range perWave {
				r := nextResult(t, res, 3*ackWait)
				jobs++
				if r.Attempt > 1 {
					slow++
				}
			}
			if took := time.Since(t0); took > ackWait/2 {
				t.Logf("%s wave %d took %s", runID, wave, took)
			}
		}
		stop()
		if err := <-done; err != nil {
			t.Fatalf("Work: %v", err)
		}
	}
	if slow > 0 || len(late) > 0 {
		t.Fatalf("%d of %d jobs ran only after a redelivery, with no worker failure: %v", slow, jobs, late)
	}
}

// A Work call that stops while jobs are being published leaves none of
// them delivered and unread: each runs on the worker that stays, before
// the ack deadline.
func TestStoppingWorkerLeavesNoJobBehind(t *testing.T) {
	t.Parallel()
	const ackWait = 2 * time.Second
	srv, _ := startServer(t)
	opts := []bus.Option{bus.WithAckWait(ackWait)}
	orch := connect(t, srv.ClientURL(), append(opts, bus.WithName("orchestrator"))...)
	handler := func(ctx context.Context, job bus.Job) ([]byte, error) { return nil, nil }
	work(t, connect(t, srv.ClientURL(), append(opts, bus.WithName("stays"))...), bus.WorkerConfig{Slots: 2}, handler)
	leaving := connect(t, srv.ClientURL(), append(opts, bus.WithName("leaves"))...)
	res := results(t, orch, "run1")
	slow := 0
	for round := range 30 {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- leaving.Work(ctx, bus.WorkerConfig{Slots: 2}, handler) }()
		time.Sleep(time.Duration(20+rand.IntN(30)) * time.Millisecond)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() { publish(t, orch, "run1", fmt.Sprintf("r%db%d", round, i), "x") })
		}
		stop()
		wg.Wait()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Work: %v", err) // stopped while setting up: fine
		}
		t0 := time.Now()
		for range 4 {
			nextResult(t, res, 3*ackWait)
		}
		if took := time.Since(t0); took > ackWait/2 {
			slow++
			t.Logf("round %d: the last job ran after %s", round, took)
		}
	}
	if slow > 0 {
		t.Fatalf("in %d of 30 rounds a job waited for its redelivery after a worker stopped", slow)
	}
}
