package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/bus/natstest"
)

// TestRequestsSurviveALeaderKilled: a client connected to the node that
// leads one of the streams a run uses reads an artifact, queues a job,
// counts pending jobs and collects dead ones after that node is killed,
// each within a patience well below the test's. Every request is bounded
// and asked again (or, for the calls a dispatch loop polls, failed so the
// loop asks again): one request left waiting for its context once held
// TestClusterNodeKilled's orchestrator until the run's wall clock ended.
func TestRequestsSurviveALeaderKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nats-server processes")
	}
	for _, stream := range []string{"OBJ_" + bus.ObjectBucket, bus.DeadStream, bus.JobsStream} {
		t.Run(stream, func(t *testing.T) { requestsSurviveLeaderKilled(t, stream) })
	}
}

func requestsSurviveLeaderKilled(t *testing.T, stream string) {
	c := natstest.StartCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := bus.Connect(ctx, c.URLs(), bus.WithReplicas(3))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	objs, err := cl.Objects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("<html>a snapshot</html>")
	d, err := objs.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	killLeader(ctx, t, c, cl, stream)

	pctx, pcancel := context.WithTimeout(ctx, 60*time.Second)
	defer pcancel()
	got, err := objs.Get(pctx, d)
	if err != nil {
		t.Fatalf("reading the artifact: %v", err)
	}
	if string(got) != string(data) {
		t.Fatalf("artifact = %q, want %q", got, data)
	}
	if err := cl.PublishJob(pctx, "leader-kill", "b1", []byte("job"), nil); err != nil {
		t.Fatalf("queueing a job: %v", err)
	}
	// The calls a dispatch loop polls fail fast while a leader is elected;
	// asked again, they answer.
	n, err := untilAnswered(pctx, func(ctx context.Context) (uint64, error) { return cl.Pending(ctx, "leader-kill") })
	if err != nil || n != 1 {
		t.Fatalf("pending = %d, %v; want the one job queued", n, err)
	}
	dead, err := untilAnswered(pctx, func(ctx context.Context) ([]bus.Job, error) { return cl.DeadJobs(ctx, "leader-kill") })
	if err != nil || len(dead) != 0 {
		t.Fatalf("dead jobs = %v, %v; want none", dead, err)
	}
}

// killLeader kills the node that leads stream.
func killLeader(ctx context.Context, t *testing.T, c *natstest.Cluster, cl *bus.Client, stream string) {
	t.Helper()
	st, err := cl.JetStream().Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Servers {
		if s.Name == info.Cluster.Leader {
			s.Kill()
			return
		}
	}
	t.Fatalf("no server is named %q, the leader of %s", info.Cluster.Leader, stream)
}

// untilAnswered calls f until it answers or ctx ends.
func untilAnswered[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	for {
		v, err := f(ctx)
		if err == nil || ctx.Err() != nil {
			return v, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
