package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// newTestSearch is a search of the test task on the site model, its
// branches named b001, b002, ...
func newTestSearch(t *testing.T) *Search {
	t.Helper()
	return searchOf(t, loadTask(t))
}

// searchOf is a search of tk, its branches named b001, b002, ...
func searchOf(t *testing.T, tk *task.Task) *Search {
	t.Helper()
	prop, err := NewProposer(tk)
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	return NewSearch(tk, prop, func() string { id++; return fmt.Sprintf("b%03d", id) })
}

// runWaves roots s and runs at most waves waves, each branch's outcome given
// by sim, handing every drained event to seen; it returns the last
// decision and the branches executed, and whether the search finished
// (winners, or nothing left to try).
func runWaves(s *Search, waves int, sim func(branch.Plan) Outcome, seen func(Event)) (d Decision, executed int, finished bool) {
	s.Root()
	for i := 0; i < waves; i++ {
		wave := s.NextWave()
		if len(wave) == 0 {
			return d, executed, true
		}
		for _, n := range wave {
			executed++
			s.Complete(n, sim(n.Plan))
		}
		d = s.EndWave(context.Background())
		for _, e := range s.Drain() {
			if seen != nil {
				seen(e)
			}
		}
		if len(d.Winners) > 0 || d.Exhausted != "" {
			return d, executed, true
		}
	}
	return d, executed, false
}
