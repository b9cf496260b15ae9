package planner

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestSuggestionAfterTyping: once a field holds what was typed, the
// suggestion below it that holds the value is chosen before the step the
// goal names next; a match elsewhere on the page is no suggestion.
func TestSuggestionAfterTyping(t *testing.T) {
	box := func(x, y, w, h float64) *branch.Box { return &branch.Box{X: x, Y: y, W: w, H: h} }
	obs := &branch.Observation{URL: "http://trip.test/", Affordances: []branch.Affordance{
		{Kind: "textbox", InputType: "text", Region: "main", Form: 0, Value: "Portland",
			Target: branch.Target{Hint: "Destination", CSS: "#city", Box: box(100, 100, 200, 24)}},
		{Kind: "clickable", Region: "main", Form: 0, Target: branch.Target{Name: "Portland, US", CSS: "#sg > li:nth-of-type(1)", Box: box(100, 124, 200, 20)}},
		{Kind: "clickable", Region: "main", Form: 0, Target: branch.Target{Name: "Porterville, US", CSS: "#sg > li:nth-of-type(2)", Box: box(100, 144, 200, 20)}},
		{Kind: "link", Region: "aside", Form: -1, Href: "http://trip.test/portland", Target: branch.Target{Role: "link", Name: "Visit Portland", CSS: "#ad", Box: box(600, 20, 120, 20)}},
		{Kind: "button", Region: "main", Form: 0, Target: branch.Target{Role: "button", Name: "Next", CSS: "#save", Box: box(100, 300, 60, 24)}},
	}}
	p, err := NewProposer(&task.Task{Goal: task.Goal{Text: "Set the destination to Portland and click Next."}})
	if err != nil {
		t.Fatal(err)
	}
	cands := p.Propose(obs, History{})
	if len(cands) == 0 || cands[0].Action.Target.CSS != "#sg > li:nth-of-type(1)" {
		t.Fatalf("top candidate %+v, want the suggestion Portland, US", cands)
	}
	for _, c := range cands {
		if c.Reason != "" && c.Action.Target != nil && (c.Action.Target.CSS == "#ad" || c.Action.Target.CSS == "#sg > li:nth-of-type(2)") && c.Prior >= suggestionPrior {
			t.Errorf("%s proposed as a suggestion", c.Action.Describe())
		}
	}
}
