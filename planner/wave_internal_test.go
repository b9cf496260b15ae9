package planner

import (
	"reflect"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestPageVerdict: the rules that read a branch's own page apply in their
// order, and only one at a time: a guarded request before a login page,
// the task's failure predicates before a dead end, a dead end before an
// HTTP error.
func TestPageVerdict(t *testing.T) {
	tk := &task.Task{Goal: task.Goal{Failure: []scoring.Predicate{{Name: "sold_out"}}}}
	obs := func(status int, preds map[string]bool, deadEnds ...string) *branch.Observation {
		return &branch.Observation{URL: "{origin}/p", Status: status, Predicates: preds, DeadEnds: deadEnds}
	}
	for _, tc := range []struct {
		name   string
		o      Outcome
		rule   string
		failed bool
		fired  []string
	}{
		{"nothing applies", Outcome{OK: true, Obs: obs(200, map[string]bool{"x": true})}, "", false, nil},
		{"guard first", Outcome{OK: true, Blocked: []string{"POST /orders"}, Obs: obs(500, map[string]bool{task.LoginPagePredicate: true, "sold_out": true}, "empty")}, RuleGuardBlocked, false, nil},
		{"login page", Outcome{OK: true, Obs: obs(200, map[string]bool{task.LoginPagePredicate: true, "sold_out": true})}, RuleAuthRequired, true, nil},
		{"task failure", Outcome{OK: true, Obs: obs(404, map[string]bool{"sold_out": true}, "empty")}, RuleGoalFailed, true, []string{"sold_out"}},
		{"dead end", Outcome{OK: true, Obs: obs(404, map[string]bool{}, "empty")}, RuleDeadEnd, false, nil},
		{"http error", Outcome{OK: true, Obs: obs(404, map[string]bool{})}, RuleHTTPError, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := pageVerdict(tk, &tc.o)
			if ok != (tc.rule != "") || v.Rule != tc.rule || v.Failed != tc.failed || !reflect.DeepEqual(v.Fired, tc.fired) {
				t.Errorf("pageVerdict = %+v %v, want rule %q failed %v fired %v", v, ok, tc.rule, tc.failed, tc.fired)
			}
			if ok && len(v.Detail) == 0 {
				t.Errorf("rule %s has no detail", v.Rule)
			}
		})
	}
}

// TestStallCount: a step without progress adds one to its parent's
// count; filling a field, paging on and a named step that changed the
// page do not; progress keeps the branch's own count.
func TestStallCount(t *testing.T) {
	parent := &Node{Stall: 2, Outcome: &Outcome{Obs: &branch.Observation{DOMHash: "a", URL: "u"}}}
	node := func(a branch.Action, progress float64, mod func(*Node)) *Node {
		n := &Node{Parent: parent, Plan: branch.Plan{a}, Score: scoring.Vector{Progress: progress},
			Outcome: &Outcome{Obs: &branch.Observation{DOMHash: "b", URL: "u"}}}
		if mod != nil {
			mod(n)
		}
		return n
	}
	click := branch.Action{Kind: branch.KindClick}
	for _, tc := range []struct {
		name string
		n    *Node
		want int
	}{
		{"no progress", node(click, 0.5, nil), 3},
		{"progress", node(click, 0.6, nil), 0},
		{"typed", node(branch.Action{Kind: branch.KindType}, 0.5, nil), 0},
		{"an input applied", node(branch.Action{Kind: branch.KindClick, Input: "qty"}, 0.5, nil), 0},
		{"paging on", node(click, 0.5, func(n *Node) { n.Onward = true }), 0},
		{"named step that changed the page", node(click, 0.5, func(n *Node) { n.Named = true }), 0},
		{"named step that changed nothing", node(click, 0.5, func(n *Node) { n.Named = true; n.Outcome.Obs.DOMHash = "a" }), 3},
		{"root", &Node{Stall: 0, Plan: branch.Plan{click}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stallCount(tc.n, 0.5); got != tc.want {
				t.Errorf("stallCount = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestLagCount: trailing the wave's best by more than LagMargin adds one
// to the parent's count; within the margin the count stays.
func TestLagCount(t *testing.T) {
	parent := &Node{Lag: 1}
	for _, tc := range []struct {
		name string
		n    *Node
		best float64
		want int
	}{
		{"within the margin", &Node{Parent: parent, Lag: 0, Score: scoring.Vector{J: 1 - defaults.LagMargin}}, 1, 0},
		{"trailing", &Node{Parent: parent, Score: scoring.Vector{J: 1 - defaults.LagMargin - 0.01}}, 1, 2},
		{"trailing at the root", &Node{Score: scoring.Vector{J: 0}}, 1, 1},
		{"the best", &Node{Parent: parent, Lag: 0, Score: scoring.Vector{J: 1}}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := defaults.lagCount(tc.n, tc.best); got != tc.want {
				t.Errorf("lagCount = %d, want %d", got, tc.want)
			}
		})
	}
}

// defaults is the tuning the tests expect: the one every run uses.
var defaults = DefaultWeights()
