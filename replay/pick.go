package replay

import (
	"cmp"
	"slices"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// Why a branch was picked for a bundle.
const (
	PickBest   = "best"   // the best scored branch of the run
	PickFailed = "failed" // a branch that ended in a failure
)

// stateFailed is the planner's state of a branch that ended in a failure
// (a failed action, goal.failure, a logged-out page), as branch_pruned
// events record it.
const stateFailed = "failed"

// Pick is a branch of a run chosen for a bundle, and why.
type Pick struct {
	BranchID string `json:"branch_id"`
	// Reason is PickBest or PickFailed.
	Reason string  `json:"reason"`
	J      float64 `json:"j"`
	// Rule is the rule that ended a failed branch: action_failed,
	// goal_failed, auth_required.
	Rule string `json:"rule,omitempty"`
}

// branchFacts is what a run's events say about one branch.
type branchFacts struct {
	id       string
	j        float64
	scored   bool
	observed bool
	failed   bool
	rule     string
}

// PickForFailure picks, from the events of a run that ended without its
// goal or commit, the branches worth handing over as bundles: first the
// best branch (the highest J of a scored branch; ties go to the smaller
// branch id), then up to maxFailed other branches that ended in a failure,
// best J first, ties by branch id. Only branches whose last step was
// observed are picked, since a bundle needs every step's snapshot; a
// branch whose action failed before the page could be observed has
// nothing to replay. It is a pure function of the events.
func PickForFailure(evs []eventlog.Event, maxFailed int) []Pick {
	facts := collectFacts(evs)
	var best *branchFacts
	var failed []*branchFacts
	for _, f := range facts {
		if !f.observed {
			continue
		}
		if f.scored && (best == nil || f.j > best.j || f.j == best.j && f.id < best.id) {
			best = f
		}
		if f.failed {
			failed = append(failed, f)
		}
	}
	slices.SortFunc(failed, func(a, b *branchFacts) int {
		if c := cmp.Compare(b.j, a.j); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	var out []Pick
	if best != nil {
		out = append(out, Pick{BranchID: best.id, Reason: PickBest, J: best.j, Rule: best.rule})
	}
	for _, f := range failed {
		if len(out) > 0 && f == best {
			continue
		}
		if maxFailed <= 0 {
			break
		}
		maxFailed--
		out = append(out, Pick{BranchID: f.id, Reason: PickFailed, J: f.j, Rule: f.rule})
	}
	return out
}

// collectFacts reads each branch's score, whether its last step was
// observed, and whether it failed, in the order branches first appear.
func collectFacts(evs []eventlog.Event) []*branchFacts {
	byID := map[string]*branchFacts{}
	var order []*branchFacts
	get := func(id string) *branchFacts {
		f := byID[id]
		if f == nil {
			f = &branchFacts{id: id}
			byID[id] = f
			order = append(order, f)
		}
		return f
	}
	for _, e := range evs {
		if e.BranchID == "" {
			continue
		}
		switch e.Kind {
		case eventlog.KindMetricUpdate:
			if m, err := payload.Decode[payload.MetricUpdate](e); err == nil {
				f := get(e.BranchID)
				f.j, f.scored = m.Score.J, true
			}
		case eventlog.KindDOMSnapshot:
			get(e.BranchID).observed = true
		case eventlog.KindBranchPruned:
			if p, err := payload.Decode[payload.BranchPruned](e); err == nil && p.State == stateFailed {
				f := get(e.BranchID)
				f.failed, f.rule = true, p.Rule
			}
		}
	}
	return order
}
