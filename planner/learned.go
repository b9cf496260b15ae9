package planner

import (
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Learned is what earlier runs on the site measured, as the search reads
// it: the expected duration of a step (learn.Durations). It must answer
// the same for the same question for the whole search, so that decisions
// stay reproducible: a run reads one snapshot at its start.
type Learned interface {
	// StepMS is the expected duration in milliseconds of a acted on the
	// page at URL page ("" before the first navigation), and whether a
	// run measured that step (else the site's typical step).
	StepMS(page string, a branch.Action) (ms float64, measured bool)
	// SlowestMS is the longest expected duration of a on any page of
	// the site, and whether a run measured it there.
	SlowestMS(a branch.Action) (ms float64, measured bool)
	// MedianMS is the site's typical step, 0 when nothing was learned.
	MedianMS() float64
	// StallOnTheWay is the most expansions without progress a branch on
	// the way to the boundary went on this site, over the runs that
	// reached it, and how many runs those are.
	StallOnTheWay() (longest, runs int)
}

// Learn makes the search expect each step to take what l says: the
// expected seconds enter each branch's score (scoring.Vector.Latency) and
// the marginal cost the frontier divides by, and a step of a followed
// cached plan that is slow on this site no longer hides its alternatives.
// The stall rule calibrates to the site (see StallLimit). Call it before
// Root; nil learns nothing.
func (s *Search) Learn(l Learned) {
	s.learned = l
	s.stallLimit = s.t.Search.StallLimit
	if l == nil {
		return
	}
	longest, runs := l.StallOnTheWay()
	if runs >= s.w.StallEvidence {
		s.stallLimit = min(s.stallLimit, max(longest+s.w.StallMargin, s.w.MinStallLimit))
	}
}

// StallLimit is how many expansions without progress prune a branch: the
// task's search.stall_limit, or, once the search read at least
// StallEvidence runs on the site that reached the boundary, the longest
// stall a branch on the way there went plus StallMargin when that is
// lower (never below MinStallLimit): where the site's ways never wander
// long, a wandering branch is pruned sooner.
func (s *Search) StallLimit() int { return s.stallLimit }

// stepMS is the expected duration of a acted on the page at URL page (0
// when the search learned nothing).
func (s *Search) stepMS(page string, a branch.Action) float64 {
	if s.learned == nil {
		return 0
	}
	ms, _ := s.learned.StepMS(page, a)
	return ms
}

// pageOf is the URL of the page n's children act on ("" for none).
func pageOf(n *Node) string {
	if n == nil || n.Outcome == nil || n.Outcome.Obs == nil {
		return ""
	}
	return n.Outcome.Obs.URL
}

// setLatency sets n's expected duration: its parent's and its own step's.
func (s *Search) setLatency(n *Node) {
	n.StepMS = s.stepMS(pageOf(n.Parent), n.Action())
	n.Latency = n.StepMS
	if n.Parent != nil {
		n.Latency += n.Parent.Latency
	}
}

// slowAhead reports why the guide's steps from the 0-based from on hold
// a slow one ("" when none does, or nothing was measured): a step earlier
// runs measured, on any page, at least SlowStepMS and SlowStepFactor
// times the site's typical step.
func (s *Search) slowAhead(g *Guide, from int) string {
	if s.learned == nil {
		return ""
	}
	med := s.learned.MedianMS()
	for k := from; k < len(g.Plan); k++ {
		ms, measured := s.learned.SlowestMS(g.Plan[k])
		if measured && ms >= s.w.SlowStepMS && ms >= s.w.SlowStepFactor*med {
			return fmt.Sprintf("its step %d (%s) took %.1f s on this site, the typical step %.1f s", k+1, g.Plan[k].Describe(), ms/1000, med/1000)
		}
	}
	return ""
}
