package simweb

import (
	"testing"
)

// TestStrategyTargets evaluates 200 seeded sites (60 under -short) with
// beam, greedy and BFS and checks the targets of the search blueprint:
// beam succeeds on at least 95% of the sites, greedy (a sequential agent)
// on at most 70% of the trap sites, beam executes at most half the actions
// BFS does, and no strategy exceeds a budget by more than one action's
// cost. A miss reports the measured numbers: the planner is tuned against
// them.
func TestStrategyTargets(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 60
	}
	sites := make([]*Site, n)
	for i := range sites {
		sites[i] = Generate(int64(i+1), DefaultConfig())
	}
	strategies := []string{"beam", "greedy", "bfs"}
	results := EvaluateAll(sites, strategies, DefaultEvalOptions(), 0)
	t.Logf("%d sites:\n%s", n, Table(results))
	by := map[string]Summary{}
	for _, s := range Summarize(results) {
		by[s.Strategy] = s
		if !s.Available() {
			t.Errorf("strategy %s could not run: %s", s.Strategy, s.Error)
		}
	}
	if beam := by["beam"]; beam.SuccessRate < 0.95 {
		t.Errorf("beam succeeded on %d of %d sites (%.1f%%), want at least 95%%", beam.Successes, beam.Sites, 100*beam.SuccessRate)
	}
	if g := by["greedy"]; g.TrapSites == 0 || g.TrapSuccessRate > 0.70 {
		t.Errorf("greedy succeeded on %d of %d trap sites (%.1f%%), want at most 70%%", g.TrapSuccesses, g.TrapSites, 100*g.TrapSuccessRate)
	}

	// Actions: over the sites both beam and BFS solve when there are
	// enough of them, else in total.
	outcome := map[string]map[int64]Outcome{}
	for _, o := range results {
		if outcome[o.Strategy] == nil {
			outcome[o.Strategy] = map[int64]Outcome{}
		}
		outcome[o.Strategy][o.Site] = o
	}
	var beamBoth, bfsBoth, beamAll, bfsAll, both int
	for _, s := range sites {
		b, f := outcome["beam"][s.Seed], outcome["bfs"][s.Seed]
		beamAll += b.Actions
		bfsAll += f.Actions
		if b.Success && f.Success {
			both++
			beamBoth += b.Actions
			bfsBoth += f.Actions
		}
	}
	if both >= n/10 {
		if 2*beamBoth > bfsBoth {
			t.Errorf("on the %d sites both solve, beam executed %d actions and BFS %d: more than half", both, beamBoth, bfsBoth)
		}
	} else if 2*beamAll > bfsAll {
		t.Errorf("beam executed %d actions and BFS %d in total: more than half", beamAll, bfsAll)
	}
	t.Logf("actions: beam %d, bfs %d in total; %d and %d on the %d sites both solve", beamAll, bfsAll, beamBoth, bfsBoth, both)

	// Budgets: the most an action can cost is a paid link's click.
	oneAction := PaidCost * sites[0].Prices["click"]
	for _, p := range sites[0].Prices {
		oneAction = max(oneAction, p)
	}
	for _, o := range results {
		if o.Error != "" {
			continue
		}
		if o.Overrun > oneAction {
			t.Errorf("%s on site %d spent %g units of a %g budget: %g over, more than one action (%g)",
				o.Strategy, o.Site, o.CostSpent, o.CostBudget, o.Overrun, oneAction)
		}
		if o.Branches > TaskTotalBranches {
			t.Errorf("%s on site %d executed %d branches, budget %d", o.Strategy, o.Site, o.Branches, TaskTotalBranches)
		}
	}
}
