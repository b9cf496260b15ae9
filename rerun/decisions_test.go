package rerun

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

func ev(seq int64, kind, branch string, p any) eventlog.Event {
	raw, _ := json.Marshal(p)
	return eventlog.Event{Seq: seq, Kind: kind, BranchID: branch, Payload: raw}
}

// run is a small recorded search: a root, two children, one pruned, a
// winner; ids are the run's own.
func run(ids [3]string, rule string, j float64) []eventlog.Event {
	return []eventlog.Event{
		ev(1, eventlog.KindRunStart, "", map[string]any{}),
		ev(2, eventlog.KindBranchFork, ids[0], map[string]any{"plan_digest": "d0", "action": "open the start page", "prior": 1}),
		ev(3, eventlog.KindMetricUpdate, ids[0], map[string]any{"score": map[string]any{"j": 0.1, "progress": 0}}),
		ev(4, eventlog.KindBranchFork, ids[1], map[string]any{"parent": ids[0], "plan_digest": "d1", "action": "click A", "prior": 0.5}),
		ev(5, eventlog.KindBranchFork, ids[2], map[string]any{"parent": ids[0], "plan_digest": "d2", "action": "click B", "prior": 0.4}),
		ev(6, eventlog.KindNet, ids[1], map[string]any{"url": "http://x/"}),
		ev(7, eventlog.KindMetricUpdate, ids[1], map[string]any{"score": map[string]any{"j": j, "progress": 0.5}}),
		ev(8, eventlog.KindBranchPruned, ids[2], map[string]any{"rule": rule, "state": "pruned", "plan_digest": "d2"}),
		ev(9, eventlog.KindBeamWidth, "", map[string]any{"from": 4, "to": 2}),
		ev(10, eventlog.KindWinner, ids[1], map[string]any{"ranking": []any{map[string]any{"branch_id": ids[1], "plan_digest": "d1"}}}),
	}
}

func TestCompareAcrossRuns(t *testing.T) {
	a, err := Decisions(run([3]string{"A0", "A1", "A2"}, "duplicate_state", 0.5))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 8 || a[2].Parent != "d0" || a[7].What != "d1" || a[6].What != "width 4 -> 2" {
		t.Fatalf("decisions = %v", a)
	}
	b, _ := Decisions(run([3]string{"B0", "B1", "B2"}, "duplicate_state", 0.5))
	if c := Compare(a, b); !c.Same || c.First != -1 || c.WinnerOriginal != "d1" || c.WinnerRerun != "d1" {
		t.Fatalf("the same search under other ids compares as %+v", c)
	}
	d, _ := Decisions(run([3]string{"C0", "C1", "C2"}, "stalled", 0.7))
	c := Compare(a, d)
	if c.Same || c.First != 4 || c.Want.Kind != "score" || !strings.Contains(c.Got.What, "J=0.700") {
		t.Fatalf("first difference = %+v / %+v at %d", c.Want, c.Got, c.First)
	}
	if len(c.OnlyOriginal) != 2 || len(c.OnlyRerun) != 2 {
		t.Fatalf("only original %v, only rerun %v", c.OnlyOriginal, c.OnlyRerun)
	}
	var b2 strings.Builder
	c.Print(&b2, 10)
	for _, want := range []string{"the first that differs is #5", "winner     the same: d1", "only recorded: 1 choices, 1 scores", "prune d2 stalled (pruned)"} {
		if !strings.Contains(b2.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b2.String())
		}
	}
	// The plan minimization's tries after the search are left out: a
	// rerun minimizes nothing.
	minimized := append(run([3]string{"M0", "M1", "M2"}, "duplicate_state", 0.5),
		ev(11, eventlog.KindBranchFork, "M3", map[string]any{"parent": "M0", "plan_digest": "d3", "action": "click A", "removed": []int{2}}),
		ev(12, eventlog.KindMetricUpdate, "M3", map[string]any{"score": map[string]any{"j": 0.2, "progress": 0.2}}),
		ev(13, eventlog.KindBranchPruned, "M3", map[string]any{"rule": "step_needed", "state": "pruned", "plan_digest": "d3"}))
	if m, err := Decisions(minimized); err != nil || !Compare(a, m).Same {
		t.Fatalf("a run that minimized its winner's plan: %v %v", m, err)
	}
	short := Compare(a, a[:5])
	if short.Same || short.First != 5 || short.Got != nil {
		t.Fatalf("a rerun that stopped early: %+v", short)
	}
	bad := run([3]string{"A0", "A1", "A2"}, "x", 0)
	bad[3].Payload = []byte(`{"plan_digest": 3}`)
	if _, err := Decisions(bad); err == nil || !strings.Contains(err.Error(), "event #4") {
		t.Fatalf("a payload that does not decode: %v", err)
	}
}
