package planner

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

func hint(s string) func(*branch.Affordance) {
	return func(a *branch.Affordance) { a.Target.Name, a.Target.Text, a.Target.Hint = "", "", s }
}
func href(s string) func(*branch.Affordance) { return func(a *branch.Affordance) { a.Href = s } }

// TestElementsOffered: what the observation offers beyond named controls
// reaches the proposer: a scripted link (no href) is clicked like a
// button, while a link to "#" of the same page stays an in-page anchor;
// an icon-only control is matched by its hint; a field named only by
// the text before it is filled by the input that names it; a hint that
// says delete is risky like a name that does.
func TestElementsOffered(t *testing.T) {
	for _, c := range []struct {
		name, goal, inputs string
		page               []branch.Affordance
		want               string // the top candidate: "kind css"
		never              string // a css no candidate targets
	}{
		{name: "scripted link", goal: "Mark all messages as read",
			page:  []branch.Affordance{aff("link", "Mark all read"), aff("link", "Mark read anchor", href("http://site.test/inbox#"))},
			want:  "click #link-Mark_all_read",
			never: "#link-Mark_read_anchor"},
		{name: "icon by its hint", goal: "Star the first message",
			page: []branch.Affordance{aff("button", "archive", hint("archive box")), aff("clickable", "star", hint("star")),
				aff("link", "Settings")},
			want: "click #clickable-star"},
		{name: "field by its neighbour", goal: "Book a trip", inputs: "inputs:\n  dep: {match: '(?i)^departure$', value: Paris}\n",
			page: []branch.Affordance{aff("textbox", "ret", hint("Return")), aff("textbox", "dep", hint("Departure"))},
			want: "type #textbox-dep"},
		{name: "risky hint", goal: "Tidy the inbox",
			page:  []branch.Affordance{aff("button", "trash", hint("Delete forever")), aff("link", "Inbox")},
			want:  "click #link-Inbox",
			never: "#button-trash"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewProposer(goalTask(t, c.goal, c.inputs))
			if err != nil {
				t.Fatal(err)
			}
			cands := p.Propose(&branch.Observation{URL: "http://site.test/inbox", Affordances: c.page}, History{})
			if len(cands) == 0 {
				t.Fatal("nothing proposed")
			}
			top := cands[0].Action
			if got := top.Kind + " " + top.Target.CSS; got != c.want {
				t.Errorf("top candidate %q (%s), want %q", got, cands[0].Reason, c.want)
			}
			for _, x := range cands {
				if c.never != "" && x.Action.Target != nil && x.Action.Target.CSS == c.never {
					t.Errorf("proposed %s: %s", x.Action.Describe(), x.Reason)
				}
			}
		})
	}
}
