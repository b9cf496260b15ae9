package main

import (
	"bytes"
	"context"
	"encoding/xml"
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
	t.Run("two-tasks", func(t *testing.T) {
		var got bytes.Buffer
		suite := junitSuiteOf([]junitCase{junitTaskCase("team-checkout", pass, nil), junitTaskCase("team-checkout", fail, noBoundary)}, "ci-7")
		if err := writeJUnit(&got, suite); err != nil {
			t.Fatal(err)
		}
		checkJUnitGolden(t, "two-tasks", got.Bytes())
	})
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
			checkJUnitGolden(t, c.name, got.Bytes())
		})
	}
}

func checkJUnitGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", "junit", name+".xml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("report differs from %s:\n%s", golden, got)
	}
}

// TestJUnitSeveralTasks: run with several task files writes one suite
// with a case per task; the exit code is the first failed task's.
func TestJUnitSeveralTasks(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.xml")
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"run", "../../task/testdata/bad-regex.yaml", filepath.Join(dir, "none.yaml"), "--junit", report,
		"--data-dir", filepath.Join(dir, "d")}, &o, &e)
	if code != orchestrator.ExitBadInput {
		t.Fatalf("exit %d, want 2\n%s", code, e.String())
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var suite junitSuite
	if err := xml.Unmarshal(raw, &suite); err != nil || suite.Tests != 2 || suite.Failures != 2 || len(suite.Cases) != 2 {
		t.Fatalf("suite %+v (%v)\n%s", suite, err, raw)
	}
	if suite.Hostname == "" || suite.Cases[0].Name != "bad-regex.yaml" || suite.Cases[1].Name != "none.yaml" {
		t.Errorf("suite host %q, cases %q, %q", suite.Hostname, suite.Cases[0].Name, suite.Cases[1].Name)
	}
}
