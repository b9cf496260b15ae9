package planner

import (
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Steps that commute: putting a value into a control (typing into a
// field, choosing an option, ticking a box) changes only that control, so
// a run of them on one page reaches the same state in any order. The
// search forks each set of such steps once, in the order the proposer
// offered it first: twelve boxes to tick are at most 2^12 sets, never
// 12! orderings, and a branch is never spent on a permutation of a set
// the tree already holds.

// commutes reports whether an action only sets the state of its own
// control.
func commutes(a branch.Action) bool {
	if a.Target == nil || a.Dialog != "" {
		return false
	}
	switch a.Kind {
	case branch.KindType, branch.KindSelect, branch.KindCheck:
		return true
	}
	return false
}

// commuteKey names the state a run of commuting steps reaches: the branch
// the run started from and, per control, the value the run left in it
// (a later step into the same control overwrites an earlier one). It is
// "" when next does not commute.
//
// The run is the chain of commuting steps that ends at parent and stayed
// on one page (a step whose page has another URL than its parent's ends
// it: the step navigated, so its order matters).
func commuteKey(parent *Node, next branch.Action) string {
	if parent == nil || !commutes(next) {
		return ""
	}
	last := map[string]string{} // control -> the run's last step into it
	put := func(a branch.Action) {
		t := controlKey(a.Target)
		if _, ok := last[t]; !ok {
			last[t] = string(branch.Plan{a}.Canonical())
		}
	}
	put(next)
	base := parent
	for base.Parent != nil && commutes(base.Action()) && samePage(base.Parent, base) {
		put(base.Action())
		base = base.Parent
	}
	steps := make([]string, 0, len(last))
	for _, s := range last {
		steps = append(steps, s)
	}
	sort.Strings(steps)
	return base.Digest + "\x00" + strings.Join(steps, "\x00")
}

// controlKey identifies the control a step acts on, as the proposer names
// it (its CSS path first).
func controlKey(t *branch.Target) string {
	if t.CSS != "" {
		return t.CSS
	}
	return t.Describe()
}

// samePage reports whether an executed child shows the page its parent
// showed (the same URL; the DOM may differ).
func samePage(parent, child *Node) bool {
	if parent.Outcome == nil || child.Outcome == nil || parent.Outcome.Obs == nil || child.Outcome.Obs == nil {
		return false
	}
	return parent.Outcome.Obs.URL == child.Outcome.Obs.URL
}

// permutation reports whether forking next below n would reach a set of
// commuting steps the tree already holds in another order.
func (s *Search) permutation(n *Node, next branch.Action) bool {
	k := commuteKey(n, next)
	return k != "" && s.commuted[k] != nil
}
