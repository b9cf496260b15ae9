package replay

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Analysis is the outcome of an analytical replay: scores recomputed from
// the recorded observations, without a browser.
type Analysis struct {
	RunID            string   `json:"run_id"`
	Branches         int      `json:"branches_rescored"`
	Mismatches       []string `json:"mismatches,omitempty"`
	RecordedWinner   string   `json:"recorded_winner,omitempty"`
	RecomputedWinner string   `json:"recomputed_winner,omitempty"`
}

// OK reports that every recomputed score matched and the same branch won.
func (a *Analysis) OK() bool {
	return len(a.Mismatches) == 0 && a.RecordedWinner == a.RecomputedWinner
}

type node struct {
	id, parent, digest string
	plan               []branch.Action
	pred               map[string]bool
	deadEnd, boundary  bool
	guarded, httpErr   bool
	observed           bool
	recorded           *scoring.Vector
	ever               map[string]bool
	score              scoring.Vector
	pruned             string
}

// Analyze recomputes every executed branch's score of a run from its
// recorded observations (predicate states, dead ends, guards, HTTP status)
// with the task's goal and weights, compares them with the recorded
// scores, and re-ranks the branches at the boundary with the winner order.
func Analyze(ctx context.Context, el *eventlog.Log, runID string) (*Analysis, error) {
	evs, err := el.Events(ctx, runID, eventlog.Query{})
	if err != nil {
		return nil, fmt.Errorf("replay: events of %s: %w", runID, err)
	}
	return analyze(runID, evs, true)
}

// AnalyzeBundle recomputes the scores of a bundle's branch chain from its
// recorded events (a bundle does not hold the rival branches, so the
// winner is not re-ranked).
func AnalyzeBundle(b *bundle.Bundle) (*Analysis, error) {
	return analyze(b.Manifest.RunID, b.Events, false)
}

func analyze(runID string, evs []eventlog.Event, rank bool) (*Analysis, error) {
	a := &Analysis{RunID: runID}
	if len(evs) == 0 || evs[0].Kind != eventlog.KindRunStart {
		return a, fmt.Errorf("replay: run %s: no run_start event", runID)
	}
	rs, err := payload.Decode[payload.RunStart](evs[0])
	if err != nil {
		return a, fmt.Errorf("replay: run_start: %w", err)
	}
	if len(rs.Goal.Milestones)+len(rs.Goal.Success) == 0 {
		return a, fmt.Errorf("replay: run %s recorded no goal (recorded before analytical replay existed)", runID)
	}
	nodes := map[string]*node{}
	var order []*node
	get := func(id string) *node {
		n := nodes[id]
		if n == nil {
			n = &node{id: id}
			nodes[id] = n
			order = append(order, n)
		}
		return n
	}
	for _, e := range evs {
		if e.BranchID == "" {
			if e.Kind == eventlog.KindWinner {
				a.RecordedWinner = e.BranchID
			}
			continue
		}
		n := get(e.BranchID)
		switch e.Kind {
		case eventlog.KindBranchFork:
			f, _ := payload.Decode[payload.BranchFork](e)
			n.parent, n.digest, n.plan = f.Parent, f.PlanDigest, f.Plan
		case eventlog.KindDOMSnapshot:
			s, _ := payload.Decode[payload.DOMSnapshot](e)
			n.pred, n.deadEnd, n.boundary, n.observed = s.Predicates, len(s.DeadEnds) > 0, s.AtBoundary, true
		case eventlog.KindNav:
			s, _ := payload.Decode[payload.Nav](e)
			n.httpErr = s.Status >= 400
		case eventlog.KindGuardBlocked:
			n.guarded = true
		case eventlog.KindMetricUpdate:
			s, _ := payload.Decode[payload.MetricUpdate](e)
			v := s.Score
			n.recorded = &v
		case eventlog.KindBranchPruned:
			s, _ := payload.Decode[payload.BranchPruned](e)
			n.pruned = s.Rule
		case eventlog.KindWinner:
			a.RecordedWinner = e.BranchID
		}
	}
	// Parents fork before children, so order is topological.
	for _, n := range order {
		if !n.observed {
			continue
		}
		n.ever = map[string]bool{}
		if p := nodes[n.parent]; p != nil {
			for k := range p.ever {
				n.ever[k] = true
			}
		}
		for _, m := range rs.Goal.Milestones {
			if n.pred[m.Name] {
				n.ever[m.Name] = true
			}
		}
		cost := 0.0
		for _, act := range n.plan {
			cost += priceOf(rs.Prices, act.Kind)
		}
		n.score = scoring.Score(rs.Goal, rs.Weights, scoring.State{Steps: len(n.plan), MaxSteps: rs.Budgets.StepsPerBranch,
			Cost: cost, CostBudget: rs.Budgets.Cost, Ever: n.ever, Now: n.pred,
			DeadEnd: n.deadEnd, Guarded: n.guarded, HTTPError: n.httpErr})
		a.Branches++
		if n.recorded != nil && math.Abs(n.recorded.J-n.score.J) > 1e-9 {
			a.Mismatches = append(a.Mismatches, fmt.Sprintf("branch %s: recorded J %.9f, recomputed %.9f", n.id, n.recorded.J, n.score.J))
		}
	}
	if rank {
		var cs []scoring.Candidate
		for _, n := range order {
			if n.observed && n.boundary && rs.Goal.Satisfied(n.pred) && n.pruned == "" {
				cs = append(cs, scoring.Candidate{BranchID: n.id, PlanDigest: n.digest, Score: n.score, Steps: len(n.plan)})
			}
		}
		scoring.Rank(cs)
		if len(cs) > 0 {
			a.RecomputedWinner = cs[0].BranchID
		}
		if a.RecomputedWinner != a.RecordedWinner {
			a.Mismatches = append(a.Mismatches, fmt.Sprintf("winner: recorded %s, recomputed %s", a.RecordedWinner, a.RecomputedWinner))
		}
	} else {
		a.RecomputedWinner = a.RecordedWinner
	}
	sort.Strings(a.Mismatches)
	if !a.OK() {
		return a, fmt.Errorf("replay: analytical replay of run %s disagrees: %s", runID, a.Mismatches[0])
	}
	return a, nil
}

func priceOf(prices map[string]float64, kind string) float64 {
	if p, ok := prices[kind]; ok {
		return p
	}
	return 1
}
