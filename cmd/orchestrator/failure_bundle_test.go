package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
)

// TestFailedRunHandsOverABundle is what CI relies on: a real run on the
// demo site whose branch budget runs out before the commit boundary exits
// 3 and leaves the bundle of its best branch under DATA_DIR/bundles/RUN_ID/;
// the summary and the JUnit report name it and the command that replays
// it; that command replays it strictly at RSR 1.0, with no request the
// recording lacks.
func TestFailedRunHandsOverABundle(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startDemoSite(t)
	dir := t.TempDir()
	data, junit := filepath.Join(dir, "data"), filepath.Join(dir, "reports", "junit.xml")
	var o, e bytes.Buffer
	code := runCLI([]string{"run", tinyBudgetTask(t, dir), "--start-url", site.URL() + "/checkout?plan=team&billing=monthly",
		"--data-dir", data, "--workers", "2", "--quiet", "--no-screenshots", "--json", "--junit", junit}, &o, &e)
	if code != orchestrator.ExitNoBoundary {
		t.Fatalf("exit %d, want %d (no boundary)\n%s%s", code, orchestrator.ExitNoBoundary, o.String(), e.String())
	}
	var res struct {
		Summary  orchestrator.Summary `json:"summary"`
		ExitCode int                  `json:"exit_code"`
	}
	if err := json.Unmarshal(o.Bytes(), &res); err != nil {
		t.Fatalf("run --json: %v\n%s", err, o.String())
	}
	p := res.Summary.Paths
	if res.ExitCode != orchestrator.ExitNoBoundary || len(p.FailureBundles) == 0 {
		t.Fatalf("exit_code %d, failure bundles %+v\nstderr: %s", res.ExitCode, p.FailureBundles, e.String())
	}
	best := p.FailureBundles[0]
	wantPath := filepath.Join(data, "bundles", res.Summary.RunID, best.BranchID+".bundle")
	if best.Reason != replay.PickBest || best.Path != wantPath || best.Replay != "orchestrator replay "+wantPath || p.FailureBundleDir != filepath.Dir(wantPath) {
		t.Fatalf("best bundle %+v in %s, want %s", best, p.FailureBundleDir, wantPath)
	}
	for _, fb := range p.FailureBundles {
		if fb.Error != "" || !fileExists(fb.Path) {
			t.Errorf("bundle of branch %s (%s): %q, error %q", fb.BranchID, fb.Reason, fb.Path, fb.Error)
		}
	}
	checkJUnitNames(t, junit, res.Summary.RunID, best.Path)
	o.Reset()
	e.Reset()
	if code := runCLI([]string{"events", res.Summary.RunID, "--data-dir", data}, &o, &e); code != 0 {
		t.Fatalf("the run's events do not verify after the hand-over: exit %d\n%s", code, e.String())
	}

	o.Reset()
	e.Reset()
	code = runCLI([]string{"replay", best.Path, "--fail-on-unrecorded", "--json"}, &o, &e)
	var rep replay.Report
	if err := json.Unmarshal(o.Bytes(), &rep); err != nil || code != 0 || rep.RSR != 1 || len(rep.Unrecorded) != 0 {
		t.Fatalf("replay of the failure bundle: exit %d, RSR %.2f, unrecorded %v (%v)\n%s%s", code, rep.RSR, rep.Unrecorded, err, o.String(), e.String())
	}
}

// TestUnwritableBundlesKeepTheExitCode: when the bundles cannot be
// written (DATA_DIR/bundles is a file), stderr says so for each, and the
// run still exits 3 with its own error last.
func TestUnwritableBundlesKeepTheExitCode(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startDemoSite(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "bundles"), []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	code := runCLI([]string{"run", tinyBudgetTask(t, dir), "--start-url", site.URL() + "/checkout?plan=team&billing=monthly",
		"--data-dir", data, "--workers", "2", "--quiet", "--no-screenshots"}, &o, &e)
	lines := strings.Split(strings.TrimSpace(e.String()), "\n")
	if code != orchestrator.ExitNoBoundary || len(lines) < 2 {
		t.Fatalf("exit %d, want %d with the bundle errors on stderr\n%s%s", code, orchestrator.ExitNoBoundary, o.String(), e.String())
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "orchestrator: failure bundle not written: bundle of branch ") {
			t.Errorf("stderr line %q does not name a bundle that was not written", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "no branch reached the commit boundary") {
		t.Errorf("the run's own error is not last on stderr: %q", last)
	}
}

// tinyBudgetTask is the short checkout task with a budget of three
// branches: too few to fill the form and reach the review page.
func tinyBudgetTask(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.ReadFile(smallTask(t))
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(src), "total_branches: 40", "total_branches: 3", 1)
	if out == string(src) {
		t.Fatal("the checkout task no longer says total_branches: 40")
	}
	path := filepath.Join(dir, "tiny-budget.yaml")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkJUnitNames checks the JUnit report at path is one failed test case
// of the task whose failure names the bundle and its replay command, and
// whose output names the run.
func checkJUnitNames(t *testing.T, path, runID, bundle string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no JUnit report: %v", err)
	}
	var suite junitSuite
	if err := xml.Unmarshal(raw, &suite); err != nil {
		t.Fatalf("JUnit report: %v\n%s", err, raw)
	}
	if suite.Tests != 1 || suite.Failures != 1 || len(suite.Cases) != 1 {
		t.Fatalf("JUnit report: %d tests, %d failures, %d cases\n%s", suite.Tests, suite.Failures, len(suite.Cases), raw)
	}
	c := suite.Cases[0]
	f := c.Failure
	if c.Name != "team-checkout" || f == nil || f.Type != "no_boundary" || !strings.Contains(f.Message, "exit 3") ||
		!strings.Contains(f.Message, "orchestrator replay "+bundle) || !strings.Contains(f.Text, bundle) {
		t.Fatalf("JUnit test case does not name the outcome and the bundle %s:\n%s", bundle, raw)
	}
	if c.SystemOut == nil || !strings.Contains(c.SystemOut.Text, "run_id: "+runID) {
		t.Fatalf("JUnit system-out does not name run %s:\n%s", runID, raw)
	}
}

// TestFailOnUnrecordedIsForStrictReplays: the gate needs a recording to
// miss, so it is bad input (exit 2) with --live or --analytical.
func TestFailOnUnrecordedIsForStrictReplays(t *testing.T) {
	for _, mode := range []string{"--live", "--analytical"} {
		t.Run(mode, func(t *testing.T) {
			var o, e bytes.Buffer
			code := runCLI([]string{"replay", "some.bundle", "--fail-on-unrecorded", mode}, &o, &e)
			if code != orchestrator.ExitBadInput || !strings.Contains(e.String(), "--fail-on-unrecorded") {
				t.Fatalf("exit %d, want %d naming the flag\n%s", code, orchestrator.ExitBadInput, e.String())
			}
		})
	}
}

// TestJUnitOfATaskThatDidNotStart: a task file that does not load still
// gets its JUnit report, a failure naming the bad input, under the file's
// name; the exit code stays 2.
func TestJUnitOfATaskThatDidNotStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(bad, []byte("start_url: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "junit.xml")
	var o, e bytes.Buffer
	if code := runCLI([]string{"run", bad, "--junit", junit, "--data-dir", filepath.Join(dir, "data")}, &o, &e); code != orchestrator.ExitBadInput {
		t.Fatalf("exit %d, want %d\n%s", code, orchestrator.ExitBadInput, e.String())
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatalf("no JUnit report: %v", err)
	}
	var suite junitSuite
	if err := xml.Unmarshal(raw, &suite); err != nil || len(suite.Cases) != 1 {
		t.Fatalf("JUnit report: %v\n%s", err, raw)
	}
	c := suite.Cases[0]
	if c.Name != "broken.yaml" || c.Failure == nil || !strings.Contains(c.Failure.Message, "exit 2") {
		t.Fatalf("JUnit test case %+v, want broken.yaml failing with exit 2\n%s", c, raw)
	}
}
