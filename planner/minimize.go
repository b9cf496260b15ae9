package planner

import (
	"fmt"
	"maps"
	"slices"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Plan minimization. A winner's plan may hold detours: a banner dismissed
// that hid nothing, a link followed and left. After the search decided,
// the run tries the winner's plan without each of its middle steps
// (Ablate: the first step opens the start page, the last reaches the
// boundary), runs those branches like any other (read-only speculation)
// and hands them back (Complete, then EndAblation). A try that ends as
// the winner did (the boundary, or for a task without commit the goal,
// with the same intent and no failure) shows the step was not needed.
// When more than one step was not needed, the plan without all of them is
// tried once more; the minimal plan is the shortest that held. Every try
// is a branch of the tree (forked, scored, pruned when its step was
// needed) and an Ablation event that says what the removed step
// contributed: the winner's progress the plan lost without it.

// RuleStepNeeded prunes an ablation branch whose plan, without its
// removed steps, no longer ends as the winner did.
const RuleStepNeeded = "step_needed"

// EventAblation is the search event of a judged ablation.
const EventAblation = "ablation"

// AblationInfo marks a branch as a try of the winner's plan without some
// of its steps.
type AblationInfo struct {
	Winner string
	// Removed are the steps left out, 1-based in the winner's plan.
	Removed []int
}

// AblationResult is what one try showed: whether the removed steps were
// needed, why, and the progress the plan lost without them (the steps'
// causal credit; 0 when they were not needed).
type AblationResult struct {
	Winner  string
	Removed []int
	Actions []string
	Needed  bool
	Why     string
	Credit  float64
}

// Minimal is the outcome of minimization: the branch whose plan is the
// shortest that ends as the winner did (the winner itself when every
// step was needed) and the steps of the winner's plan it leaves out.
type Minimal struct {
	Winner  *Node
	Node    *Node
	Removed []int
}

// Ablate forks, for each middle step of w's plan that writes no value, a
// branch without it, and returns those to run. A step that types,
// selects, checks or sets a value is never tried without: what it writes
// is the task's (an input, a value the goal states), and a commit sends
// it. A plan some branch already ran is not run again: its outcome
// answers (EndAblation judges it with the others).
func (s *Search) Ablate(w *Node) []*Node {
	var out []*Node
	for i := 1; i < len(w.Plan)-1; i++ {
		if writesValue(w.Plan[i]) {
			continue
		}
		if n := s.ablation(w, []int{i + 1}); n != nil {
			out = append(out, n)
		}
	}
	return out
}

// ablation forks the try of w's plan without the given 1-based steps: a
// child of w's ancestor that ran the plan's common prefix. It returns
// the branch that already ran that plan when one did.
func (s *Search) ablation(w *Node, removed []int) *Node {
	plan := make(branch.Plan, 0, len(w.Plan)-len(removed))
	for i, a := range w.Plan {
		if !slices.Contains(removed, i+1) {
			plan = append(plan, a)
		}
	}
	d := plan.Digest(s.digest, s.origin)
	info := &AblationInfo{Winner: w.ID, Removed: removed}
	if seen := s.byDigest[d]; seen != nil {
		if seen.Outcome == nil {
			return nil // pending in the frontier, never run
		}
		if seen.Ablation == nil {
			seen.Ablation = info
		}
		return seen
	}
	parent := w
	for parent != nil && parent.Depth > removed[0]-1 {
		parent = parent.Parent
	}
	n := &Node{ID: s.newID(), Parent: parent, Plan: plan, Digest: d, Seed: branch.SeedFor(s.t.Seed, d), Depth: len(plan),
		Prior: 1, Reason: ablationReason(w, removed), State: StatePending, Wave: s.wave + 1, Ablation: info,
		Ever: map[string]bool{}, Applied: map[string]bool{}, Visited: map[string]bool{}, index: -1}
	for _, a := range plan {
		n.Cost += s.t.Prices[a.Kind]
	}
	n.Latency = s.ablationLatency(w, parent, removed)
	if parent != nil {
		n.ParentID = parent.ID
		maps.Copy(n.Ever, parent.Ever)
		maps.Copy(n.Applied, parent.Applied)
		maps.Copy(n.Visited, parent.Visited)
	}
	s.nodes = append(s.nodes, n)
	s.byDigest[d] = n
	s.events = append(s.events, Event{Kind: EventFork, Node: n, Fork: &ForkInfo{Prior: 1, Reason: n.Reason}})
	return n
}

// ablationLatency is the expected duration of w's plan without the
// removed steps, run below parent: each kept step expected as it was on
// the page w's own branch acted on it.
func (s *Search) ablationLatency(w, parent *Node, removed []int) float64 {
	var ms float64
	if parent != nil {
		ms = parent.Latency
	}
	chain := make([]*Node, w.Depth)
	for a := w; a != nil && a.Depth > 0; a = a.Parent {
		chain[a.Depth-1] = a
	}
	for i, c := range chain {
		if (parent == nil || i >= parent.Depth) && c != nil && !slices.Contains(removed, i+1) {
			ms += c.StepMS
		}
	}
	return ms
}

func ablationReason(w *Node, removed []int) string {
	if len(removed) == 1 {
		k := removed[0]
		return fmt.Sprintf("ablation: the winner's plan without step %d (%s)", k, w.Plan[k-1].Describe())
	}
	return fmt.Sprintf("ablation: the winner's plan without steps %v, each not needed alone", removed)
}

// EndAblation judges the tried branches and returns either the next try
// (the plan without every step found not needed, when more than one was
// and that plan was not tried) or the minimal plan.
func (s *Search) EndAblation(w *Node, tried []*Node) ([]*Node, *Minimal) {
	best := &Minimal{Winner: w, Node: w}
	var unneeded []int
	for _, n := range tried {
		needed, why := s.judgeAblation(w, n)
		if !needed {
			if len(n.Ablation.Removed) > len(best.Removed) {
				best.Node, best.Removed = n, n.Ablation.Removed
			}
			unneeded = append(unneeded, n.Ablation.Removed...)
		}
		s.events = append(s.events, Event{Kind: EventAblation, Node: n, Ablation: &AblationResult{Winner: w.ID,
			Removed: n.Ablation.Removed, Actions: removedActions(w, n.Ablation.Removed), Needed: needed, Why: why,
			Credit: credit(w, n, needed)}})
	}
	slices.Sort(unneeded)
	unneeded = slices.Compact(unneeded)
	if len(unneeded) > 1 && len(unneeded) > len(best.Removed) {
		if n := s.ablation(w, unneeded); n != nil && n.Outcome == nil {
			n.Reason = ablationReason(w, unneeded)
			return []*Node{n}, nil
		} else if n != nil && !slices.Contains(tried, n) {
			return s.EndAblation(w, []*Node{n})
		}
	}
	return nil, best
}

// judgeAblation scores a tried branch and says whether its removed steps
// were needed, and why.
// A branch the search itself ran keeps its state and events: only the
// verdict is new.
func (s *Search) judgeAblation(w, n *Node) (bool, string) {
	fresh := n.State == StatePending
	needed := func(why string) (bool, string) {
		if fresh {
			s.prune(n, RuleStepNeeded, map[string]any{"removed": n.Ablation.Removed, "why": why})
		}
		return true, why
	}
	o := n.Outcome
	if o == nil || !o.OK || o.Obs == nil {
		if o == nil {
			return needed("the branch returned no result")
		}
		return needed(fmt.Sprintf("an action failed: %s: %s", o.Code, o.Msg))
	}
	if fresh {
		s.scoreAblation(n)
	}
	why := ""
	switch v, failed := pageVerdict(s.t, o); {
	case failed:
		why = "the page says " + v.Rule
	case !reached(s.t, o):
		why = "it does not reach the boundary"
		if !s.t.HasCommit() {
			why = "the goal does not hold"
		}
	case len(s.t.Goal.Goal.Unmet(o.Obs.Predicates)) > 0:
		why = fmt.Sprintf("goal predicates unmet: %v", s.t.Goal.Goal.Unmet(o.Obs.Predicates))
	case !maps.Equal(o.Intent, w.Outcome.Intent):
		why = "it reaches the boundary with another intent"
	case !maps.Equal(fieldState(o.Obs), fieldState(w.Outcome.Obs)):
		// What the form holds is what a commit sends (its key covers
		// the form body): a step that filled a field is needed even when
		// the intent the task reads does not show it.
		why = "the page's fields hold other values"
	}
	if why != "" {
		return needed(why)
	}
	if fresh {
		n.State = StateExplored
	}
	return false, ""
}

// scoreAblation scores a tried branch as the search scores any, without
// touching the search's state (it is over).
func (s *Search) scoreAblation(n *Node) {
	now := n.Outcome.Obs.Predicates
	n.Score = s.vector(n)
	var before map[string]bool
	if p := n.Parent; p != nil && p.Outcome != nil && p.Outcome.Obs != nil {
		before = p.Outcome.Obs.Predicates
	}
	s.events = append(s.events, Event{Kind: EventScore, Node: n, Score: &ScoreInfo{
		Score: n.Score, Flips: scoring.Flips(before, now), Action: n.Action().Describe()}})
}

// credit is the progress the winner's plan loses without the removed
// steps: all of it when the try failed, none when they were not needed.
func credit(w, n *Node, needed bool) float64 {
	switch {
	case !needed:
		return 0
	case n.Outcome == nil || !n.Outcome.OK || n.Outcome.Obs == nil:
		return round3(w.Score.Progress)
	}
	return round3(max(0, w.Score.Progress-n.Score.Progress))
}

func removedActions(w *Node, removed []int) []string {
	out := make([]string, len(removed))
	for i, k := range removed {
		out[i] = w.Plan[k-1].Describe()
	}
	return out
}

// fieldState is what the page's fields hold, by form and target: their
// values (scrubbed alike within a run), checked states and the inputs
// they hold.
func fieldState(obs *branch.Observation) map[string]string {
	out := map[string]string{}
	for _, a := range obs.Affordances {
		if !a.Kind.HoldsValue() {
			continue
		}
		k := fmt.Sprintf("%d|%s|%s|%s|%s|%s", a.Form, a.Kind, a.Target.TestID, a.Target.ID, a.Target.Field, a.Target.Name)
		out[k] = fmt.Sprintf("%q|%t|%s", a.Value, a.Checked, a.Holds)
	}
	return out
}

// writesValue reports whether an action puts a value into the page.
func writesValue(a branch.Action) bool {
	switch a.Kind {
	case branch.KindType, branch.KindSelect, branch.KindCheck, branch.KindSet:
		return true
	}
	return false
}
