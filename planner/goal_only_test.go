package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// searchTask runs a search of the task text over the site model, with
// extra predicates the model computes from the URL.
func searchTask(t *testing.T, text string, extra map[string]string) Decision {
	t.Helper()
	tk, err := task.Parse("test.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return drive(t, tk, func(p branch.Plan) Outcome {
		o := simulate(p)
		if o.Obs != nil {
			o.AtBoundary = false // no commit boundary here
			for name, path := range extra {
				o.Obs.Predicates[name] = o.Obs.URL == "http://shop.test"+path
			}
		}
		return o
	})
}

// drive runs a search of tk over a site model until it decides.
func drive(t *testing.T, tk *task.Task, sim func(branch.Plan) Outcome) Decision {
	t.Helper()
	d, _, finished := runWaves(searchOf(t, tk), 30, sim, nil)
	if !finished {
		t.Fatal("search did not finish")
	}
	return d
}

// TestGoalWithoutCommit: a task without commit ends at the first branch
// whose every success predicate holds.
func TestGoalWithoutCommit(t *testing.T) {
	d := searchTask(t, `start_url: http://shop.test/
goal:
  text: Open the pricing page
  success:
    - {name: pricing, url_matches: /pricing}
budgets: {total_branches: 40, steps_per_branch: 4}
`, nil)
	if len(d.Winners) == 0 {
		t.Fatalf("no winner: %s", d.Exhausted)
	}
	w := d.Winners[0]
	if got := w.Plan[len(w.Plan)-1].Describe(); !strings.Contains(got, "Pricing") || len(w.Plan) != 2 {
		t.Fatalf("winner plan ends %q after %d steps, want the Pricing link as step 2", got, len(w.Plan))
	}
	if w.State != StateBoundary {
		t.Fatalf("winner state %s", w.State)
	}
}

// TestGoalFailureIsDefinite: a branch on which a goal.failure predicate
// holds ends failed (never expanded); when the search runs out of ideas
// before its budgets, the decision says the failure was definite and
// counts it. A search that never meets a failure predicate is not.
func TestGoalFailureIsDefinite(t *testing.T) {
	const text = `start_url: http://shop.test/
goal:
  text: Contact sales about a trial
  success:
    - {name: welcome, url_matches: /welcome}
%s
budgets: {total_branches: 200, steps_per_branch: 3}
search: {stall_limit: 2}
`
	failing := searchTask(t, fmt.Sprintf(text, "  failure:\n    - {name: refused, url_matches: /contact}"), map[string]string{"refused": "/contact"})
	if len(failing.Winners) > 0 || failing.Exhausted == "" {
		t.Fatalf("decision %+v: want an exhausted search", failing)
	}
	if !failing.Definite || failing.Failed["refused"] == 0 {
		t.Fatalf("decision %+v: want a definite failure counting refused", failing)
	}
	plain := searchTask(t, fmt.Sprintf(text, ""), nil)
	if plain.Definite || len(plain.Failed) != 0 {
		t.Fatalf("decision %+v without failure predicates: want no definite failure", plain)
	}
}

// TestNamedNoOpStepIsExplored: "click button Qa, then button Zb" on a page
// where the first click changes nothing anyone can see (the page keeps
// the step to itself). The branch that clicked Qa has its parent's state,
// yet it is a step the goal named: it is explored on, not pruned as a
// duplicate, and Zb after it reaches the goal. Zb without Qa fails.
func TestNamedNoOpStepIsExplored(t *testing.T) {
	tk, err := task.Parse("seq.yaml", []byte(`start_url: http://shop.test/
goal:
  text: Click button Qa, then click button Zb.
  success:
    - {name: done, url_matches: /done}
  failure:
    - {name: wrong, url_matches: /fail}
budgets: {total_branches: 30, steps_per_branch: 5}
`))
	if err != nil {
		t.Fatal(err)
	}
	button := func(name string) branch.Affordance {
		return branch.Affordance{Kind: "button", Region: "main", Form: -1, Target: branch.Target{Role: "button", Name: name, Text: name, CSS: "#" + name}}
	}
	sim := func(p branch.Plan) Outcome {
		url, first := "/", false
		for _, a := range p[1:] {
			switch a.Target.Name {
			case "Qa":
				first = true // nothing shows it
			case "Zb":
				if first {
					url = "/done"
				} else {
					url = "/fail"
				}
			default:
				url = "/fail"
			}
		}
		obs := &branch.Observation{URL: "http://shop.test" + url, DOMHash: url,
			Predicates: map[string]bool{"done": url == "/done", "wrong": url == "/fail"}}
		if url == "/" {
			obs.Affordances = []branch.Affordance{button("Zb"), button("Xc"), button("Qa")}
		}
		return Outcome{OK: true, Obs: obs}
	}
	d := drive(t, tk, sim)
	if len(d.Winners) == 0 {
		t.Fatalf("no winner: %s", d.Exhausted)
	}
	var steps []string
	for _, a := range d.Winners[0].Plan[1:] {
		steps = append(steps, a.Target.Name)
	}
	if got := strings.Join(steps, " "); got != "Qa Zb" {
		t.Fatalf("winner clicks %q, want Qa then Zb", got)
	}
}

// TestPagingOnIsNoStall: what the goal names is on the fourth page of a
// list; three clicks on Next change nothing the goal scores, yet they are
// how the search gets there, so the stall rule does not cut them.
func TestPagingOnIsNoStall(t *testing.T) {
	tk, err := task.Parse("page.yaml", []byte(`start_url: http://shop.test/
goal:
  text: Find zeta in the list and click it.
  success:
    - {name: done, url_matches: /done}
  failure:
    - {name: wrong, url_matches: /fail}
budgets: {total_branches: 40, steps_per_branch: 8}
search: {stall_limit: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	items := [][]string{{"alpha", "beta"}, {"gamma", "delta"}, {"epsilon", "eta"}, {"theta", "zeta"}}
	el := func(kind branch.ElementKind, name string) branch.Affordance {
		return branch.Affordance{Kind: kind, Region: "main", Form: -1, Target: branch.Target{Name: name, Text: name, CSS: "#" + name}}
	}
	sim := func(p branch.Plan) Outcome {
		page, url := 0, "/"
		for _, a := range p[1:] {
			switch {
			case a.Target.Name == "Next":
				page++
			case a.Target.Name == "zeta":
				url = "/done"
			default:
				url = "/fail"
			}
		}
		obs := &branch.Observation{URL: "http://shop.test" + url, DOMHash: fmt.Sprint(url, page),
			Predicates: map[string]bool{"done": url == "/done", "wrong": url == "/fail"}}
		if url == "/" && page < len(items) {
			for _, it := range items[page] {
				obs.Affordances = append(obs.Affordances, el("link", it))
			}
			if page < len(items)-1 {
				obs.Affordances = append(obs.Affordances, el("button", "Next"))
			}
		}
		return Outcome{OK: true, Obs: obs}
	}
	if d := drive(t, tk, sim); len(d.Winners) == 0 {
		t.Fatalf("no winner: %s", d.Exhausted)
	}
}

// lookalikes is a page of n buttons named alike ("Download") of which
// only the one at index good works; any other shows an error.
func lookalikes(n, good int) func(branch.Plan) Outcome {
	return func(p branch.Plan) Outcome {
		obs := &branch.Observation{URL: "http://shop.test/files", DOMHash: "start", Predicates: map[string]bool{"done": false, "error": false}}
		if len(p) == 1 {
			for i := 0; i < n; i++ {
				obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "button", Region: "main", Form: -1,
					Target: branch.Target{Role: "button", Name: "Download", Near: fmt.Sprintf("Mirror %c Download", 'A'+i), CSS: fmt.Sprintf("#m%d", i)}})
			}
			return Outcome{OK: true, Obs: obs}
		}
		i := int(p[1].Target.CSS[2] - '0')
		obs.DOMHash = fmt.Sprintf("after %d", i)
		obs.Predicates["done"], obs.Predicates["error"] = i == good, i != good
		return Outcome{OK: true, Obs: obs}
	}
}

// TestBacktrackTriesLookalikes: six lookalike buttons, a beam of two, and
// only the last one works. When every branch of the first expansion ends
// in the task's failure, the search goes back to the candidates it left
// out until one works; a sequential agent (greedy) does not go back, and
// its failure is definite.
func TestBacktrackTriesLookalikes(t *testing.T) {
	const text = `start_url: http://shop.test/files
goal:
  text: Download the file from a mirror that works
  success:
    - {name: done, js: "1"}
  failure:
    - {name: error, js: "1"}
budgets: {total_branches: 40, steps_per_branch: 3}
search: {strategy: %s, beam_width: 2, min_beam_width: 1, max_children: 2}
`
	for _, tc := range []struct {
		strategy string
		win      bool
	}{{"beam", true}, {"uct", true}, {"greedy", false}} {
		tk, err := task.Parse("test.yaml", []byte(fmt.Sprintf(text, tc.strategy)))
		if err != nil {
			t.Fatal(err)
		}
		d := drive(t, tk, lookalikes(6, 5))
		if got := len(d.Winners) > 0; got != tc.win {
			t.Fatalf("%s: winners %d (%s), want a winner %v", tc.strategy, len(d.Winners), d.Exhausted, tc.win)
		}
		if tc.win && d.Winners[0].Plan[1].Target.CSS != "#m5" {
			t.Fatalf("%s: winner clicked %s", tc.strategy, d.Winners[0].Plan[1].Target.CSS)
		}
		if !tc.win && (!d.Definite || d.Failed["error"] != 1) {
			t.Fatalf("%s: decision %+v, want one definite failure", tc.strategy, d)
		}
	}
}

// TestRefusedDialogForksAccept: a click whose native confirm was answered
// no (the default) changes nothing and is a duplicate state; the search
// forks the same click answering yes beside it, and that one reaches the
// goal, for a search and for a sequential agent alike.
func TestRefusedDialogForksAccept(t *testing.T) {
	const text = `start_url: http://shop.test/reports
goal:
  text: Export the report
  success:
    - {name: done, js: "1"}
budgets: {total_branches: 20, steps_per_branch: 3}
search: {strategy: %s}
`
	sim := func(p branch.Plan) Outcome {
		obs := &branch.Observation{URL: "http://shop.test/reports", DOMHash: "list", Predicates: map[string]bool{"done": false},
			Affordances: []branch.Affordance{{Kind: "button", Region: "main", Form: -1, Target: branch.Target{Role: "button", Name: "Export", CSS: "#export"}}}}
		if len(p) > 1 {
			a := p[len(p)-1]
			obs.Dialogs = []branch.Dialog{{Type: "confirm", Message: "Export now?", Answer: branch.DialogDismiss}}
			if a.Dialog == branch.DialogAccept {
				obs.Dialogs[0].Answer = branch.DialogAccept
				obs.DOMHash, obs.Predicates["done"] = "exported", true
			}
		}
		return Outcome{OK: true, Obs: obs}
	}
	for _, strategy := range []string{"beam", "greedy"} {
		tk, err := task.Parse("test.yaml", []byte(fmt.Sprintf(text, strategy)))
		if err != nil {
			t.Fatal(err)
		}
		d := drive(t, tk, sim)
		if len(d.Winners) == 0 {
			t.Fatalf("%s: no winner: %s", strategy, d.Exhausted)
		}
		if w := d.Winners[0]; len(w.Plan) != 2 || w.Plan[1].Dialog != branch.DialogAccept {
			t.Fatalf("%s: winner plan %+v, want the click accepting its dialog", strategy, w.Plan)
		}
	}
}
