package planner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Guide is a plan that reached the goal on this site before (the plan
// cache) and the goal predicates that held after each of its steps. A
// search that follows it forks one branch per step, the guide's next
// action, for as long as each step succeeds with the recorded
// predicates; at the first step that does not, it says where and why
// (EventGuide) and searches as usual from the last state that matched.
type Guide struct {
	Plan   branch.Plan
	Expect []map[string]bool // after each step: len(Expect) == len(Plan)
	// From names where the guide came from, for the fork reasons.
	From string
}

// GuideInfo is the detail of an EventGuide: a step the guide predicted
// (Followed), or the first one it did not (Diverged, with the reason).
type GuideInfo struct {
	Step     int    `json:"step"`
	Of       int    `json:"of"`
	Followed bool   `json:"followed"`
	Diverged bool   `json:"diverged"`
	Reason   string `json:"reason,omitempty"`
}

// EventGuide is the kind of guide events.
const EventGuide = "guide"

// Follow makes the search follow g first. Call it before Root. A guide
// that does not start where the task starts is not followed, and says
// so.
func (s *Search) Follow(g *Guide) {
	if g == nil || len(g.Plan) == 0 || len(g.Expect) != len(g.Plan) {
		return
	}
	first := g.Plan[0]
	if first.Kind != branch.KindNavigate || first.URL != s.t.StartURL {
		s.events = append(s.events, Event{Kind: EventGuide, Guide: &GuideInfo{Step: 1, Of: len(g.Plan), Diverged: true,
			Reason: fmt.Sprintf("the cached plan starts at %s, this run at %s", first.URL, s.t.StartURL)}})
		return
	}
	s.guide = g
}

// following reports whether n is a step of the guide that still holds.
func (s *Search) following(n *Node) bool { return s.guide != nil && n.Guide > 0 }

// checkGuide compares a guided step's outcome with the guide's record
// and returns the branch whose expansion the search must resume (the
// last state that matched) when it diverged, else nil.
func (s *Search) checkGuide(n *Node) *Node {
	if !s.following(n) {
		return nil
	}
	g, step := s.guide, n.Depth
	info := &GuideInfo{Step: step, Of: len(g.Plan)}
	o := n.Outcome
	switch {
	case !o.OK || o.Obs == nil:
		info.Reason = fmt.Sprintf("step %d (%s) failed: %s %s", step, n.Action().Describe(), o.Code, o.Msg)
	default:
		if d := predicateDiff(g.Expect[step-1], o.Obs.Predicates); d != "" {
			info.Reason = fmt.Sprintf("after step %d (%s) %s", step, n.Action().Describe(), d)
		}
	}
	if info.Reason == "" {
		info.Followed = true
		s.events = append(s.events, Event{Kind: EventGuide, Node: n, Guide: info})
		return nil
	}
	info.Diverged = true
	s.events = append(s.events, Event{Kind: EventGuide, Node: n, Guide: info})
	s.guide = nil
	return n.Parent
}

// expandGuided forks the guide's next step as n's child and reports
// whether that is n's only child: it is, unless earlier runs measured a
// step from this one on slow on this site (Search.slowAhead), in which
// case the search forks n's other children beside it, so that a cached
// plan does not hide a faster way.
func (s *Search) expandGuided(ctx context.Context, n *Node) bool {
	if !s.following(n) || n.Depth >= len(s.guide.Plan) {
		return false
	}
	a := s.guide.Plan[n.Depth]
	c := Candidate{Action: a, Prior: 1, Reason: fmt.Sprintf("step %d of %d of the cached plan %s", n.Depth+1, len(s.guide.Plan), s.guide.From)}
	slow := s.slowAhead(s.guide, n.Depth)
	if slow != "" {
		c.Reason += "; " + slow + ", so the other ways are forked beside it"
	}
	child := s.fork(n, n.Plan.Extend(a), c)
	if child == nil {
		return false
	}
	child.Guide = len(s.guide.Plan)
	return slow == ""
}

// resume expands, after the guide diverged below it, the last branch that
// matched with the candidates its guided expansion left out.
func (s *Search) resume(ctx context.Context, n *Node) {
	if n == nil || n.State != StateExplored || n.Outcome == nil || n.Outcome.Obs == nil {
		return
	}
	if s.expandNext(ctx, n, max(s.width, 1)) == 0 && s.frontier.Len() == 0 {
		s.prune(n, RuleNoAffordances, map[string]any{"url": n.Outcome.Obs.URL, "after": "the cached plan diverged"})
	}
}

// predicateDiff names the predicates whose truth differs from the
// record, "" when none does. A predicate the record does not name is not
// compared.
func predicateDiff(want, got map[string]bool) string {
	var on, off []string
	for name, w := range want {
		if got[name] == w {
			continue
		}
		if w {
			off = append(off, name)
		} else {
			on = append(on, name)
		}
	}
	if len(on)+len(off) == 0 {
		return ""
	}
	sort.Strings(on)
	sort.Strings(off)
	var parts []string
	if len(off) > 0 {
		parts = append(parts, strings.Join(off, ", ")+" no longer held")
	}
	if len(on) > 0 {
		parts = append(parts, strings.Join(on, ", ")+" now held")
	}
	return strings.Join(parts, " and ")
}
