package planner

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestWordData: the embedded word data reads, every profile a task may
// name has an entry and every entry is a name a task may give.
func TestWordData(t *testing.T) {
	d, err := readWords(wordsJSON)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range d.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	want := slices.Clone(task.PlannerProfiles)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Fatalf("words.json profiles %v, task.PlannerProfiles %v", names, want)
	}
}

// TestReadWordsRefuses: word data with an unknown field, or a table that
// does not say what it serves, is refused with its place named.
func TestReadWordsRefuses(t *testing.T) {
	const search = `"site_search":{"serves":"x","when":["find"]}`
	cases := []struct{ data, want string }{
		{`{"lexicon":{"serves":"x","words":{"a":1}},"extra":1}`, "unknown field"},
		{`{"lexicon":{"words":{"a":1}}}`, "lexicon: serves"},
		{`{"lexicon":{"serves":"x","words":{"a":1}}}`, "site_search: serves"},
		{`{"lexicon":{"serves":"x","words":{"a":1}},` + search + `,"profiles":{"p":{"serves":"x","lexicon":{"words":{}}}}}`, "profiles.p"},
		{`{"lexicon":{"serves":"x","words":{"a":1}},` + search + `,"profiles":{"p":{"serves":"x","lexicon":{"serves":"x"},"site_search":{"serves":"x"}}}}`, "profiles.p.site_search"},
	}
	for _, c := range cases {
		if _, err := readWords([]byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want it to name %q", c.data, err, c.want)
		}
	}
}

// TestProfilesAreOptIn: the words of buying flows weigh a link only for
// a task that names the purchase profile, and only then does a goal that
// buys search the site for its pricing.
func TestProfilesAreOptIn(t *testing.T) {
	goal := task.Goal{Text: "Buy the Team plan for 10 seats"}
	plain, err := NewProposer(&task.Task{Goal: goal})
	if err != nil {
		t.Fatal(err)
	}
	buying, err := NewProposer(&task.Task{Goal: goal, Planner: task.Planner{Profiles: []string{"purchase"}}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.lexicon[stem("checkout")] != 0 || plain.query != "" {
		t.Errorf("without a profile: checkout weighs %v, query %q", plain.lexicon[stem("checkout")], plain.query)
	}
	if buying.lexicon[stem("checkout")] <= 0 || buying.query != "pricing" {
		t.Errorf("with purchase: checkout weighs %v, query %q", buying.lexicon[stem("checkout")], buying.query)
	}
	if _, err := NewProposer(&task.Task{Goal: goal, Planner: task.Planner{Profiles: []string{"travel"}}}); err == nil {
		t.Error("an unknown profile was accepted")
	}
}

// TestSiteSearchFromTheGoal: a goal that looks for something it names
// (a capitalized name, a quoted string) types it into the site's search
// box, whatever the box is called; a goal that names nothing so, or does
// not look for anything, does not.
func TestSiteSearchFromTheGoal(t *testing.T) {
	page := &branch.Observation{URL: "http://wiki.test/", Affordances: []branch.Affordance{
		{Kind: "textbox", InputType: "text", Region: "header", Form: 0, Target: branch.Target{Name: "Search the wiki", Field: "q", CSS: "#q"}},
		{Kind: "link", Region: "main", Form: -1, Href: "http://wiki.test/recent", Target: branch.Target{Role: "link", Name: "Recent changes", CSS: "#r"}},
	}}
	cases := []struct{ goal, want string }{
		{"Find the page about Ada Lovelace", "Ada Lovelace"},
		{`Open the article "Analytical Engine"`, "Analytical Engine"},
		{"Find the page about mathematics", ""},
		{"Ada Lovelace wrote the first program", ""},
	}
	for _, c := range cases {
		p, err := NewProposer(&task.Task{Goal: task.Goal{Text: c.goal}})
		if err != nil {
			t.Fatal(err)
		}
		if p.query != c.want {
			t.Errorf("%q: the site search's query is %q, want %q", c.goal, p.query, c.want)
		}
		typed := false
		for _, cand := range p.Propose(page, History{}) {
			typed = typed || cand.Action.Kind == branch.KindType && cand.Action.Target.CSS == "#q" && cand.Action.Value == c.want
		}
		if c.want != "" && !typed {
			t.Errorf("%q: %q is not typed into the search box", c.goal, c.want)
		}
	}
}
