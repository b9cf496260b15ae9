package simweb

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
)

func jobFor(t testing.TB, s *Site, spec *job.Spec) *job.Job {
	t.Helper()
	plan, err := s.Solution()
	if err != nil {
		t.Fatal(err)
	}
	return &job.Job{RunID: "run1", BranchID: "b1", Plan: plan, PlanDigest: "d", Spec: spec}
}

func TestExecutorHandle(t *testing.T) {
	a, b := Generate(1, DefaultConfig()), Generate(2, DefaultConfig())
	e := NewExecutor(a, b)
	spec := mustSpec(t, b)
	j := jobFor(t, b, spec)
	data, err := j.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Handle(context.Background(), job.Delivery{RunID: "run1", BranchID: "b1", Attempt: 2, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	res, err := job.DecodeResult(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := b.Execute(j.Plan, spec)
	want.RunID, want.BranchID, want.Attempt, want.V = "run1", "b1", 2, job.WireVersion
	x, _ := json.Marshal(res)
	y, _ := json.Marshal(want)
	if string(x) != string(y) || !res.AtBoundary {
		t.Fatalf("handled result differs from Execute:\n%s\n%s", x, y)
	}

	cases := []struct {
		name string
		data []byte
		code branch.Code
	}{
		{"garbage", []byte("{not json"), "bad_job"},
		{"unknown origin", func() []byte {
			other := *spec
			other.Origin = "http://sim-999.test"
			j := jobFor(t, b, &other)
			d, _ := j.Encode()
			return d
		}(), CodeNoSite},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := e.Handle(context.Background(), job.Delivery{RunID: "run1", BranchID: "b2", Attempt: 1, Data: c.data})
			if err != nil {
				t.Fatal(err)
			}
			res, err := job.DecodeResult(out)
			if err != nil || res.Status != job.ResultFailed || res.ErrCode != c.code || res.BranchID == "" || res.RunID != "run1" {
				t.Fatalf("result %+v, error %v", res, err)
			}
		})
	}
}

func TestExecutorLatency(t *testing.T) {
	s := Generate(3, DefaultConfig())
	e := NewExecutor(s)
	e.LatencyScale = 1000 // minutes of sleep: only cancellation ends it
	data, _ := jobFor(t, s, mustSpec(t, s)).Encode()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Handle(ctx, job.Delivery{RunID: "run1", BranchID: "b1", Attempt: 1, Data: data})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled sleep returned a result")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Handle did not return after its context ended")
	}
}
