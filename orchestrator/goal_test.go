package orchestrator_test

import (
	"errors"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/examples"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

func exampleTask(t *testing.T, file, url string) *task.Task {
	t.Helper()
	data, err := examples.FS.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.WithStartURL(url + "/"); err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestTaskWithoutCommitReportsItsGoal: a lookup task (no commit) runs in
// real Chromium against the demo site and exits 0 at the first branch
// whose success predicates all hold, reporting the values it extracts,
// writing the winner's bundle and placing no order.
func TestTaskWithoutCommitReportsItsGoal(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{})
	dir := t.TempDir()
	sum, err := runTask(t, exampleTask(t, "lookup-team-price.yaml", s.URL()), dir, false)
	if err != nil {
		t.Fatalf("run: %v (exit %d)", err, orchestrator.ExitCode(err))
	}
	if sum.Status != "goal_reached" || !sum.NoCommit || sum.Commit != nil || sum.Winner == nil {
		t.Fatalf("summary status %q, no_commit %v, commit %+v, winner %+v", sum.Status, sum.NoCommit, sum.Commit, sum.Winner)
	}
	if sum.Extract["team_price"] == "" || sum.Extract["team_price_cents"] == "" {
		t.Fatalf("extract = %v, want the Team price and its cents", sum.Extract)
	}
	if n := len(s.Vendor.Orders()); n != 0 {
		t.Fatalf("the site holds %d orders; a task without commit places none", n)
	}
	var reached bool
	for _, e := range events(t, dir, sum.RunID) {
		switch e.Kind {
		case "goal_reached":
			reached = e.BranchID == sum.Winner.BranchID
		case "commit_start", "commit_action", "ledger":
			t.Errorf("event %s in a run without commit", e.Kind)
		}
	}
	if !reached {
		t.Error("no goal_reached event for the winner")
	}
	b, err := bundle.ReadFile(sum.Paths.Bundle, bundle.Limits{})
	if err != nil {
		t.Fatalf("winner bundle %s: %v", sum.Paths.Bundle, err)
	}
	if b.Manifest.Kind != bundle.KindBranch || b.Manifest.BranchID != sum.Winner.BranchID {
		t.Fatalf("bundle kind %q branch %s, want a branch bundle of %s", b.Manifest.Kind, b.Manifest.BranchID, sum.Winner.BranchID)
	}
}

// TestGoalFailureExitsWithItsOwnCode: a task whose goal the site refuses
// (the demo has paused trial sign-ups and says so) ends with ErrGoalFailed,
// exit 8, naming the failure predicate, not exit 3 as for a budget that
// ran out.
func TestGoalFailureExitsWithItsOwnCode(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{})
	sum, err := runTask(t, exampleTask(t, "start-trial.yaml", s.URL()), t.TempDir(), false)
	if !errors.Is(err, orchestrator.ErrGoalFailed) {
		t.Fatalf("run: %v, want ErrGoalFailed", err)
	}
	if code := orchestrator.ExitCode(err); code != orchestrator.ExitGoalFailed || code == orchestrator.ExitNoBoundary {
		t.Fatalf("exit %d, want %d", code, orchestrator.ExitGoalFailed)
	}
	if sum == nil || sum.Status != "goal_failed" || sum.Pruned["goal_failed"] == 0 {
		t.Fatalf("summary %+v: want status goal_failed with goal_failed prunes", sum)
	}
}
