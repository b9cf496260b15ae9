package planner

import (
	"slices"
	"sort"
	"strings"
	"testing"

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
	cases := []struct{ data, want string }{
		{`{"lexicon":{"serves":"x","words":{"a":1}},"extra":1}`, "unknown field"},
		{`{"lexicon":{"words":{"a":1}}}`, "lexicon: serves"},
		{`{"lexicon":{"serves":"x","words":{"a":1}},"profiles":{"p":{"serves":"x","lexicon":{"words":{}}}}}`, "profiles.p"},
		{`{"lexicon":{"serves":"x","words":{"a":1}},"profiles":{"p":{"serves":"x","lexicon":{"serves":"x"},"site_search":{"serves":"x"}}}}`, "profiles.p.site_search"},
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
