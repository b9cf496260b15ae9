package planner

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// waveEnd collects what the branches of an ended wave ask of the search:
// the survivors to expand, the nodes a guide resumes from, and the
// parents of failed branches whose left-out candidates may reopen.
type waveEnd struct {
	live, resumeAt, reopen []*Node
}

// EndWave folds the wave's outcomes: scores, prunes, forks children of the
// survivors, adjusts the beam width, and decides. Each branch is judged
// alone (judge), the ones expected faster on this site first (Search.Learn;
// all alike when nothing was learned), then in digest order: of two
// branches that reach one state, the faster keeps it. The lag rule then
// compares the survivors with one another.
func (s *Search) EndWave(ctx context.Context) Decision {
	wave := s.running
	s.running = nil
	sortByDigest(wave)
	slices.SortStableFunc(wave, func(a, b *Node) int { return cmp.Compare(a.Latency, b.Latency) })
	var w waveEnd
	for _, n := range wave {
		s.judge(n, &w)
	}
	w.resumeAt = append(w.resumeAt, s.endGuideAtPrune(wave)...)
	w.live = s.pruneLagging(w.live)
	for _, n := range wave {
		if n.Outcome != nil && n.Outcome.OK && n.Outcome.Obs != nil {
			s.backup(n)
		}
	}
	if len(s.bounded) > 0 {
		s.finish()
		return Decision{Winners: s.winners()}
	}
	return s.nextWave(ctx, w)
}

// judge decides one branch of the ended wave: a side-effect boundary, a
// failure, a prune by one of the rules, the goal or boundary reached, or
// a survivor to expand.
func (s *Search) judge(n *Node, w *waveEnd) {
	if n.Outcome == nil {
		n.Outcome = &Outcome{Code: CodeNoResult, Msg: "the branch returned no result"}
	}
	o := n.Outcome
	n.Healed = o.Healed
	if n.Parent != nil {
		n.Healed += n.Parent.Healed
	}
	if back := s.checkGuide(n); back != nil {
		w.resumeAt = append(w.resumeAt, back)
	}
	switch {
	case o.Code == branch.CodeSideEffect:
		s.sideEffect(n, o)
		return
	case !o.OK || o.Obs == nil:
		n.State = StateFailed
		s.prune(n, RuleActionFailed, map[string]any{"code": o.Code, "error": o.Msg, "step": o.Step})
		if n.Parent != nil {
			w.reopen = append(w.reopen, n.Parent)
		}
		return
	}
	parentProgress := s.score(n)
	if s.cut(n, parentProgress) {
		return
	}
	n.State = StateExplored
	w.live = append(w.live, n)
}

// score records what a branch that ran saw (milestones ever met, URLs
// visited, inputs applied), scores it, and emits its score event. It
// returns the parent's progress, which the stall rule compares with.
func (s *Search) score(n *Node) float64 {
	o := n.Outcome
	now := o.Obs.Predicates
	n.Visited[o.Obs.URL] = true
	s.known[o.Obs.URL] = true
	a := n.Action()
	if a.Input != "" {
		n.Applied[a.Input] = true
	}
	n.Score = s.vector(n)
	var before map[string]bool
	parentProgress := 0.0
	if n.Parent != nil && n.Parent.Outcome != nil && n.Parent.Outcome.Obs != nil {
		before = n.Parent.Outcome.Obs.Predicates
		parentProgress = n.Parent.Score.Progress
	}
	s.events = append(s.events, Event{Kind: EventScore, Node: n, Score: &ScoreInfo{
		Score: n.Score, Flips: scoring.Flips(before, now), Credit: round3(n.Score.Progress - parentProgress), Action: a.Describe()}})
	s.acceptSibling(n)
	return parentProgress
}

// vector scores an executed branch: the milestones its page meets join
// those it ever met, then the task's scalarization of its state.
func (s *Search) vector(n *Node) scoring.Vector {
	o, goal := n.Outcome, s.t.Goal.Goal
	now := o.Obs.Predicates
	for _, p := range goal.Milestones {
		if now[p.Name] {
			n.Ever[p.Name] = true
		}
	}
	return scoring.Score(goal, s.t.Weights, scoring.State{
		Steps: n.Depth, MaxSteps: s.t.Budgets.StepsPerBranch, Cost: n.Cost, CostBudget: s.t.Budgets.Cost,
		Ever: n.Ever, Now: now, PredicateErrors: len(o.Obs.PredicateErrors), Healed: n.Healed, LatencyMS: n.Latency,
		DeadEnd: len(o.Obs.DeadEnds) > 0, Guarded: len(o.Blocked) > 0, HTTPError: o.Obs.Status >= 400,
	})
}

// cut applies the prune rules to a scored branch in their order (what the
// page says first, then a state seen before, the goal or boundary, no
// progress, the step budget) and reports whether the branch ended.
func (s *Search) cut(n *Node, parentProgress float64) bool {
	o := n.Outcome
	if v, ok := pageVerdict(s.t, o); ok {
		if v.Failed {
			n.State = StateFailed
		}
		if v.Rule == RuleAuthRequired {
			s.authReq++
		}
		for _, name := range v.Fired {
			s.failed[name]++
		}
		s.prune(n, v.Rule, v.Detail)
		return true
	}
	key := stateKey(o.Obs)
	if first, dup := s.seen[key]; dup && !goalStep(n) && !s.following(n) {
		s.prune(n, RuleDuplicate, map[string]any{"same_as": first.ID, "dom_hash": o.Obs.DOMHash})
		return true
	} else if !dup {
		s.seen[key] = n
	}
	if reached(s.t, o) {
		if unmet := s.t.Goal.Goal.Unmet(o.Obs.Predicates); len(unmet) > 0 {
			s.prune(n, RuleGoalUnmet, map[string]any{"unmet": unmet, "progress": round3(n.Score.Progress)})
			return true
		}
		n.State = StateBoundary
		s.bounded = append(s.bounded, n)
		return true
	}
	n.Stall = stallCount(n, parentProgress)
	if n.Stall >= s.stallLimit && !s.following(n) {
		s.prune(n, RuleStalled, map[string]any{"expansions_without_progress": n.Stall, "limit": s.stallLimit, "progress": round3(n.Score.Progress)})
		return true
	}
	if n.Depth >= s.t.Budgets.StepsPerBranch {
		s.prune(n, RuleStepBudget, map[string]any{"steps": n.Depth, "limit": s.t.Budgets.StepsPerBranch})
		return true
	}
	return false
}

// verdict is what the page a branch reached says about it, before any
// comparison with other branches.
type verdict struct {
	Rule   string
	Detail map[string]any
	// Failed marks the branch failed for good, not merely pruned.
	Failed bool
	// Fired names the task's failure predicates that fired.
	Fired []string
}

// pageVerdict applies the rules that read the branch's own page, in
// order: a request the task's guard held, a login page, the task's own
// failure predicates (its word outranks the generic rules), a dead-end
// detector, an HTTP error status. ok is false when none applies.
func pageVerdict(t *task.Task, o *Outcome) (v verdict, ok bool) {
	now := o.Obs.Predicates
	fired := firing(t.Goal.Failure, now)
	switch {
	case len(o.Blocked) > 0:
		return verdict{Rule: RuleGuardBlocked, Detail: map[string]any{"requests": o.Blocked}}, true
	case now[task.LoginPagePredicate]:
		// Logged out (a session that expired, a page behind a login
		// the task has no session for): nothing here is progress.
		return verdict{Rule: RuleAuthRequired, Detail: map[string]any{"url": o.Obs.URL}, Failed: true}, true
	case len(fired) > 0:
		return verdict{Rule: RuleGoalFailed, Detail: map[string]any{"failure": fired, "url": o.Obs.URL}, Failed: true, Fired: fired}, true
	case len(o.Obs.DeadEnds) > 0:
		return verdict{Rule: RuleDeadEnd, Detail: map[string]any{"detectors": o.Obs.DeadEnds, "url": o.Obs.URL}}, true
	case o.Obs.Status >= 400:
		return verdict{Rule: RuleHTTPError, Detail: map[string]any{"status": o.Obs.Status, "url": o.Obs.URL}}, true
	}
	return verdict{}, false
}

// stallCount is how many expansions in a row a scored branch went
// without progress: its parent's count plus one when it made none.
// Filling a form field (typing, selecting, checking) is progress on the
// form even before a goal predicate sees it; paging on towards what the
// goal names is no stall either, nor a step the goal names that changed
// the page (a stepper's plus on its way to the count the goal sets).
func stallCount(n *Node, parentProgress float64) int {
	if n.Parent == nil {
		return n.Stall
	}
	a := n.Action()
	fills := a.Input != "" || a.Kind == branch.KindType || a.Kind == branch.KindSelect || a.Kind == branch.KindCheck || a.Kind == branch.KindSet
	named := n.Named && !sameState(n.Parent, n)
	if n.Score.Progress <= parentProgress && !fills && !n.Onward && !named {
		return n.Parent.Stall + 1
	}
	return n.Stall
}

// endGuideAtPrune ends a cached plan's guide at a guided step the rules
// cut, and returns the node the search resumes from.
func (s *Search) endGuideAtPrune(wave []*Node) []*Node {
	var resumeAt []*Node
	for _, n := range wave {
		if s.following(n) && n.Prune != nil {
			s.events = append(s.events, Event{Kind: EventGuide, Node: n, Guide: &GuideInfo{Step: n.Depth, Of: len(s.guide.Plan), Diverged: true,
				Reason: fmt.Sprintf("step %d (%s) was pruned: %s", n.Depth, n.Action().Describe(), n.Prune.Rule)}})
			s.guide = nil
			resumeAt = append(resumeAt, n.Parent)
		}
	}
	return resumeAt
}

// pruneLagging applies the lag rule to the wave's survivors: a branch
// that trails the wave's best J by more than LagMargin, LagLimit
// expansions in a row, is pruned. It returns the survivors kept.
func (s *Search) pruneLagging(live []*Node) []*Node {
	best := -1e9
	for _, n := range live {
		if n.Score.J > best {
			best = n.Score.J
		}
	}
	kept := live[:0]
	for _, n := range live {
		n.Lag = s.w.lagCount(n, best)
		if n.Lag >= s.w.LagLimit && !s.following(n) {
			s.prune(n, RuleLagging, map[string]any{"j": n.Score.J, "best_j": best, "margin": s.w.LagMargin, "expansions": n.Lag})
			continue
		}
		kept = append(kept, n)
	}
	return kept
}

// lagCount is how many expansions in a row a branch has trailed its
// wave's best J by more than LagMargin (best is the wave's best).
func (wt *Weights) lagCount(n *Node, best float64) int {
	if n.Score.J >= best-wt.LagMargin {
		return n.Lag
	}
	if n.Parent != nil {
		return n.Parent.Lag + 1
	}
	return 1
}

// nextWave forks the survivors' children under the adjusted beam width,
// resumes guides and reopens left-out candidates, then decides whether
// the search goes on: a budget used up or an empty frontier ends it.
func (s *Search) nextWave(ctx context.Context, w waveEnd) Decision {
	s.adjustWidth(w.live)
	s.adviseAll(ctx, w.live)
	for _, n := range w.live {
		s.expand(ctx, n)
	}
	clear(s.advised)
	for _, n := range w.resumeAt {
		s.resume(ctx, n)
	}
	s.reopen(ctx, w.reopen)
	s.strategy.cut(s)
	if s.executed >= s.t.Budgets.TotalBranches && s.frontier.Len() > 0 {
		s.finish()
		return Decision{Exhausted: fmt.Sprintf("total_branches budget of %d used", s.t.Budgets.TotalBranches), Failed: maps.Clone(s.failed), AuthRequired: s.authReq}
	}
	if s.frontier.Len() == 0 && s.executed < s.t.Budgets.TotalBranches && s.strategy.backtracks() {
		s.backtrack(ctx)
	}
	if s.frontier.Len() == 0 {
		return Decision{Exhausted: "frontier empty: every branch was pruned or failed", Failed: maps.Clone(s.failed), Definite: len(s.failed) > 0, AuthRequired: s.authReq}
	}
	if d, over := s.overCost(); over {
		return d
	}
	return Decision{}
}

// overCost prunes the whole frontier when the task's cost budget cannot
// pay for any of it, and says so.
func (s *Search) overCost() (Decision, bool) {
	if s.t.Budgets.Cost <= 0 {
		return Decision{}, false
	}
	for _, n := range s.frontier.Nodes() {
		if s.fits(s.spent, n) {
			return Decision{}, false
		}
	}
	for s.frontier.Len() > 0 {
		n := s.frontier.Pop()
		s.prune(n, RuleCostBudget, map[string]any{"cost": n.Cost, "spent": s.spent, "budget": s.t.Budgets.Cost})
	}
	return Decision{Exhausted: fmt.Sprintf("cost budget of %g units used", s.t.Budgets.Cost), Failed: maps.Clone(s.failed), AuthRequired: s.authReq}, true
}
