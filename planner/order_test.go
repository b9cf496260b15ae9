package planner

import (
	"fmt"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestWhere: a part of the goal is placed where its words first stand in
// a row, else where the first of them stands.
func TestWhere(t *testing.T) {
	g := ParseGoal("Get email about Billing and Maintenance windows, then save.")
	cases := []struct {
		words []string
		want  int
	}{
		{[]string{"billing"}, 16},
		{[]string{"maintenance", "windows"}, 28},
		{[]string{"window"}, 40}, // by its stem
		{[]string{"surveys"}, -1},
		{nil, -1},
	}
	for _, c := range cases {
		if got := g.where(c.words); got != c.want {
			t.Errorf("where(%v) = %d, want %d", c.words, got, c.want)
		}
	}
	if n := len(g.Steps); n != 1 || g.Steps[0].At != 54 {
		t.Errorf("steps %+v, want one at 54 (save)", g.Steps)
	}
}

// TestGoalOrder: a step the goal says last ("then save") ranks below the
// boxes it names before it while any of them is unticked, and comes first
// once all are ticked; a goal that says the step first keeps it first.
func TestGoalOrder(t *testing.T) {
	names := []string{"Billing", "Outages", "Security advisories", "Product news", "Webinars", "Maintenance windows",
		"Invoices", "Team invitations", "Weekly digest", "Surveys", "Partner offers", "Release notes"}
	page := func(ticked map[string]bool) *branch.Observation {
		obs := &branch.Observation{URL: "http://site.test/prefs"}
		for i, n := range names {
			obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "checkbox", Region: "main", Form: -1, Checked: ticked[n],
				Target: branch.Target{Role: "checkbox", Name: n, CSS: fmt.Sprintf("#t%d", i)}})
		}
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "button", Region: "main", Form: -1,
			Target: branch.Target{Role: "button", Name: "Save preferences", CSS: "#save"}})
		return obs
	}
	first := func(goal string, ticked map[string]bool) string {
		p, err := NewProposer(&task.Task{Goal: task.Goal{Text: goal}})
		if err != nil {
			t.Fatal(err)
		}
		cs := p.Propose(page(ticked), History{})
		if len(cs) == 0 {
			t.Fatalf("%q: no candidates", goal)
		}
		return cs[0].Action.Target.Describe() // nil-safe: a key press has no target
	}
	goal := "Get email about Billing, Outages, Maintenance windows and Surveys only, then save."
	if got := first(goal, nil); got == `button "Save preferences"` {
		t.Errorf("%q, nothing ticked: the save comes first", goal)
	}
	if got := first(goal, map[string]bool{"Billing": true, "Outages": true, "Surveys": true}); got != `checkbox "Maintenance windows"` {
		t.Errorf("%q, one box left: first %q, want Maintenance windows", goal, got)
	}
	if got := first(goal, map[string]bool{"Billing": true, "Outages": true, "Maintenance windows": true, "Surveys": true}); got != `button "Save preferences"` {
		t.Errorf("%q, all ticked: first %q, want the save", goal, got)
	}
	if got := first("Click Save preferences, then tick Billing.", nil); got != `button "Save preferences"` {
		t.Errorf("a goal that says save first: first %q", got)
	}
}

// TestSureFieldFirst: on a form whose fields are named by labels beside
// them ("Job title: Manager, Postcode: 13008. Save changes."), the field
// a value surely belongs to is filled first, before guesses into the
// fields nothing names and before the save the goal says last; a field's
// own name is no value for any field.
func TestSureFieldFirst(t *testing.T) {
	obs := &branch.Observation{URL: "http://x.test/"}
	for i, n := range []string{"Company", "Postcode", "Job title", "Email"} {
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "textbox", InputType: "text", Region: "main", Form: 0,
			Target: branch.Target{Hint: n, Field: fmt.Sprintf("f_%d", i), CSS: fmt.Sprintf("#f%d", i)}})
	}
	obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "button", Region: "main", Form: 0,
		Target: branch.Target{Role: "button", Name: "Save changes", CSS: "#save"}})
	p, err := NewProposer(&task.Task{Goal: task.Goal{Text: "Job title: Manager, Postcode: 13008. Save changes."}})
	if err != nil {
		t.Fatal(err)
	}
	cs := p.Propose(obs, History{})
	if len(cs) == 0 || cs[0].Action.Target == nil || cs[0].Action.Target.CSS != "#f1" || cs[0].Action.Value != "13008" {
		t.Fatalf("top candidate %+v, want 13008 into Postcode", cs)
	}
	for _, c := range cs {
		if c.Action.Value == "Postcode" || c.Action.Target != nil && c.Action.Target.CSS == "#f0" && c.Prior >= cs[0].Prior {
			t.Errorf("%s proposed (%s)", c.Action.Describe(), c.Reason)
		}
	}
}
