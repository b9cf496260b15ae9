package planner

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// pruneTask is the task of the prune rule tests with extra top-level
// sections (budgets, search, commit). The goal text has no verb, so no
// step of it names a button; every button with "door" in its name has a
// prior of 0.6 (activate: base, a goal word, the main region).
func pruneTask(extra string) string {
	return `start_url: http://shop.test/
goal:
  text: The treasure is behind a door
  milestones:
    - {name: key, js: "1"}
    - {name: map, js: "1"}
  success:
    - {name: done, js: "1"}
  failure:
    - {name: refused, js: "1"}
` + extra
}

// doorPath names the page a plan leads to: the buttons it clicked, in
// order ("" for the start page).
func doorPath(p branch.Plan) string {
	var names []string
	for _, a := range p[1:] {
		names = append(names, a.Target.Name)
	}
	return strings.Join(names, "/")
}

// doorPage is what the worker reports from the page at path: the
// predicates that hold there and one main-region button per name. The
// page's DOM hash is its path, so every path is a state of its own.
func doorPage(path string, holds []string, buttons ...string) Outcome {
	obs := &branch.Observation{URL: "http://shop.test/" + path, DOMHash: "page:" + path,
		Predicates: map[string]bool{"key": false, "map": false, "done": false, "refused": false}}
	for _, p := range holds {
		obs.Predicates[p] = true
	}
	for i, b := range buttons {
		obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "button", Region: "main", Form: -1,
			Target: branch.Target{Role: "button", Name: b, CSS: fmt.Sprintf("#b%d", i)}})
	}
	return Outcome{OK: true, Obs: obs}
}

// startOnly reports the start page as o after applying edit to it, and
// any other page as a bare one.
func startOnly(edit func(*Outcome), buttons ...string) func(branch.Plan) Outcome {
	return func(p branch.Plan) Outcome {
		o := doorPage(doorPath(p), nil, buttons...)
		if len(p) == 1 {
			edit(&o)
		}
		return o
	}
}

// theRoot picks the branch that opens the start page.
func theRoot(n *Node) bool { return n.Parent == nil }

// clicked picks the branch that clicked the buttons of path, in order.
func clicked(path string) func(*Node) bool {
	return func(n *Node) bool { return n.Parent != nil && doorPath(n.Plan) == path }
}

// unrun picks a branch cut while pending: it never ran.
func unrun(n *Node) bool { return n.Parent != nil && n.Outcome == nil }

// pruneSearch runs a search of the task over the site model, wave by wave,
// until a branch that target picks is pruned, and returns that branch
// and every rule that pruned a branch until then, in order.
func pruneSearch(t *testing.T, text string, sim func(branch.Plan) Outcome, target func(*Node) bool) (*Node, []string) {
	t.Helper()
	tk, err := task.Parse("prune.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	prop, err := NewProposer(tk)
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	s := NewSearch(tk, prop, func() string { id++; return fmt.Sprintf("b%03d", id) })
	s.Root()
	var fired []string
	for i := 0; i < 12; i++ {
		wave := s.NextWave()
		if len(wave) == 0 {
			break
		}
		for _, n := range wave {
			s.Complete(n, sim(n.Plan))
		}
		d := s.EndWave(context.Background())
		for _, e := range s.Drain() {
			if e.Kind == "prune" {
				fired = append(fired, e.Rule())
			}
		}
		for _, n := range s.Nodes() {
			if target(n) && n.Prune != nil {
				return n, fired
			}
		}
		if len(d.Winners) > 0 || d.Exhausted != "" {
			break
		}
	}
	t.Fatalf("no branch of the kind was pruned; rules that fired: %v", fired)
	return nil, nil
}

// TestPruneRules makes each pruning rule fire on the smallest site model
// that calls for it, and nothing else fire before it: the branch it cuts
// has the rule, the rule's numbers and the state the rule leaves.
func TestPruneRules(t *testing.T) {
	const commit = `commit:
  boundary: {url_matches: /review}
  intent: {total: '#total'}
  action: {click: {role: button, name: Place order}}
  idempotency: {form_field: '#ref'}
  guard: [{method: POST, url: /orders}]
  confirm: {success: {url_matches: /done}, token: '#id'}
`
	rows := []struct {
		rule   string
		text   string // pruneTask's extra sections
		sim    func(branch.Plan) Outcome
		target func(*Node) bool
		state  State
		detail map[string]any // some of the prune's numbers
	}{{
		// The start page does not load.
		rule: RuleActionFailed,
		sim: func(branch.Plan) Outcome {
			return Outcome{Code: "navigation_failed", Msg: "net::ERR_NAME_NOT_RESOLVED", Step: 1}
		},
		target: theRoot, state: StateFailed, detail: map[string]any{"code": "navigation_failed", "step": 1},
	}, {
		// Loading it sent a request the commit's guard holds back.
		rule:   RuleGuardBlocked,
		sim:    startOnly(func(o *Outcome) { o.Blocked = []string{"POST http://shop.test/orders"} }, "Red door"),
		target: theRoot, state: StatePruned, detail: map[string]any{"requests": []string{"POST http://shop.test/orders"}},
	}, {
		// The start page's own action posted a form: speculation held it,
		// and the branch ends at a side-effect boundary.
		rule: RuleSideEffect,
		sim: startOnly(func(o *Outcome) {
			o.OK, o.Code, o.Msg, o.Step = false, branch.CodeSideEffect, "held POST /profile", 1
			o.Held = &branch.Held{Step: 1, Method: "POST", Path: "/profile", Reason: branch.HeldWrite, Caused: true, Fields: []string{"email"}}
		}, "Red door"),
		target: theRoot, state: StateSideEffect, detail: map[string]any{"request": "POST /profile", "fields": []string{"email"}},
	}, {
		// A dead-end detector matched the page.
		rule:   RuleDeadEnd,
		sim:    startOnly(func(o *Outcome) { o.Obs.DeadEnds = []string{"contact_sales"} }, "Red door"),
		target: theRoot, state: StatePruned, detail: map[string]any{"detectors": []string{"contact_sales"}},
	}, {
		// The page answered with a server error.
		rule:   RuleHTTPError,
		sim:    startOnly(func(o *Outcome) { o.Obs.Status = 500 }, "Red door"),
		target: theRoot, state: StatePruned, detail: map[string]any{"status": 500},
	}, {
		// The one button, which the goal does not name, changes nothing.
		rule: RuleDuplicate,
		sim: func(branch.Plan) Outcome {
			return doorPage("", nil, "Red door")
		},
		target: clicked("Red door"), state: StatePruned, detail: map[string]any{"same_as": "b001"},
	}, {
		// The start page is the commit boundary, but the goal's success
		// predicate does not hold there.
		rule:   RuleGoalUnmet,
		text:   commit,
		sim:    startOnly(func(o *Outcome) { o.AtBoundary = true }, "Red door"),
		target: theRoot, state: StatePruned, detail: map[string]any{"unmet": []string{"done"}},
	}, {
		// The task's failure predicate holds on the start page.
		rule:   RuleGoalFailed,
		sim:    startOnly(func(o *Outcome) { o.Obs.Predicates["refused"] = true }, "Red door"),
		target: theRoot, state: StateFailed, detail: map[string]any{"failure": []string{"refused"}},
	}, {
		// The start page is a login page.
		rule:   RuleAuthRequired,
		sim:    startOnly(func(o *Outcome) { o.Obs.Predicates[task.LoginPagePredicate] = true }, "Red door"),
		target: theRoot, state: StateFailed, detail: map[string]any{"url": "http://shop.test/"},
	}, {
		// A click leads to a new page with no progress, and one such
		// expansion is the limit.
		rule: RuleStalled,
		text: "search: {stall_limit: 1}\n",
		sim: func(p branch.Plan) Outcome {
			return doorPage(doorPath(p), nil, "Red door")
		},
		target: clicked("Red door"), state: StatePruned, detail: map[string]any{"expansions_without_progress": 1},
	}, {
		// Behind the gold door both milestones hold, behind the grey
		// one none: the grey branch trails the best by more than
		// LagMargin, and so does its child, the second expansion in a
		// row (LagLimit).
		rule: RuleLagging,
		sim: func(p branch.Plan) Outcome {
			path := doorPath(p)
			switch {
			case path == "":
				return doorPage(path, nil, "Gold door", "Grey door")
			case strings.HasPrefix(path, "Gold door"):
				return doorPage(path, []string{"key", "map"}, "Inner door")
			}
			return doorPage(path, nil, "Inner door")
		},
		target: clicked("Grey door/Inner door"), state: StatePruned, detail: map[string]any{"expansions": defaults.LagLimit},
	}, {
		// The step budget is one step: the start page uses it up.
		rule: RuleStepBudget,
		text: "budgets: {steps_per_branch: 1}\n",
		sim: func(p branch.Plan) Outcome {
			return doorPage(doorPath(p), nil, "Red door")
		},
		target: theRoot, state: StatePruned, detail: map[string]any{"steps": 1, "limit": 1},
	}, {
		// The start page offers nothing to do.
		rule: RuleNoAffordances,
		sim: func(p branch.Plan) Outcome {
			return doorPage(doorPath(p), nil)
		},
		target: theRoot, state: StatePruned, detail: map[string]any{"candidates": 0},
	}, {
		// A beam of one with two children per branch: every wave runs one
		// branch and forks two, until the pending pool passes
		// width × max_children × PoolFactor = 6.
		rule: RuleBeamCut,
		text: "search: {beam_width: 1, min_beam_width: 1, max_children: 2, stall_limit: 20}\nbudgets: {steps_per_branch: 20}\n",
		sim: func(p branch.Plan) Outcome {
			return doorPage(doorPath(p), nil, "Red door", "Blue door")
		},
		target: unrun, state: StatePruned, detail: map[string]any{"pool": 6},
	}, {
		// A beam of one: the first door reaches the goal, and the other
		// one, still pending, is not selected.
		rule: RuleNotSelected,
		text: "search: {beam_width: 1, min_beam_width: 1}\n",
		sim: func(p branch.Plan) Outcome {
			if len(p) > 1 {
				return doorPage(doorPath(p), []string{"done"})
			}
			return doorPage("", nil, "Red door", "Blue door")
		},
		target: unrun, state: StatePruned,
	}, {
		// Every action costs 1 unit and the budget is 1.5: the start
		// page fits, a click after it does not.
		rule: RuleCostBudget,
		text: "budgets: {cost: 1.5}\n",
		sim: func(p branch.Plan) Outcome {
			return doorPage(doorPath(p), nil, "Red door")
		},
		target: clicked("Red door"), state: StatePruned, detail: map[string]any{"cost": 2, "budget": 1.5},
	}, {
		// UCT: behind the gold door both milestones hold, behind the
		// grey one none. The grey branch's three children share its low
		// mean J and a third of its exploration term each, and even
		// with the slack of a budget of 10 branches their upper bound
		// stays below the gold branch's J.
		rule: RuleUCTBound,
		text: "search: {strategy: uct}\nbudgets: {total_branches: 10}\n",
		sim: func(p branch.Plan) Outcome {
			path := doorPath(p)
			switch {
			case path == "":
				return doorPage(path, nil, "Gold door", "Grey door")
			case strings.HasPrefix(path, "Gold door"):
				return doorPage(path, []string{"key", "map"}, "Inner door")
			}
			return doorPage(path, nil, "Red door", "Blue door", "Green door")
		},
		target: func(n *Node) bool { return unrun(n) && strings.HasPrefix(doorPath(n.Plan), "Grey door/") },
		state:  StatePruned,
	}}

	covered := map[string]bool{}
	for _, row := range rows {
		covered[row.rule] = true
		t.Run(row.rule, func(t *testing.T) {
			n, fired := pruneSearch(t, pruneTask(row.text), row.sim, row.target)
			if n.Prune.Rule != row.rule {
				t.Fatalf("branch %s (%q) pruned by %s, want %s", n.ID, doorPath(n.Plan), n.Prune.Rule, row.rule)
			}
			if n.State != row.state {
				t.Errorf("branch %s state %s, want %s", n.ID, n.State, row.state)
			}
			for _, r := range fired {
				if r != row.rule {
					t.Errorf("rules fired %v, want only %s", fired, row.rule)
					break
				}
			}
			for _, k := range slices.Sorted(maps.Keys(row.detail)) {
				if got, want := fmt.Sprint(n.Prune.Detail[k]), fmt.Sprint(row.detail[k]); got != want {
					t.Errorf("detail %s = %s, want %s (detail %v)", k, got, want, n.Prune.Detail)
				}
			}
		})
	}
	for _, r := range ruleConstants(t) {
		if !covered[r] {
			t.Errorf("no row for the pruning rule %q", r)
		}
	}
}

// ruleConstants reads the values of the Rule* constants of search.go, so
// a new rule without a row fails TestPruneRules.
func ruleConstants(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "search.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Rule") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out = append(out, v)
				}
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("no Rule constants in search.go")
	}
	return out
}
