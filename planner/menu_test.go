package planner

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestMenuIsCompleteAndSafe: the menu lists what the goal's words do not
// point at (another option of a select, the other state of a box) after
// every proposed candidate, and nothing risky, whichever construction
// would offer it.
func TestMenuIsCompleteAndSafe(t *testing.T) {
	obs := &branch.Observation{URL: "http://shop.test/settings", Affordances: []branch.Affordance{
		{Kind: "select", Region: "main", Form: 0, Value: "en", Target: branch.Target{Name: "Language", CSS: "#lang"},
			Options: []branch.Option{{Value: "en", Text: "English", Selected: true}, {Value: "de", Text: "Deutsch"}}},
		{Kind: "checkbox", Region: "main", Form: 0, Target: branch.Target{Role: "checkbox", Name: "Newsletter", CSS: "#news"}},
		{Kind: "checkbox", Region: "main", Form: 0, Target: branch.Target{Role: "checkbox", Name: "Delete my account", CSS: "#del"}},
		{Kind: "button", Region: "main", Form: 0, Submit: true, Target: branch.Target{Role: "button", Name: "Save settings", CSS: "#save"}},
	}}
	p, err := NewProposer(&task.Task{Goal: task.Goal{Text: "Save the settings"}, RiskPatterns: task.DefaultRiskPatterns})
	if err != nil {
		t.Fatal(err)
	}
	cands := p.Propose(obs, History{})
	has := map[string]bool{}
	seenRest := false
	for _, c := range cands {
		has[c.Action.Kind+" "+c.Action.Target.CSS+" "+c.Action.Value] = true
		if c.Reason == restReason {
			seenRest = true
		} else if seenRest {
			t.Errorf("%s (prior %.2f) follows a rest entry", c.Action.Describe(), c.Prior)
		}
		if c.Action.Target != nil && c.Action.Target.CSS == "#del" {
			t.Errorf("the menu offers %s", c.Action.Describe())
		}
	}
	for _, want := range []string{"select #lang de", "check #news true", "click #save "} {
		if !has[want] {
			t.Errorf("the menu lacks %q: %v", want, has)
		}
	}
}
