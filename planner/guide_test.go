package planner

import (
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// guidedRun runs a search on the site model, following g when set, and
// returns the decision, the branches executed and the guide events.
func guidedRun(t *testing.T, g *Guide, sim func(branch.Plan) Outcome) (Decision, int, []GuideInfo) {
	t.Helper()
	s := newTestSearch(t)
	s.Follow(g)
	var guide []GuideInfo
	d, executed, finished := runWaves(s, 30, sim, func(e Event) {
		if e.Kind == EventGuide {
			guide = append(guide, *e.Guide)
		}
	})
	if !finished {
		t.Fatal("search did not finish")
	}
	return d, executed, guide
}

// guideOf is the guide a winner leaves in the plan cache: its plan and
// the predicates after each step.
func guideOf(w *Node) *Guide {
	g := &Guide{Plan: w.Plan, From: "(test)"}
	for k := 1; k <= len(w.Plan); k++ {
		g.Expect = append(g.Expect, simulate(w.Plan[:k]).Obs.Predicates)
	}
	return g
}

// TestGuideFollowed: a guide from an earlier winner is followed one branch
// per step to the same winner, every step reported as followed.
func TestGuideFollowed(t *testing.T) {
	first, searched, _ := guidedRun(t, nil, simulate)
	if len(first.Winners) == 0 {
		t.Fatal(first.Exhausted)
	}
	w := first.Winners[0]
	d, executed, events := guidedRun(t, guideOf(w), simulate)
	if len(d.Winners) == 0 || d.Winners[0].Digest != w.Digest {
		t.Fatalf("the guided search won with %v, want %s", d.Winners, w.Digest[:12])
	}
	if executed != len(w.Plan) || executed >= searched {
		t.Fatalf("guided search executed %d branches for a %d-step plan (the search without it %d)", executed, len(w.Plan), searched)
	}
	if len(events) != len(w.Plan) {
		t.Fatalf("guide events = %+v", events)
	}
	for i, e := range events {
		if !e.Followed || e.Step != i+1 || e.Of != len(w.Plan) {
			t.Fatalf("guide event %d = %+v", i, e)
		}
	}
	// The same guide twice: the same decisions.
	d2, executed2, _ := guidedRun(t, guideOf(w), simulate)
	if d2.Winners[0].Digest != d.Winners[0].Digest || executed2 != executed {
		t.Fatal("following the same guide twice decided differently")
	}
}

// TestGuideDiverges: where the site no longer does what the guide
// recorded, the search says which step and why, and searches on from the
// last state that matched to a winner.
func TestGuideDiverges(t *testing.T) {
	first, _, _ := guidedRun(t, nil, simulate)
	w := first.Winners[0]
	cases := []struct {
		name   string
		guide  func() *Guide
		sim    func(branch.Plan) Outcome
		step   int
		reason string
	}{
		{"a step fails", func() *Guide { return guideOf(w) }, func(p branch.Plan) Outcome {
			// The site renamed "Choose Team": the recorded target is gone.
			if a := p[len(p)-1]; a.Target != nil && a.Target.Name == "Choose Team" {
				return Outcome{Code: "selector_not_found", Msg: "no such element", Step: len(p)}
			}
			return simulate(p)
		}, 3, "failed: selector_not_found"},
		{"predicates differ", func() *Guide {
			g := guideOf(w)
			g.Expect[1] = map[string]bool{"pricing": false, "checkout": true}
			return g
		}, simulate, 2, "checkout no longer held and pricing now held"},
		{"another start", func() *Guide {
			g := guideOf(w)
			g.Plan = append(branch.Plan{{Kind: branch.KindNavigate, URL: "http://elsewhere.test/"}}, g.Plan[1:]...)
			return g
		}, simulate, 1, "the cached plan starts at http://elsewhere.test/"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _, events := guidedRun(t, c.guide(), c.sim)
			var div *GuideInfo
			for i := range events {
				if events[i].Diverged {
					div = &events[i]
					break
				}
			}
			if div == nil || div.Step != c.step || !strings.Contains(div.Reason, c.reason) {
				t.Fatalf("guide events %+v, want a divergence at step %d: %q", events, c.step, c.reason)
			}
			if len(d.Winners) == 0 && c.name != "a step fails" {
				t.Fatalf("no winner after the divergence: %s", d.Exhausted)
			}
		})
	}
}

func TestPredicateDiff(t *testing.T) {
	cases := []struct {
		want, got map[string]bool
		diff      string
	}{
		{map[string]bool{"a": true}, map[string]bool{"a": true, "b": true}, ""},
		{map[string]bool{"a": true, "b": false}, map[string]bool{"a": false, "b": true}, "a no longer held and b now held"},
		{map[string]bool{"a": false}, map[string]bool{}, ""},
	}
	for _, c := range cases {
		if got := predicateDiff(c.want, c.got); got != c.diff {
			t.Errorf("predicateDiff(%v, %v) = %q, want %q", c.want, c.got, got, c.diff)
		}
	}
}
