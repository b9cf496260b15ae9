package planner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// boxesPage is a page of labelled checkboxes and a Save button: the plan's
// check steps say which boxes are ticked, the DOM hash is that set, and
// the predicate "done" holds once exactly want is ticked and Save was
// pressed.
func boxesPage(labels, want []string) func(branch.Plan) Outcome {
	return func(p branch.Plan) Outcome {
		ticked := map[string]bool{}
		saved := false
		for _, a := range p[1:] {
			switch a.Kind {
			case branch.KindCheck:
				ticked[a.Target.Name] = a.Value == "true"
			case branch.KindClick:
				saved = true
			}
		}
		var on []string
		for _, l := range labels {
			if ticked[l] {
				on = append(on, l)
			}
		}
		done := saved && slices.Equal(on, want)
		obs := &branch.Observation{URL: "http://shop.test/prefs", DOMHash: fmt.Sprintf("%v saved=%v", on, saved),
			Predicates: map[string]bool{"done": done}}
		for i, l := range labels {
			obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "checkbox", Region: "main", Form: 0, Checked: ticked[l],
				Target: branch.Target{Role: "checkbox", Name: l, CSS: fmt.Sprintf("#c%d", i)}})
		}
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "button", Region: "main", Form: 0, Submit: true,
			Target: branch.Target{Role: "button", Name: "Save", CSS: "#save"}})
		return Outcome{OK: true, Obs: obs}
	}
}

// TestCommutingStepsForkOnce: ticking four of twelve boxes the goal names
// is solved within the default budget, and the search never forks two
// branches that tick the same set of boxes in another order.
func TestCommutingStepsForkOnce(t *testing.T) {
	labels := []string{"Apricot", "Banana", "Cherry", "Damson", "Elderberry", "Fig", "Grape", "Huckleberry",
		"Kiwi", "Lemon", "Mango", "Nectarine"}
	want := []string{"Cherry", "Fig", "Kiwi", "Mango"}
	tk, err := task.Parse("boxes.yaml", []byte(`start_url: http://shop.test/prefs
goal:
  text: Tick Mango, Cherry, Kiwi and Fig, then press Save.
  success:
    - {name: done, js: "1"}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := searchOf(t, tk)
	d, executed, finished := runWaves(s, 40, boxesPage(labels, want), nil)
	if !finished || len(d.Winners) == 0 {
		t.Fatalf("no winner after %d branches: %s", executed, d.Exhausted)
	}
	if executed > tk.Budgets.TotalBranches {
		t.Fatalf("%d branches executed, budget %d", executed, tk.Budgets.TotalBranches)
	}
	sets := map[string]string{}
	for _, n := range s.Nodes() {
		var on []string
		for _, a := range n.Plan[1:] {
			if a.Kind != branch.KindCheck {
				on = nil // a click ends the run of ticks
				break
			}
			on = append(on, a.Target.Name)
		}
		if len(on) == 0 {
			continue
		}
		slices.Sort(on)
		k := strings.Join(on, ",")
		if first, dup := sets[k]; dup {
			t.Errorf("branches %s and %s tick the same boxes {%s} in another order", first, n.ID, k)
		}
		sets[k] = n.ID
	}
}

// TestCommuteKey: the key of a run of commuting steps is the set of the
// controls' last values from the run's start; a navigation ends the run,
// and a step that does not commute has no key.
func TestCommuteKey(t *testing.T) {
	box := func(css, v string) branch.Action {
		return branch.Action{Kind: branch.KindCheck, Target: &branch.Target{CSS: css}, Value: v}
	}
	node := func(parent *Node, a branch.Action, url string) *Node {
		n := &Node{Parent: parent, Digest: fmt.Sprintf("d%p", parent), Outcome: &Outcome{OK: true, Obs: &branch.Observation{URL: url}}}
		if parent != nil {
			n.Plan = parent.Plan.Extend(a)
		} else {
			n.Plan = branch.Plan{a}
		}
		return n
	}
	root := node(nil, branch.Action{Kind: branch.KindNavigate, URL: "http://x/"}, "http://x/")
	a := node(root, box("#a", "true"), "http://x/")
	ab := node(a, box("#b", "true"), "http://x/")
	b := node(root, box("#b", "true"), "http://x/")
	if commuteKey(ab, box("#c", "true")) == "" {
		t.Fatal("a run of ticks has no key")
	}
	if got, want := commuteKey(a, box("#b", "true")), commuteKey(b, box("#a", "true")); got != want {
		t.Errorf("a then b keyed %q, b then a %q", got, want)
	}
	if commuteKey(a, box("#b", "true")) == commuteKey(a, box("#b", "false")) {
		t.Error("ticking and unticking b keyed alike")
	}
	if got, want := commuteKey(a, box("#a", "false")), commuteKey(root, box("#a", "false")); got != want {
		t.Errorf("a later step into the same control does not overwrite the earlier: %q vs %q", got, want)
	}
	moved := node(root, box("#a", "true"), "http://x/next") // the tick navigated
	if commuteKey(moved, box("#b", "true")) == commuteKey(b, box("#a", "true")) {
		t.Error("a step that changed the page's URL did not end the run")
	}
	if k := commuteKey(a, branch.Action{Kind: branch.KindClick, Target: &branch.Target{CSS: "#save"}}); k != "" {
		t.Errorf("a click keyed %q", k)
	}
}

// TestFailedActionReopensSiblings: when a branch's action fails (a
// timeout), the search forks, beside it, the next candidate of its
// parent that the first expansion left out.
func TestFailedActionReopensSiblings(t *testing.T) {
	doors := []string{"door 1", "door 2", "door 3", "door 4", "door 5", "door 6"}
	tk, err := task.Parse("prune.yaml", []byte(pruneTask("budgets: {total_branches: 30}\nsearch: {max_children: 2, beam_width: 2}\n")))
	if err != nil {
		t.Fatal(err)
	}
	s := searchOf(t, tk)
	sim := func(p branch.Plan) Outcome {
		if len(p) == 2 && p[1].Target.Name == "door 1" {
			return Outcome{Code: "timeout", Msg: "element is not visible", Step: 1}
		}
		path := doorPath(p)
		if len(p) > 1 {
			return doorPage(path, nil) // a bare page
		}
		return doorPage(path, nil, doors...)
	}
	var reasons []string
	runWaves(s, 3, sim, func(e Event) {
		if e.Kind == EventFork && strings.Contains(e.Fork.Reason, "tried after") {
			reasons = append(reasons, e.Node.Action().Target.Name)
		}
	})
	if len(reasons) == 0 {
		t.Fatal("the failed action's parent forked no other candidate")
	}
}

// TestBelowTheFloorStillForks: a page whose only control the goal's words
// do not name (a footer button under the fork floor) still gets a child:
// no floor hides every candidate.
func TestBelowTheFloorStillForks(t *testing.T) {
	tk, err := task.Parse("prune.yaml", []byte(pruneTask("")))
	if err != nil {
		t.Fatal(err)
	}
	s := searchOf(t, tk)
	sim := func(p branch.Plan) Outcome {
		switch len(p) {
		case 1:
			return doorPage("", nil, "door")
		case 2:
			o := doorPage("door", nil)
			o.Obs.Affordances = append(o.Obs.Affordances, branch.Affordance{Kind: "button", Region: "footer", Form: -1,
				Target: branch.Target{Role: "button", Name: "Later", CSS: "#later"}})
			return o
		}
		return doorPage(doorPath(p), []string{"done"})
	}
	d, _, finished := runWaves(s, 10, sim, nil)
	if !finished || len(d.Winners) == 0 {
		t.Fatalf("no winner: %s", d.Exhausted)
	}
	if got := doorPath(d.Winners[0].Plan); got != "door/Later" {
		t.Fatalf("winner clicked %q, want door/Later", got)
	}
}
