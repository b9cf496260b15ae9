package planner

import (
	"encoding/json"
	"reflect"
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

// TestReadWordsRefuses: word data with an unknown table or field, a
// table that does not say what it serves, or entries its readers could
// never meet is refused with the table named.
func TestReadWordsRefuses(t *testing.T) {
	const search = `"site_search":{"serves":"x","when":["find"]}`
	cases := []struct{ data, want string }{
		{`{"lexicon":{"serves":"x","words":{"a":1}},"extra":1}`, `unknown field "extra"`},
		{`{"lexicon":{"words":{"a":1}}}`, "lexicon: serves"},
		{`{"lexicon":{"serves":"x","words":{"a":1}}}`, "site_search: serves"},
		{`{"lexicon":{"serves":"x","words":{"a":1}},` + search + `}`, "stopwords: serves is required"},
		{`{"lexicon":{"serves":"x","words":{"a":1}}} {}`, "data after"},
		{`[1]`, "words.json"},
	}
	for _, c := range cases {
		if _, err := readWords([]byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want it to name %q", c.data, err, c.want)
		}
	}
	// Each of the real tables spoiled in one way.
	spoiled := []struct {
		name  string
		spoil func(d map[string]any)
		want  string
	}{
		{"no serves", func(d map[string]any) { delete(table(d, "verbs"), "serves") }, "verbs: serves is required"},
		{"blank serves", func(d map[string]any) { table(d, "articles")["serves"] = " " }, "articles: serves is required"},
		{"unknown field in a table", func(d map[string]any) { table(d, "role_nouns")["weight"] = 1 }, `role_nouns: json: unknown field "weight"`},
		{"unknown field in a profile", func(d map[string]any) { table(table(d, "profiles"), "purchase")["x"] = 1 }, `profiles: json: unknown field "x"`},
		{"no words", func(d map[string]any) { delete(table(d, "stopwords"), "words") }, "stopwords: words are required"},
		{"entries of another shape", func(d map[string]any) { table(d, "months")["words"] = []any{"may"} }, "months: json: cannot unmarshal"},
		{"a word twice in a set", func(d map[string]any) { table(d, "pronouns")["words"] = []any{"it", "it"} }, `pronouns: "it" is listed twice`},
		{"a word in two groups", func(d map[string]any) {
			table(d, "verbs")["words"].(map[string]any)["open"] = []any{"open", "press"}
		}, `verbs: "press" stands for both`},
		{"a word not folded", func(d map[string]any) { table(d, "quantifiers")["words"] = []any{"Both"} }, `quantifiers: "Both" is not folded`},
		{"an empty word", func(d map[string]any) { table(d, "after_cue")["words"] = []any{"as", ""} }, "after_cue: an empty word"},
		{"an unknown verb", func(d map[string]any) { table(d, "verbs")["words"].(map[string]any)["hover"] = []any{"hover"} }, `verbs: "hover" is none of`},
		{"a verb of two words", func(d map[string]any) {
			table(d, "verbs")["words"].(map[string]any)["click"] = []any{"click", "click on"}
		}, `verbs: "click on" is not one word`},
		{"a two-word verb of one", func(d map[string]any) {
			table(d, "two_word_verbs")["words"].(map[string]any)["login"] = []any{"login"}
		}, `two_word_verbs: "login" is not two words`},
		{"an unknown case", func(d map[string]any) { table(d, "cases")["words"].(map[string]any)["camel"] = []any{"camel case"} }, `cases: "camel" is none of`},
		{"an unknown value kind", func(d map[string]any) { table(d, "kind_cues")["words"].(map[string]any)["colour"] = []any{"colour"} }, `kind_cues: "colour" is none of`},
		{"month 13", func(d map[string]any) { table(d, "months")["words"].(map[string]any)["smarch"] = 13 }, `months: "smarch" is month 13`},
		{"ordinal 0", func(d map[string]any) { table(d, "ordinals")["words"].(map[string]any)["zeroth"] = 0 }, `ordinals: "zeroth": 0`},
		{"an empty time", func(d map[string]any) { table(d, "time_words")["words"].(map[string]any)["dawn"] = "" }, `time_words: "dawn": an empty value`},
		{"a profile without serves", func(d map[string]any) { delete(table(table(d, "profiles"), "purchase"), "serves") }, "profiles: purchase: serves"},
		{"a profile search without query", func(d map[string]any) {
			delete(table(table(table(d, "profiles"), "purchase"), "site_search"), "query")
		}, "profiles: purchase: site_search"},
	}
	for _, c := range spoiled {
		t.Run(c.name, func(t *testing.T) {
			var d map[string]any
			if err := json.Unmarshal(wordsJSON, &d); err != nil {
				t.Fatal(err)
			}
			c.spoil(d)
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := readWords(b); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want it to name %q", err, c.want)
			}
		})
	}
}

// table is the object under key in decoded JSON.
func table(d map[string]any, key string) map[string]any { return d[key].(map[string]any) }

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

// FuzzReadWords: the word data decoder never panics, and data it accepts
// round-trips: written back out and read again, it reads the same.
func FuzzReadWords(f *testing.F) {
	f.Add(wordsJSON)
	for _, s := range []string{
		`{}`, `[]`, `null`, `{"lexicon":{"serves":"x","words":{"a":1}},"extra":1}`,
		`{"verbs":{"serves":"x","words":{"click":["press","press"]}}}`,
		`{"two_word_verbs":{"serves":"x","words":{"login":["log  in"]}}}`,
		`{"months":{"serves":"x","words":{"may":5.5}}}`, `{"profiles":{"p":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readWords(b)
		if err != nil {
			return
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("accepted data does not write back: %v", err)
		}
		again, err := readWords(out)
		if err != nil {
			t.Fatalf("accepted data written back is refused: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(d, again) {
			t.Fatalf("accepted data reads differently written back:\n%s", out)
		}
	})
}
