package bus_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	orch := connect(t, srv.ClientURL(), bus.WithName("orchestrator"))
	wk := connect(t, srv.ClientURL(), bus.WithName("worker"))

	work(t, wk, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		job.Header.Set("X-Worker", "w1") // carried onto the result
		return []byte("done:" + job.RunID + "/" + job.BranchID + "/" + string(job.Data)), nil
	})
	res := results(t, orch, "run1")

	hdr := nats.Header{}
	hdr.Set("X-Caller", "orchestrator")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	requireNoErr(t, orch.PublishJob(ctx, "run1", "b1", []byte("payload"), nil))
	requireNoErr(t, orch.PublishJob(ctx, "run1", "b2", []byte("second"), hdr))

	tests := []struct {
		branch, data string
		header       map[string]string
	}{
		{"b1", "done:run1/b1/payload", map[string]string{"X-Worker": "w1"}},
		{"b2", "done:run1/b2/second", map[string]string{"X-Worker": "w1", "X-Caller": "orchestrator"}},
	}
	for _, tc := range tests {
		r := nextResult(t, res, 5*time.Second)
		t.Run(tc.branch, func(t *testing.T) {
			requireEqual(t, r.RunID, "run1", "run id")
			requireEqual(t, r.BranchID, tc.branch, "branch id")
			requireEqual(t, r.Attempt, 1, "attempt")
			requireEqual(t, string(r.Data), tc.data, "data")
			want := map[string]string{
				bus.HeaderRunID:    "run1",
				bus.HeaderBranchID: tc.branch,
				bus.HeaderAttempt:  "1",
				"Nats-Msg-Id":      bus.ResultMsgID("run1", tc.branch, 1),
			}
			for k, v := range tc.header {
				want[k] = v
			}
			for k, v := range want {
				requireEqual(t, r.Header.Get(k), v, "header "+k)
			}
		})
	}
	waitFor(t, 5*time.Second, "jobs acked", func() bool { return pending(t, orch, "run1") == 0 })
}

func TestInvalidIDs(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, id := range []string{"", "a.b", "a*", ">", "a b", "tab\t", "nul\x00", "\xff"} {
		t.Run(strconv.Quote(id), func(t *testing.T) {
			requireErrIs(t, c.PublishJob(ctx, id, "b", nil, nil), bus.ErrInvalidID)
			requireErrIs(t, c.PublishJob(ctx, "r", id, nil, nil), bus.ErrInvalidID)
			_, err := c.Results(ctx, id)
			requireErrIs(t, err, bus.ErrInvalidID)
			requireErrIs(t, c.Cancel(ctx, id), bus.ErrInvalidID)
			_, err = c.Pending(ctx, id)
			requireErrIs(t, err, bus.ErrInvalidID)
			_, err = c.DeadJobs(ctx, id)
			requireErrIs(t, err, bus.ErrInvalidID)
		})
	}
}

func TestWorkConfigValidation(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())
	ok := func(context.Context, bus.Job) ([]byte, error) { return nil, nil }
	tests := []struct {
		name string
		cfg  bus.WorkerConfig
		h    bus.Handler
	}{
		{"nil handler", bus.WorkerConfig{}, nil},
		{"negative slots", bus.WorkerConfig{Slots: -1}, ok},
		{"too many slots", bus.WorkerConfig{Slots: 257}, ok},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			requireErrIs(t, c.Work(context.Background(), tc.cfg, tc.h), bus.ErrInvalidConfig)
		})
	}
}

func TestSlotsRunConcurrently(t *testing.T) {
	t.Parallel()
	const slots, jobs = 3, 7
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())

	var running, peak atomic.Int32
	full := make(chan struct{})
	var once sync.Once
	work(t, c, bus.WorkerConfig{Slots: slots}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if n == slots {
			once.Do(func() { close(full) })
		}
		// Hold the slot until all slots were busy at once (or give up, and
		// the assertion below fails).
		select {
		case <-full:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
		}
		return []byte(job.BranchID), nil
	})
	res := results(t, c, "run-slots")
	for i := range jobs {
		publish(t, c, "run-slots", fmt.Sprintf("b%d", i), "")
	}
	seen := map[string]bool{}
	for range jobs {
		seen[nextResult(t, res, 10*time.Second).BranchID] = true
	}
	requireEqual(t, len(seen), jobs, "distinct results")
	requireEqual(t, peak.Load(), int32(slots), "peak concurrent handlers")
}

func TestFailedHandlerIsRedelivered(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())
	var attempts []int
	var mu sync.Mutex
	work(t, c, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		mu.Lock()
		attempts = append(attempts, job.Attempt)
		mu.Unlock()
		switch job.Attempt {
		case 1:
			return nil, errors.New("flaky page")
		case 2:
			panic("handler bug") // recovered, treated as a failure
		}
		return []byte("ok"), nil
	})
	res := results(t, c, "run-retry")
	publish(t, c, "run-retry", "b1", "x")
	r := nextResult(t, res, 10*time.Second)
	requireEqual(t, r.Attempt, 3, "attempt of the result")
	requireEqual(t, r.Header.Get(bus.HeaderAttempt), "3", "attempt header")
	mu.Lock()
	defer mu.Unlock()
	requireEqual(t, fmt.Sprint(attempts), "[1 2 3]", "attempts seen by the handler")
}

func TestHeartbeatsPreventRedelivery(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL(), bus.WithAckWait(time.Second))
	var calls counter
	work(t, c, bus.WorkerConfig{Slots: 2}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		calls.inc(job.BranchID)
		select {
		case <-time.After(2500 * time.Millisecond): // 2.5 x AckWait
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return []byte("slow"), nil
	})
	res := results(t, c, "run-slow")
	publish(t, c, "run-slow", "b1", "")
	r := nextResult(t, res, 10*time.Second)
	requireEqual(t, r.Attempt, 1, "attempt")
	requireEqual(t, calls.get("b1"), 1, "handler calls")
	waitFor(t, 5*time.Second, "job acked", func() bool { return pending(t, c, "run-slow") == 0 })
}

func TestDeadJobs(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL(), bus.WithMaxDeliver(2))
	var calls counter
	work(t, c, bus.WorkerConfig{Slots: 2}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		calls.inc(job.RunID + "/" + job.BranchID)
		if job.BranchID == "good" {
			return []byte("ok"), nil
		}
		return nil, errors.New("poison")
	})
	hdr := nats.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	requireNoErr(t, c.PublishJob(ctx, "run-dead", "poison", []byte("p1"), hdr))
	requireNoErr(t, c.PublishJob(ctx, "run-other", "poison", []byte("p2"), nil))
	publish(t, c, "run-dead", "good", "")

	var dead []bus.Job
	waitFor(t, 10*time.Second, "dead job of run-dead", func() bool {
		jobs, err := c.DeadJobs(ctx, "run-dead")
		requireNoErr(t, err)
		dead = append(dead, jobs...)
		return len(dead) > 0
	})
	requireEqual(t, len(dead), 1, "dead jobs")
	d := dead[0]
	requireEqual(t, d.RunID, "run-dead", "run")
	requireEqual(t, d.BranchID, "poison", "branch")
	requireEqual(t, d.Attempt, 2, "deliveries")
	requireEqual(t, string(d.Data), "p1", "data")
	requireEqual(t, d.Header.Get("Traceparent"), hdr.Get("Traceparent"), "trace header")
	requireEqual(t, calls.get("run-dead/poison"), 2, "handler calls")
	requireEqual(t, pending(t, c, "run-dead"), uint64(0), "pending after collection")

	again, err := c.DeadJobs(ctx, "run-dead")
	requireNoErr(t, err)
	requireEqual(t, len(again), 0, "dead jobs on a second call")

	// The other run's dead job was left for its own caller.
	var other []bus.Job
	waitFor(t, 10*time.Second, "dead job of run-other", func() bool {
		jobs, err := c.DeadJobs(ctx, "run-other")
		requireNoErr(t, err)
		other = append(other, jobs...)
		return len(other) > 0
	})
	requireEqual(t, other[0].BranchID, "poison", "other run's dead branch")
	requireEqual(t, string(other[0].Data), "p2", "other run's dead data")
}

func TestDuplicateJobIsDropped(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())
	for range 3 {
		publish(t, c, "run-dup", "b1", "same")
	}
	publish(t, c, "run-dup", "b2", "other")
	requireEqual(t, pending(t, c, "run-dup"), uint64(2), "queued jobs")

	var calls counter
	work(t, c, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		calls.inc(job.BranchID)
		return nil, nil
	})
	res := results(t, c, "run-dup")
	got := map[string]bool{}
	for range 2 {
		got[nextResult(t, res, 5*time.Second).BranchID] = true
	}
	if !got["b1"] || !got["b2"] {
		t.Fatalf("results for %v, want b1 and b2", got)
	}
	waitFor(t, 5*time.Second, "jobs acked", func() bool { return pending(t, c, "run-dup") == 0 })
	requireEqual(t, calls.get("b1"), 1, "handler calls for b1")
}

func TestCancel(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	orch := connect(t, srv.ClientURL(), bus.WithName("orchestrator"))
	wk := connect(t, srv.ClientURL(), bus.WithName("worker"))

	started := make(chan string, 10)
	type stop struct {
		at    time.Time
		cause error
	}
	stopped := make(chan stop, 10)
	var calls counter
	work(t, wk, bus.WorkerConfig{Slots: 1}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		calls.inc(job.RunID + "/" + job.BranchID)
		started <- job.RunID + "/" + job.BranchID
		if job.RunID == "run-keep" {
			return []byte("kept"), nil
		}
		<-ctx.Done()
		stopped <- stop{time.Now(), context.Cause(ctx)}
		return []byte("must not be published"), nil
	})
	cancelled := results(t, orch, "run-cancel")
	kept := results(t, orch, "run-keep")

	publish(t, orch, "run-cancel", "b1", "")
	select {
	case s := <-started:
		requireEqual(t, s, "run-cancel/b1", "first job")
	case <-time.After(5 * time.Second):
		t.Fatal("first job never started")
	}
	publish(t, orch, "run-cancel", "b2", "") // queued behind b1 (one slot)
	publish(t, orch, "run-keep", "b1", "")
	requireEqual(t, pending(t, orch, "run-cancel"), uint64(2), "pending before cancel")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t0 := time.Now()
	requireNoErr(t, orch.Cancel(ctx, "run-cancel"))
	select {
	case s := <-stopped:
		if d := s.at.Sub(t0); d > 100*time.Millisecond {
			t.Errorf("handler context cancelled %s after Cancel, want within 100ms", d)
		}
		requireErrIs(t, s.cause, bus.ErrRunCancelled)
	case <-time.After(time.Second):
		t.Fatal("handler context not cancelled")
	}
	requireEqual(t, pending(t, orch, "run-cancel"), uint64(0), "pending after cancel")

	// The other run is unaffected, and runs after the cancelled one.
	requireEqual(t, string(nextResult(t, kept, 5*time.Second).Data), "kept", "other run's result")

	// A job of the cancelled run published late is terminated, not run.
	publish(t, orch, "run-cancel", "b3", "")
	waitFor(t, 5*time.Second, "late job terminated", func() bool { return pending(t, orch, "run-cancel") == 0 })
	select {
	case r := <-cancelled:
		t.Fatalf("cancelled run published a result: %+v", r)
	default:
	}
	for _, b := range []string{"b2", "b3"} {
		requireEqual(t, calls.get("run-cancel/"+b), 0, "handler calls for cancelled "+b)
	}
}

func TestTwoClientsShareJobs(t *testing.T) {
	t.Parallel()
	const jobs = 20
	srv, _ := startServer(t)
	orch := connect(t, srv.ClientURL())
	var calls counter
	perWorker := make([]atomic.Int32, 2)
	for i := range 2 {
		wk := connect(t, srv.ClientURL(), bus.WithName(fmt.Sprintf("worker-%d", i)))
		work(t, wk, bus.WorkerConfig{Slots: 2}, func(ctx context.Context, job bus.Job) ([]byte, error) {
			calls.inc(job.BranchID)
			perWorker[i].Add(1)
			time.Sleep(5 * time.Millisecond) // a little work, so both get some
			return []byte(strconv.Itoa(i)), nil
		})
	}
	res := results(t, orch, "run-shared")
	for i := range jobs {
		publish(t, orch, "run-shared", fmt.Sprintf("b%02d", i), "")
	}
	for range jobs {
		nextResult(t, res, 10*time.Second)
	}
	waitFor(t, 5*time.Second, "all jobs acked", func() bool { return pending(t, orch, "run-shared") == 0 })
	snap := calls.snapshot()
	requireEqual(t, len(snap), jobs, "distinct branches handled")
	for b, n := range snap {
		requireEqual(t, n, 1, "deliveries of "+b)
	}
	for i := range perWorker {
		if perWorker[i].Load() == 0 {
			t.Errorf("worker %d ran no job", i)
		}
	}
}

func TestWorkStopsOnContextEnd(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())
	ctx, cancel := context.WithCancel(context.Background())
	running := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- c.Work(ctx, bus.WorkerConfig{}, func(hctx context.Context, job bus.Job) ([]byte, error) {
			close(running)
			<-hctx.Done()
			return nil, hctx.Err()
		})
	}()
	publish(t, c, "run-stop", "b1", "")
	<-running
	cancel()
	select {
	case err := <-errc:
		requireNoErr(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Work did not return")
	}
	// The interrupted job was released, not lost.
	requireEqual(t, pending(t, c, "run-stop"), uint64(1), "pending after shutdown")
	res := results(t, c, "run-stop")
	work(t, c, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		return []byte("second worker"), nil
	})
	r := nextResult(t, res, 5*time.Second)
	requireEqual(t, r.Attempt, 2, "attempt after release")
}
