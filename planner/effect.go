package planner

import (
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// A side-effect boundary is where speculation must stop on its own: the
// branch's action asked for a request that would change the site (a form
// posted, a DELETE sent by a click), and the session held it. The branch
// is not explored further; the search keeps it, scored on the page it
// stood on, so a run that finds nothing better can say which request
// the task would have to commit.

// Effect is a branch that ended at a side-effect boundary.
type Effect struct {
	Node *Node
	Held branch.Held
	// GoalMatch is set when the held request's path or field names share
	// a word with the goal's text: the request is plausibly the one the
	// goal asks for.
	GoalMatch bool
}

// sideEffect ends n at a side-effect boundary.
func (s *Search) sideEffect(n *Node, o *Outcome) {
	n.State = StateSideEffect
	if o.Obs != nil {
		n.Score = scoring.Score(s.t.Goal.Goal, s.t.Weights, scoring.State{
			Steps: n.Depth, MaxSteps: s.t.Budgets.StepsPerBranch, Cost: n.Cost, CostBudget: s.t.Budgets.Cost,
			Ever: n.Ever, Now: o.Obs.Predicates, PredicateErrors: len(o.Obs.PredicateErrors), Healed: n.Healed, LatencyMS: n.Latency})
	}
	s.effects = append(s.effects, n)
	detail := map[string]any{"action": n.Action().Describe(), "error": o.Msg}
	if o.Held != nil {
		detail["request"] = o.Held.Describe()
		if len(o.Held.Fields) > 0 {
			detail["fields"] = o.Held.Fields
		}
	}
	s.prune(n, RuleSideEffect, detail)
}

// Effects lists the branches that ended at a side-effect boundary, the
// ones whose request matches the goal first, then by the winner order
// (higher J, fewer steps, plan digest).
func (s *Search) Effects() []Effect {
	words := goalWords(s.t.Goal.Text)
	out := make([]Effect, 0, len(s.effects))
	for _, n := range s.effects {
		e := Effect{Node: n}
		if o := n.Outcome; o != nil && o.Held != nil {
			e.Held = *o.Held
		}
		e.GoalMatch = matchesGoal(e.Held, words)
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.GoalMatch != b.GoalMatch {
			return a.GoalMatch
		}
		if a.Node.Score.J != b.Node.Score.J {
			return a.Node.Score.J > b.Node.Score.J
		}
		if a.Node.Depth != b.Node.Depth {
			return a.Node.Depth < b.Node.Depth
		}
		return a.Node.Digest < b.Node.Digest
	})
	return out
}

// goalWords are the goal text's words of three letters or more, stemmed.
func goalWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range tokens(text) {
		if len(w) >= 3 {
			out[w] = true
		}
	}
	return out
}

// matchesGoal reports whether a word of the request's path or field
// names is a goal word.
func matchesGoal(h branch.Held, words map[string]bool) bool {
	parts := tokens(h.Path)
	for _, f := range h.Fields {
		parts = append(parts, tokens(strings.NewReplacer("_", " ", "-", " ").Replace(f))...)
	}
	for _, p := range parts {
		if len(p) >= 3 && words[p] {
			return true
		}
	}
	return false
}
