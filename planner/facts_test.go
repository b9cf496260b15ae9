package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// catalogue is a price list the way a shop's back office shows one: a
// table cell by its product and its column's header.
var catalogue = []branch.Fact{
	{Key: "Harbor Lamp SKU", Value: "HL-204"}, {Key: "Harbor Lamp Price", Value: "$48.00"}, {Key: "Harbor Lamp Stock", Value: "12"},
	{Key: "Reading Lamp SKU", Value: "RL-118"}, {Key: "Reading Lamp Price", Value: "$31.50"}, {Key: "Reading Lamp Stock", Value: "4"},
	{Key: "Order number", Value: "A-4521"}, {Key: "Placed", Value: "March 3, 2026"},
}

// TestPageValues: a type step that names its value by what the page
// states types the value of the fact it names best; several that it names
// alike branch; a step that spells its value or names a task input is
// not read from the page.
func TestPageValues(t *testing.T) {
	headless := []branch.Fact{{Key: "Mercury", Value: "0.39"}, {Key: "Mercury", Value: "88"}, {Key: "Venus", Value: "0.72"}}
	cases := []struct {
		name   string
		goal   string
		facts  []branch.Fact
		inputs map[string]task.Input
		want   []string // the values typed into the field, best first
	}{
		{"row and column", "Enter the price of the Harbor Lamp into the Amount field and click Save.", catalogue, nil, []string{"$48.00"}},
		{"column first", "Type the Reading Lamp's stock level into Amount, then save.", catalogue, nil, []string{"4"}},
		{"label line", "Enter the order number into the Amount field.", catalogue, nil, []string{"A-4521"}},
		{"pronoun", "Find the SKU of the Reading Lamp and enter it in the Amount field.", catalogue, nil, []string{"RL-118"}},
		{"in the table for", "Enter the value in the table for Mercury into the Amount field and press Save.", headless, nil, []string{"0.39", "88"}},
		{"spelled", "Enter \"HL-999\" into the Amount field.", catalogue, nil, []string{"HL-999"}},
		{"task input", "Enter the order number into the Amount field.", catalogue,
			map[string]task.Input{"order number": {Value: "Z-1"}}, []string{"input:order number"}},
		{"not on the page", "Enter the tracking code into the Amount field.", catalogue, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs := &branch.Observation{URL: "http://x.test/", Facts: c.facts, Affordances: []branch.Affordance{
				{Kind: "textbox", InputType: "text", Region: "main", Form: 0, Target: branch.Target{Name: "Amount", Field: "amount", CSS: "#amount"}},
				{Kind: "button", Region: "main", Form: 0, Submit: true, Target: branch.Target{Role: "button", Name: "Save", CSS: "#save"}},
			}}
			p, err := NewProposer(&task.Task{Goal: task.Goal{Text: c.goal}, Inputs: c.inputs})
			if err != nil {
				t.Fatal(err)
			}
			cs := p.Propose(obs, History{})
			var got []string
			for _, cand := range cs {
				a := cand.Action
				if a.Target == nil || a.Target.CSS != "#amount" || a.Kind != branch.KindType {
					continue
				}
				if a.Input != "" {
					got = append(got, "input:"+a.Input)
				} else {
					got = append(got, a.Value)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("typed %q, want %q; candidates:\n%s", got, c.want, menuText(cs))
			}
			if len(c.want) > 0 && (cs[0].Action.Target == nil || cs[0].Action.Target.CSS != "#amount") {
				t.Errorf("the top candidate is %s, want the field first:\n%s", cs[0].Action.Describe(), menuText(cs))
			}
		})
	}
}

func menuText(cs []Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  %.3f %s (%s)\n", c.Prior, c.Action.Describe(), c.Reason)
	}
	return b.String()
}
