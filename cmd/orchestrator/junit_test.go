package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
)

// TestJUnitGolden: the JUnit report of a committed run and of one that
// ended without reaching its boundary, against testdata/junit/.
func TestJUnitGolden(t *testing.T) {
	paths := orchestrator.Paths{DataDir: ".multiverse", Events: ".multiverse/events.db", Ledger: ".multiverse/ledger.db", Artifacts: ".multiverse/artifacts"}
	pass := &orchestrator.Summary{RunID: "01JTNPASS00000000000000000", Task: "team-checkout", Status: "committed",
		Elapsed: 12345 * time.Millisecond, Branches: orchestrator.BranchCounts{Executed: 9, Boundary: 2}, Paths: paths}
	pass.Paths.Bundle = ".multiverse/bundles/01JTNPASS00000000000000000-commit.bundle"
	fail := &orchestrator.Summary{RunID: "01JTNFA1X00000000000000000", Task: "team-checkout", Status: "no_boundary",
		Elapsed: 3500 * time.Millisecond, Branches: orchestrator.BranchCounts{Executed: 3}, Paths: paths}
	dir := ".multiverse/bundles/01JTNFA1X00000000000000000"
	fail.Paths.FailureBundleDir = dir
	fail.Paths.FailureBundles = []orchestrator.FailureBundle{
		{Pick: replay.Pick{BranchID: "01JBEST", Reason: replay.PickBest, J: 0.4125}, Path: dir + "/01JBEST.bundle",
			Replay: orchestrator.ReplayCommand(dir + "/01JBEST.bundle")},
		{Pick: replay.Pick{BranchID: "01JFAIL", Reason: replay.PickFailed, J: 0.1, Rule: "goal_failed"}, Path: dir + "/01JFAIL.bundle",
			Replay: orchestrator.ReplayCommand(dir + "/01JFAIL.bundle")},
		{Pick: replay.Pick{BranchID: "01JGONE", Reason: replay.PickFailed, Rule: "action_failed"}, Error: "orchestrator: bundle of branch 01JGONE: disk full"},
	}
	noBoundary := fmt.Errorf("%w: frontier empty after 3 branches in 2 waves", orchestrator.ErrNoBoundary)
	cases := []struct {
		name string
		sum  *orchestrator.Summary
		err  error
	}{
		{"pass", pass, nil},
		{"fail", fail, noBoundary},
		{"no-summary", nil, fmt.Errorf("%w: Chromium not found", orchestrator.ErrNoWorkers)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := writeJUnit(&got, junitReport("team-checkout", c.sum, c.err)); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "junit", c.name+".xml")
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("report differs from %s:\n%s", golden, got.String())
			}
		})
	}
}
