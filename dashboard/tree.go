package dashboard

import (
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// Branch states shown in the tree. A branch is open until its result is
// folded in; the others are final except explored, which a later winner
// ranking may turn into boundary or winner.
const (
	StatusOpen     = "open"     // forked, no result yet
	StatusExplored = "explored" // executed and scored; expanded or left
	StatusBoundary = "boundary" // reached the commit boundary
	StatusPruned   = "pruned"   // cut by a prune rule (Rule)
	StatusFailed   = "failed"   // its action failed, or the goal's failure fired (Rule)
	StatusWinner   = "winner"   // first of the winner ranking
)

// Branch is one node of a run's branch tree.
type Branch struct {
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	Depth  int    `json:"depth"`
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Removed marks a try of the winner's plan without these steps
	// (1-based): Reason says which.
	Removed []int `json:"removed,omitempty"`
	// Wave is the wave the branch was forked for.
	Wave int `json:"wave,omitempty"`
	// Scored is false until the branch's first metric_update; J and
	// Progress are its last score.
	Scored   bool    `json:"scored"`
	J        float64 `json:"j"`
	Progress float64 `json:"progress"`
	Status   string  `json:"status"`
	Rule     string  `json:"rule,omitempty"` // the prune rule, when pruned or failed
	Rank     int     `json:"rank,omitempty"` // 1-based place in the winner ranking
	Seq      int64   `json:"seq"`            // the fork event
}

// tree folds a run's events into its branches, in fork order. It is fed
// incrementally by the live stream.
type tree struct {
	order    []string
	branches map[string]*Branch
	rankOf   string // the ranking's order, as the winner event says
}

func newTree() *tree { return &tree{branches: map[string]*Branch{}} }

// apply folds one event in and returns the branches it changed.
func (t *tree) apply(e eventlog.Event) []*Branch {
	switch e.Kind {
	case eventlog.KindBranchFork:
		f, err := payload.Decode[payload.BranchFork](e)
		if err != nil || t.branches[e.BranchID] != nil {
			return nil
		}
		b := &Branch{ID: e.BranchID, Parent: f.Parent, Depth: f.Depth, Action: f.Action, Reason: f.Reason, Removed: f.Removed,
			Wave: f.Wave, Status: StatusOpen, Seq: e.Seq}
		t.branches[b.ID] = b
		t.order = append(t.order, b.ID)
		return []*Branch{b}
	case eventlog.KindMetricUpdate:
		return t.score(e)
	case eventlog.KindDOMSnapshot:
		return t.observe(e)
	case eventlog.KindBranchPruned:
		b := t.branches[e.BranchID]
		p, err := payload.Decode[payload.BranchPruned](e)
		if b == nil || err != nil {
			return nil
		}
		b.Status, b.Rule = StatusPruned, p.Rule
		if p.State == StatusFailed {
			b.Status = StatusFailed
		}
		return []*Branch{b}
	case eventlog.KindWinner:
		return t.rank(e)
	}
	return nil
}

func (t *tree) score(e eventlog.Event) []*Branch {
	b := t.branches[e.BranchID]
	m, err := payload.Decode[payload.MetricUpdate](e)
	if b == nil || err != nil {
		return nil
	}
	b.Scored, b.J, b.Progress = true, m.Score.J, m.Score.Progress
	if b.Status == StatusOpen {
		b.Status = StatusExplored
	}
	return []*Branch{b}
}

func (t *tree) observe(e eventlog.Event) []*Branch {
	b := t.branches[e.BranchID]
	s, err := payload.Decode[payload.DOMSnapshot](e)
	if b == nil || err != nil || !s.AtBoundary || (b.Status != StatusOpen && b.Status != StatusExplored) {
		return nil
	}
	b.Status = StatusBoundary
	return []*Branch{b}
}

func (t *tree) rank(e eventlog.Event) []*Branch {
	w, err := payload.Decode[payload.Winner](e)
	if err != nil {
		return nil
	}
	t.rankOf = w.Order
	var changed []*Branch
	for i, r := range w.Ranking {
		b := t.branches[r.BranchID]
		if b == nil {
			continue
		}
		b.Rank = i + 1
		if i == 0 {
			b.Status = StatusWinner
		} else if b.Status == StatusWinner || b.Status == StatusExplored || b.Status == StatusOpen {
			b.Status = StatusBoundary
		}
		changed = append(changed, b)
	}
	return changed
}

// list returns the branches in fork order.
func (t *tree) list() []Branch {
	out := make([]Branch, 0, len(t.order))
	for _, id := range t.order {
		out = append(out, *t.branches[id])
	}
	return out
}
