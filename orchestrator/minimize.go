package orchestrator

import (
	"context"
	"slices"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// MinimalInfo is the shortest plan found that ends as the winner's did:
// its branch, its length against the winner's, and the winner's steps it
// leaves out. The plan cache and flow export use it.
type MinimalInfo struct {
	BranchID    string   `json:"branch_id"`
	Steps       int      `json:"steps"`
	WinnerSteps int      `json:"winner_steps"`
	Removed     []string `json:"removed,omitempty"`
}

// minimize tries the winner's plan without each of its middle steps
// (planner.Search.Ablate) on the run's workers, read-only like every
// branch, and keeps the shortest plan that still ends as the winner did
// (r.minimal). A plan with no middle step, a task that says
// search.minimize: false, a run that
// stores no plan, and a winner that followed to its end a cached plan
// minimized when it was stored skip it. A wave that cannot run leaves
// the winner's plan as it is: minimizing never fails a run.
func (r *run) minimize(ctx context.Context, client *bus.Client, results <-chan bus.Result, search *planner.Search, w *planner.Node) {
	if len(w.Plan) < 3 || !r.t.Search.Minimizes() || r.cfg.NoCache || r.cfg.ExploreOnly || r.followsMinimal && w.Guide == len(w.Plan) {
		return
	}
	r.minimal = &planner.Minimal{Winner: w, Node: w}
	r.phase("minimize")
	tries := search.Ablate(w)
	r.logSearch(search.Drain())
	for len(tries) > 0 {
		var pending []*planner.Node
		for _, n := range tries {
			if n.Outcome == nil {
				pending = append(pending, n)
			}
		}
		if len(pending) > 0 {
			got, err := r.runWave(ctx, client, results, search, pending)
			if err != nil {
				r.rec.add(zeroTime, 0, eventlog.KindError, w.ID, map[string]any{"where": "minimize", "error": r.sc.Text(err.Error())})
				return
			}
			for _, n := range pending {
				search.Complete(n, got[n.ID])
				r.logResult(search, n)
			}
		}
		next, min := search.EndAblation(w, tries)
		r.logSearch(search.Drain())
		for _, n := range pending {
			r.endSpan(n)
		}
		if min != nil {
			r.minimal = min
			break
		}
		tries = next
	}
	r.recordMinimal(w)
}

// recordMinimal records the minimal plan (minimal_plan) and puts it in
// the summary.
func (r *run) recordMinimal(w *planner.Node) {
	m := r.minimal
	p := payload.MinimalPlan{Winner: w.ID, Steps: len(m.Node.Plan), WinnerSteps: len(w.Plan), Removed: m.Removed,
		PlanDigest: m.Node.Digest}
	for _, k := range m.Removed {
		p.Actions = append(p.Actions, r.sc.Text(w.Plan[k-1].Describe()))
	}
	r.rec.add(zeroTime, 0, eventlog.KindMinimalPlan, m.Node.ID, p)
	r.sum.Minimal = &MinimalInfo{BranchID: m.Node.ID, Steps: p.Steps, WinnerSteps: p.WinnerSteps, Removed: p.Actions}
}

// minimalSteps maps the minimal plan onto the winner's chain: for each of
// its steps, the winner's node that ran it and whether the steps before
// it are the winner's own (so what the winner saw after it holds for the
// minimal plan too).
func (r *run) minimalSteps(w *planner.Node, chain []*planner.Node) ([]*planner.Node, []bool) {
	var removed []int
	if m := r.minimal; m != nil && m.Winner == w {
		removed = m.Removed
	}
	var nodes []*planner.Node
	var same []bool
	for i, n := range chain {
		if slices.Contains(removed, i+1) {
			continue
		}
		nodes = append(nodes, n)
		same = append(same, len(removed) == 0 || i+1 < removed[0])
	}
	return nodes, same
}
