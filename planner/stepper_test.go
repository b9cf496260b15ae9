package planner

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestStepperMovesTowardsTheValue: "set adults to 4" on a row showing 2
// between a minus and a plus button clicks that row's plus, not another
// row's, and nothing once the row reads 4.
func TestStepperMovesTowardsTheValue(t *testing.T) {
	page := func(adults string) *branch.Observation {
		row := func(name, n, css string) []branch.Affordance {
			near := name + " " + n
			return []branch.Affordance{
				{Kind: "button", Region: "main", Form: 0, Target: branch.Target{Hint: "minus", Near: near, CSS: css + " > button:nth-of-type(1)"}},
				{Kind: "button", Region: "main", Form: 0, Target: branch.Target{Hint: "plus", Near: near, CSS: css + " > button:nth-of-type(2)"}},
			}
		}
		obs := &branch.Observation{URL: "http://hotel.test/"}
		obs.Affordances = append(obs.Affordances, row("Adults", adults, "#r0")...)
		obs.Affordances = append(obs.Affordances, row("Rooms", "2", "#r1")...)
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "button", Region: "main", Form: 0,
			Target: branch.Target{Role: "button", Name: "Continue", CSS: "#go"}})
		return obs
	}
	p, err := NewProposer(&task.Task{Goal: task.Goal{Text: "Set adults to 4 and click Continue."}})
	if err != nil {
		t.Fatal(err)
	}
	cands := p.Propose(page("2"), History{})
	if len(cands) == 0 || cands[0].Action.Target.CSS != "#r0 > button:nth-of-type(2)" {
		t.Fatalf("top candidate %+v, want the Adults row's plus", cands[0])
	}
	for _, c := range p.Propose(page("4"), History{}) {
		if c.Reason != restReason && c.Prior >= stepperPrior && c.Action.Target != nil && c.Action.Target.CSS != "#go" {
			t.Errorf("with the count at 4, %s is still proposed (%s)", c.Action.Describe(), c.Reason)
		}
	}
}
