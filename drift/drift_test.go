package drift_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/drift"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

var (
	open   = branch.Action{Kind: branch.KindNavigate, URL: "http://shop.test/"}
	choose = branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: "plan-team", Role: "button", Name: "Choose Team"}}
	seats  = branch.Action{Kind: branch.KindType, Target: &branch.Target{Field: "seats"}, Input: "seats"}
)

// step is one action_end of a synthetic run's branch.
type step struct {
	n        int
	status   string
	strategy string
	ms       int64
	replayed bool
}

// addRun writes a run of task whose branch ran plan with the given steps,
// started at t0.
func addRun(t *testing.T, l *eventlog.Log, task string, t0 time.Time, plan branch.Plan, steps ...step) {
	t.Helper()
	run, br := ulid.Make().String(), ulid.Make().String()
	ev := func(kind, branchID string, p any) eventlog.Event {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return eventlog.Event{RunID: run, Time: t0, Kind: kind, BranchID: branchID, Payload: b}
	}
	es := []eventlog.Event{ev(eventlog.KindRunStart, "", payload.RunStart{Task: task, Seed: "1"}),
		ev(eventlog.KindBranchFork, br, payload.BranchFork{Plan: plan, Depth: len(plan)})}
	for _, s := range steps {
		es = append(es, ev(eventlog.KindActionEnd, br, payload.ActionEnd{Step: s.n, Status: s.status, Strategy: s.strategy,
			DurationMS: s.ms, Replayed: s.replayed}))
	}
	if _, err := l.AppendBatch(context.Background(), es); err != nil {
		t.Fatal(err)
	}
}

// TestReport: two runs before a test-id drift find the Choose Team button
// by its test id, two after need the role and name; the seats field never
// drifts but its step grows slower; a replayed step and a navigation are
// not targets; another task's run is left out with --task.
func TestReport(t *testing.T) {
	l, err := eventlog.Open(context.Background(), filepath.Join(t.TempDir(), "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	plan := branch.Plan{open, choose, seats}
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, healed := range []bool{false, false, true, true} {
		choice := step{2, branch.StatusOK, "testid", 100, false}
		if healed {
			choice = step{2, branch.StatusHealed, "role", 120, false}
		}
		ms := int64(150)
		if i >= 2 {
			ms = 600
		}
		addRun(t, l, "checkout", t0.Add(time.Duration(i)*time.Hour), plan,
			step{1, branch.StatusOK, "", 300, false}, choice, step{3, branch.StatusOK, "field", ms, false})
	}
	addRun(t, l, "other", t0.Add(5*time.Hour), plan, step{2, branch.StatusHealed, "text", 100, true})

	rep, err := drift.Build(context.Background(), l, drift.Options{Task: "checkout"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 4 || rep.Targets != 2 {
		t.Fatalf("runs %d targets %d, want 4 and 2: %+v", rep.Runs, rep.Targets, rep)
	}
	if len(rep.Healed) != 1 {
		t.Fatalf("healed targets %+v, want the Choose Team button", rep.Healed)
	}
	h := rep.Healed[0]
	if h.Selector != "testid=plan-team" || h.Healed != 2 || h.Runs != 4 || h.Strategies["role"] != 2 || h.Fragility != 0.5 {
		t.Errorf("healed target %+v", h)
	}
	if len(h.History) != 4 || h.History[0].Healed || !h.History[3].Healed || !h.LastNamed.Before(h.FirstHealed) {
		t.Errorf("history %+v: want named twice, then healed", h.History)
	}
	if len(rep.Fragile) != 1 || rep.Fragile[0].Selector != "testid=plan-team" {
		t.Errorf("fragile %+v", rep.Fragile)
	}
	if len(rep.Slower) != 1 || rep.Slower[0].Selector != "field=seats" || rep.Slower[0].BeforeMS != 150 || rep.Slower[0].AfterMS != 600 {
		t.Errorf("slower %+v, want the seats step 150 -> 600 ms", rep.Slower)
	}

	all, err := drift.Build(context.Background(), l, drift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if all.Runs != 5 || all.Steps != 8 {
		t.Errorf("every task: %d runs, %d steps; want 5 and 8 (the replayed step is no use)", all.Runs, all.Steps)
	}
}
