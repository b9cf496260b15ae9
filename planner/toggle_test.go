package planner

import (
	"fmt"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestToggleNamedByTheGoal: a box whose label the goal holds without a
// verb that names it is a candidate tick; a box the goal does not name,
// or one ticked already, is not.
func TestToggleNamedByTheGoal(t *testing.T) {
	page := &branch.Observation{URL: "http://cms.test/users/7"}
	for i, n := range []string{"Administrators", "Editors", "Authors"} {
		page.Affordances = append(page.Affordances, branch.Affordance{Kind: "checkbox", Region: "main", Form: 0, Checked: n == "Authors",
			Target: branch.Target{Role: "checkbox", Name: n, CSS: fmt.Sprintf("#g%d", i)}})
	}
	page.Affordances = append(page.Affordances, branch.Affordance{Kind: "button", Region: "main", Form: 0, Submit: true,
		Target: branch.Target{Role: "button", Name: "Save", CSS: "#save"}})
	for _, goal := range []string{"Add the user to the group Editors and Authors", "Put this user in Editors"} {
		p, err := NewProposer(&task.Task{Goal: task.Goal{Text: goal}})
		if err != nil {
			t.Fatal(err)
		}
		ticks := map[string]bool{}
		for _, c := range p.Propose(page, History{}) {
			if c.Action.Kind == branch.KindCheck && c.Reason != restReason {
				ticks[c.Action.Target.Name] = true
			}
		}
		if !ticks["Editors"] || ticks["Administrators"] || ticks["Authors"] {
			t.Errorf("%q: ticks proposed %v, want Editors only (Authors is ticked already)", goal, ticks)
		}
	}
}

// TestRequiredBoxIsTicked: a box its form requires (the attribute, or an
// asterisk on its label) is a candidate tick the goal need not mention.
func TestRequiredBoxIsTicked(t *testing.T) {
	page := &branch.Observation{URL: "http://site.test/contact", Affordances: []branch.Affordance{
		{Kind: "checkbox", Region: "main", Form: 0, Target: branch.Target{Role: "checkbox", Name: "I agree to the privacy policy *", CSS: "#consent"}},
		{Kind: "checkbox", Region: "main", Form: 0, Required: true, Target: branch.Target{Role: "checkbox", Name: "I am over 18", CSS: "#age"}},
		{Kind: "checkbox", Region: "main", Form: 0, Target: branch.Target{Role: "checkbox", Name: "Send me offers", CSS: "#offers"}},
	}}
	p, err := NewProposer(&task.Task{Goal: task.Goal{Text: "Contact the site about Press"}})
	if err != nil {
		t.Fatal(err)
	}
	ticks := map[string]bool{}
	for _, c := range p.Propose(page, History{}) {
		if c.Action.Kind == branch.KindCheck && c.Reason != restReason {
			ticks[c.Action.Target.CSS] = true
		}
	}
	if !ticks["#consent"] || !ticks["#age"] || ticks["#offers"] {
		t.Errorf("ticks %v, want the two required boxes only", ticks)
	}
}
