package orchestrator

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// A task without commit ends when a branch satisfies every goal.success
// predicate: nothing is committed, the winner's plan, its extracted values
// and its bundle are the run's output.

// reachGoal reports the winner of a task without commit: its plan, the
// values the task extracts (read and scrubbed by the worker), a goal_reached
// event, and the winner's branch bundle.
func (r *run) reachGoal(ctx context.Context, w *planner.Node) error {
	r.sum.Status = "goal_reached"
	r.sum.Winner = winnerOf(w)
	if res := r.results[w.ID]; res != nil && len(res.Extract) > 0 {
		r.sum.Extract = res.Extract
	}
	r.rec.add(zeroTime, 0, eventlog.KindGoalReached, w.ID, map[string]any{"plan_digest": w.Digest, "steps": len(w.Plan),
		"extract": r.sum.Extract})
	r.rec.flush(ctx)
	if r.cfg.ExploreOnly {
		return nil
	}
	path := filepath.Join(r.dd, "bundles", r.runID+"-winner.bundle")
	if err := r.writeBundle(ctx, w.ID, bundle.KindBranch, path, ""); err == nil {
		r.sum.Paths.Bundle = path
	}
	return nil
}

// winnerOf is the summary's view of the winning branch.
func winnerOf(w *planner.Node) *Winner {
	out := &Winner{BranchID: w.ID, PlanDigest: w.Digest, Score: w.Score}
	for _, a := range w.Plan {
		out.Steps = append(out.Steps, a.Describe())
	}
	return out
}

// noGoal is the error of a search that found no winner: no branch reached
// the commit boundary, or, without commit, the goal.
func (r *run) noGoal() error {
	if r.t.HasCommit() {
		return ErrNoBoundary
	}
	return ErrGoalNotReached
}

// failedCounts says which failure predicates held and on how many
// branches: "signup_paused (3 branches)".
func failedCounts(m map[string]int) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		unit := "branches"
		if m[n] == 1 {
			unit = "branch"
		}
		parts[i] = fmt.Sprintf("%s (%d %s)", n, m[n], unit)
	}
	return strings.Join(parts, ", ")
}
