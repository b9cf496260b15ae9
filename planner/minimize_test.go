package planner

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// detourWinner builds a winner whose plan visits the docs, the pricing
// page and the checkout before it types the seats and continues: in the
// test site's model a link leads where it points from any page and the
// seats can be typed anywhere, so the three visits are detours; the
// seats typed are needed.
func detourWinner(t *testing.T) (*Search, *Node) {
	t.Helper()
	id := 0
	s := NewSearch(loadTask(t), nil, func() string { id++; return fmt.Sprintf("b%03d", id) })
	n := s.Root()
	steps := []branch.Action{
		{Kind: branch.KindClick, Target: &branch.Target{Role: "link", Name: "Docs", CSS: "a[href='/docs']"}},
		{Kind: branch.KindClick, Target: &branch.Target{Role: "link", Name: "Pricing", CSS: "a[href='/pricing']"}},
		{Kind: branch.KindClick, Target: &branch.Target{Role: "link", Name: "Choose Team", CSS: "a[href='/checkout']"}},
		{Kind: branch.KindType, Target: &branch.Target{ID: "seats"}, Input: "seats"},
		{Kind: branch.KindClick, Target: &branch.Target{Role: "button", Name: "Continue", CSS: "#go"}},
	}
	for _, a := range steps {
		n = s.fork(n, n.Plan.Extend(a), Candidate{Prior: 1})
	}
	for _, x := range s.Nodes() {
		o := simulate(x.Plan)
		x.Outcome, x.State = &o, StateExplored
	}
	n.State, n.Score.Progress = StateBoundary, 1
	s.Drain()
	return s, n
}

// TestAblation: each middle step that writes no value is tried alone
// (the typed seats are the task's and never tried without); the three
// detours are not needed; the plan without all three is tried next and is
// the minimal plan.
func TestAblation(t *testing.T) {
	s, w := detourWinner(t)
	tries := s.Ablate(w)
	if len(tries) != 3 {
		t.Fatalf("%d tries, want one per middle step but the typed seats (3)", len(tries))
	}
	for _, n := range tries {
		s.Complete(n, simulate(n.Plan))
	}
	next, min := s.EndAblation(w, tries)
	if min != nil || len(next) != 1 {
		t.Fatalf("after the single tries: next %d, minimal %+v; want one more try", len(next), min)
	}
	if got := next[0].Ablation.Removed; !reflect.DeepEqual(got, []int{2, 3, 4}) {
		t.Fatalf("second try removes %v, want [2 3 4]", got)
	}
	s.Complete(next[0], simulate(next[0].Plan))
	next2, min := s.EndAblation(w, next)
	if len(next2) != 0 || min == nil || min.Node != next[0] || len(min.Node.Plan) != 3 || !reflect.DeepEqual(min.Removed, []int{2, 3, 4}) {
		t.Fatalf("minimal %+v, want the 3-step plan of the second try", min)
	}
	results := map[string]AblationResult{}
	for _, e := range s.Drain() {
		if e.Kind == EventAblation {
			results[fmt.Sprint(e.Ablation.Removed)] = *e.Ablation
		}
	}
	for removed, needed := range map[string]bool{"[2]": false, "[3]": false, "[4]": false, "[2 3 4]": false} {
		r, ok := results[removed]
		if !ok || r.Needed != needed || r.Credit != 0 || r.Actions[0] != w.Plan[r.Removed[0]-1].Describe() {
			t.Errorf("ablation %s: %+v, want needed %v, no credit, the step named", removed, r, needed)
		}
	}
	if _, tried := results["[5]"]; tried {
		t.Error("the typed seats were tried without")
	}
}

// TestAblationKeepsFieldValues: a try that ends at the boundary with the
// same intent but a field holding another value (an optional field the
// winner filled) shows the step was needed: a commit sends what the form
// holds.
func TestAblationKeepsFieldValues(t *testing.T) {
	s, w := detourWinner(t)
	field := func(v string) branch.Affordance {
		return branch.Affordance{Kind: branch.ElemTextbox, Form: 0, Value: v, Target: branch.Target{Field: "note"}}
	}
	w.Outcome.Obs.Affordances = append(w.Outcome.Obs.Affordances, field("rush"))
	tries := s.Ablate(w)
	for _, n := range tries {
		o := simulate(n.Plan)
		o.Obs.Affordances = append(o.Obs.Affordances, field(""))
		s.Complete(n, o)
	}
	_, min := s.EndAblation(w, tries)
	if min == nil || min.Node != w || len(min.Removed) != 0 {
		t.Fatalf("minimal %+v: want the winner itself (every try left the note empty)", min)
	}
	for _, n := range tries {
		if n.Prune == nil || n.Prune.Rule != RuleStepNeeded {
			t.Errorf("try %v: %+v, want pruned step_needed", n.Ablation.Removed, n.Prune)
		}
	}
}
