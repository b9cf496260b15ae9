package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// postsPage is a blog admin: a side menu with "Recent changes" and
// "Settings", and a list of five posts, each a link titled by its post
// and an "Edit" link beside it, newest first.
func postsPage() *branch.Observation {
	obs := &branch.Observation{URL: "http://blog.test/admin/posts"}
	for i, n := range []string{"Recent changes", "Settings"} {
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "link", Region: "nav", Form: -1, Href: fmt.Sprintf("http://blog.test/admin/m%d", i),
			Target: branch.Target{Role: "link", Name: n, CSS: fmt.Sprintf("nav:nth-of-type(1) > ul:nth-of-type(1) > li:nth-of-type(%d) > a:nth-of-type(1)", i+1)}})
	}
	for i, title := range []string{"Spring menu", "Opening hours", "Our new baker", "Winter sale", "Hello world"} {
		row := fmt.Sprintf("main:nth-of-type(1) > table:nth-of-type(1) > tbody:nth-of-type(1) > tr:nth-of-type(%d)", i+1)
		obs.Affordances = append(obs.Affordances,
			branch.Affordance{Kind: "link", Region: "main", Form: -1, Href: fmt.Sprintf("http://blog.test/post/%d", i),
				Target: branch.Target{Role: "link", Name: title, CSS: row + " > td:nth-of-type(1) > a:nth-of-type(1)", Near: "Posts · " + title}},
			branch.Affordance{Kind: "link", Region: "main", Form: -1, Href: fmt.Sprintf("http://blog.test/edit/%d", i),
				Target: branch.Target{Role: "link", Name: "Edit", CSS: row + " > td:nth-of-type(2) > a:nth-of-type(1)", Near: "Posts · " + title}})
	}
	return obs
}

// TestPickByPosition: a phrase that names its element by position (an
// ordinal, or age) picks the item at that position of the list that fits,
// unless an element is named by those words.
func TestPickByPosition(t *testing.T) {
	cases := []struct {
		goal string
		want string // the top candidate's target
		also string // another candidate that must be proposed, "" for none
	}{
		{"Open the first post in the list", "Spring menu", ""},
		{"Open the third post", "Our new baker", ""},
		{"Click the last post", "Hello world", ""},
		{"Open the most recent post", "Spring menu", "Hello world"},
		{"Open the oldest post", "Hello world", "Spring menu"},
		{"Open recently changed", "Recent changes", ""},
	}
	for _, c := range cases {
		p, err := NewProposer(&task.Task{Goal: task.Goal{Text: c.goal}})
		if err != nil {
			t.Fatal(err)
		}
		cands := p.Propose(postsPage(), History{})
		if len(cands) == 0 {
			t.Errorf("%q: nothing proposed", c.goal)
			continue
		}
		if got := cands[0].Action.Target.Name; got != c.want {
			t.Errorf("%q: top candidate %q (%s), want %q", c.goal, got, cands[0].Reason, c.want)
		}
		if c.also == "" {
			continue
		}
		found := false
		for _, x := range cands[1:] {
			found = found || x.Action.Target.Name == c.also && x.Named
		}
		if !found {
			t.Errorf("%q: %q not proposed as the list's other end", c.goal, c.also)
		}
	}
}

// TestPageLists: the links of a table's first column are one list, the
// Edit links another, and a menu of two entries a third.
func TestPageLists(t *testing.T) {
	ls := pageLists(postsPage())
	if len(ls) != 3 {
		t.Fatalf("%d lists, want 3: %+v", len(ls), ls)
	}
	if got := len(ls[1].items); got != 5 {
		t.Errorf("the titles' list has %d items, want 5", got)
	}
}

// TestPickNewestByDate: where the items show their dates, the newest and
// the oldest are picked by date, whatever order the list runs in.
func TestPickNewestByDate(t *testing.T) {
	obs := &branch.Observation{URL: "http://blog.test/admin/posts"}
	for i, p := range []struct{ title, date string }{{"Winter sale", "2026-01-14"}, {"Spring menu", "March 3, 2026"},
		{"Hello world", "2025-11-02"}, {"Opening hours", "Feb 20, 2026"}} {
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "link", Region: "main", Form: -1,
			Href: fmt.Sprintf("http://blog.test/post/%d", i),
			Target: branch.Target{Role: "link", Name: p.title, Near: p.title + " · Published " + p.date,
				CSS: fmt.Sprintf("main:nth-of-type(1) > ul:nth-of-type(1) > li:nth-of-type(%d) > a:nth-of-type(1)", i+1)}})
	}
	for goal, want := range map[string]string{"Open the most recent post": "Spring menu", "Open the oldest post": "Hello world"} {
		p, err := NewProposer(&task.Task{Goal: task.Goal{Text: goal}})
		if err != nil {
			t.Fatal(err)
		}
		cands := p.Propose(obs, History{})
		if len(cands) == 0 || cands[0].Action.Target.Name != want {
			t.Errorf("%q: top candidate %v, want %q", goal, cands, want)
		}
	}
}

// TestLookalikesByTheirMenu: of several links named alike ("Add New"),
// the one whose menu the goal names comes first.
func TestLookalikesByTheirMenu(t *testing.T) {
	obs := &branch.Observation{URL: "http://cms.test/wp-admin/"}
	for i, menu := range []string{"Posts", "Media", "Pages", "Users", "Plugins"} {
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "link", Region: "nav", Form: -1,
			Href:   fmt.Sprintf("http://cms.test/wp-admin/new-%d", i),
			Target: branch.Target{Role: "link", Name: "Add New", Near: menu + " · Add New", CSS: fmt.Sprintf("#m%d > a", i)}})
	}
	for goal, want := range map[string]string{"Add a new user": "Users", "Create a new page": "Pages", "Click Add New in the Plugins menu": "Plugins"} {
		p, err := NewProposer(&task.Task{Goal: task.Goal{Text: goal}})
		if err != nil {
			t.Fatal(err)
		}
		cands := p.Propose(obs, History{})
		if len(cands) == 0 || !strings.HasPrefix(cands[0].Action.Target.Near, want) {
			t.Errorf("%q: top candidate %+v, want the Add New of %s", goal, cands[0].Action.Target, want)
		}
	}
}

// TestListOfRecords: rows named by their records' ids ("#post-141") are
// one list, and the newest is picked by the date each row shows.
func TestListOfRecords(t *testing.T) {
	obs := &branch.Observation{URL: "http://blog.test/wp-admin/edit.php"}
	for _, p := range []struct{ id, title, date string }{{"141", "Tempor", "2011/07/27"}, {"114", "Nulla", "2011/07/02"}, {"129", "Elit", "2011/05/31"}} {
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "link", Region: "main", Form: -1, Hover: true,
			Href: "http://blog.test/wp-admin/post.php?post=" + p.id,
			Target: branch.Target{Role: "link", Name: p.title, Near: p.title + " Edit | Trash | View Ben Okafor Published " + p.date + " at 12:00 pm",
				CSS: "#post-" + p.id + " > td:nth-of-type(1) > strong:nth-of-type(1) > a:nth-of-type(1)"}})
	}
	p, err := NewProposer(&task.Task{Goal: task.Goal{Text: "In the post list, open the most recent post."}})
	if err != nil {
		t.Fatal(err)
	}
	cands := p.Propose(obs, History{})
	if len(cands) == 0 || cands[0].Action.Target.Name != "Tempor" || cands[0].Action.Kind != branch.KindClick {
		t.Fatalf("top candidate %+v, want a click on Tempor, the newest", cands)
	}
}
