package e2e_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/bus/natstest"
)

// TestResultsSurviveTheirLeaderKilled: a reader connected to the node that
// leads MV_RESULTS keeps receiving a run's results after that node is
// killed; results stored after the kill reach it within the reader's
// patience, whichever of its two paths (stream, live subscription) recovers
// first. A regression check of the reader across a leader's death: it does
// not reproduce the watchdog's unbounded request (the live path covers for
// it here), which TestClusterNodeKilled hit under load.
func TestResultsSurviveTheirLeaderKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nats-server processes")
	}
	c := natstest.StartCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	setup, err := bus.Connect(ctx, c.URLs(), bus.WithReplicas(3))
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	st, err := setup.JetStream().Stream(ctx, bus.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var leader *natstest.Server
	for _, s := range c.Servers {
		if s.Name == info.Cluster.Leader {
			leader = s
		}
	}
	if leader == nil {
		t.Fatalf("no server is named %q, the leader of %s", info.Cluster.Leader, bus.ResultsStream)
	}
	reader, err := bus.Connect(ctx, leader.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	var other string
	for _, s := range c.Servers {
		if s != leader {
			other = s.URL
		}
	}
	wk, err := bus.Connect(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer wk.Close()
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go wk.Work(wctx, bus.WorkerConfig{}, func(ctx context.Context, j bus.Job) ([]byte, error) { return []byte(j.BranchID), nil })

	const run = "results-kill"
	res, err := reader.Results(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	publish := func(b string) {
		t.Helper()
		for ctx.Err() == nil {
			pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
			err := wk.PublishJob(pctx, run, b, nil, nil)
			pcancel()
			if err == nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("publishing %s: %v", b, ctx.Err())
	}
	await := func(b string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case r, ok := <-res:
				if !ok {
					t.Fatalf("the results channel closed before %s", b)
				}
				if r.BranchID == b {
					return
				}
			case <-deadline:
				t.Fatalf("no result for %s within 30s of its job", b)
			}
		}
	}
	publish("b0")
	await("b0")
	leader.Kill()
	for i := 1; i <= 4; i++ {
		b := fmt.Sprintf("b%d", i)
		publish(b)
		await(b)
	}
}
