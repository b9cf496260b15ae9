package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// Ids of the fixture log resolveFixture writes: two runs that share a
// prefix, branches that share prefixes and suffixes.
const (
	fxRun   = "01RUNAAAAAAAAAAAAAAAAAAAAA"
	fxRun2  = "01RUNBBBBBBBBBBBBBBBBBBBBB"
	fxRoot  = "01BRANCHROOT0000000000AAAA"
	fxChild = "01BRANCHCHILD000000000BBBB"
	fxOther = "01BRANCHOTHER00000000CBBBB"
)

// resolveFixture writes an event log of two runs into a new data dir.
func resolveFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	l, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, e := range []eventlog.Event{
		{RunID: fxRun, Kind: eventlog.KindRunStart, Payload: json.RawMessage(`{}`)},
		{RunID: fxRun, Kind: eventlog.KindBranchFork, BranchID: fxRoot, Payload: json.RawMessage(`{"action":"navigate /"}`)},
		{RunID: fxRun, Kind: eventlog.KindBranchFork, BranchID: fxChild, Payload: json.RawMessage(`{"parent":"` + fxRoot + `","action":"click Pricing","reason":"proposed"}`)},
		{RunID: fxRun, Kind: eventlog.KindBranchFork, BranchID: fxOther, Payload: json.RawMessage(`{"parent":"` + fxRoot + `","action":"click Docs","reason":"proposed"}`)},
		{RunID: fxRun, Kind: eventlog.KindRunEnd, Payload: json.RawMessage(`{"status":"no_boundary"}`)},
		{RunID: fxRun2, Kind: eventlog.KindRunStart, Payload: json.RawMessage(`{}`)},
		{RunID: fxRun2, Kind: eventlog.KindRunEnd, Payload: json.RawMessage(`{"status":"no_boundary"}`)},
	} {
		e.Time = now
		if _, err := l.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestEventsIDs: events takes a run's full id or any unique prefix of
// it, in either case, and --branch a branch's full id, a unique prefix,
// or the short form events print. An id that names several records or
// none is one line of bad input (exit 2) that lists the matches or names
// the command that lists the ids.
func TestEventsIDs(t *testing.T) {
	dir := resolveFixture(t)
	db := filepath.Join(dir, "events.db")
	cases := []struct {
		name, run, branch string
		code              int
		want              string // in stdout for exit 0, the exact stderr otherwise
	}{
		{"full ids", fxRun, fxChild, 0, "forked from …0000AAAA to click Pricing (proposed)"},
		{"run prefix", "01RUNA", fxChild, 0, "forked from …0000AAAA to click Pricing (proposed)"},
		{"run prefix lower case", "01runa", fxChild, 0, "forked from …0000AAAA to click Pricing (proposed)"},
		{"branch prefix", fxRun, "01branchc", 0, "forked from …0000AAAA to click Pricing (proposed)"},
		{"short id", fxRun, "…0000BBBB", 0, "forked from …0000AAAA to click Pricing (proposed)"},
		{"suffix", fxRun, "CBBBB", 0, "forked from …0000AAAA to click Docs (proposed)"},
		{"ambiguous run", "01RUN", "", orchestrator.ExitBadInput,
			"orchestrator: run 01RUN is ambiguous in " + db + ": it names " + fxRun + ", " + fxRun2 + " (give more of the id)\n"},
		{"unknown run", "01NOPE", "", orchestrator.ExitBadInput,
			"orchestrator: no run 01NOPE in " + db + ": `orchestrator runs` lists the runs\n"},
		{"ambiguous branch prefix", fxRun, "01BRANCH", orchestrator.ExitBadInput,
			"orchestrator: branch 01BRANCH is ambiguous in run " + fxRun + ": it names " + fxChild + ", " + fxOther + ", " + fxRoot + " (give more of the id)\n"},
		{"ambiguous short id", fxRun, "…BBBB", orchestrator.ExitBadInput,
			"orchestrator: branch …BBBB is ambiguous in run " + fxRun + ": it names " + fxChild + ", " + fxOther + " (give more of the id)\n"},
		{"unknown branch", "01RUNA", "NOPE", orchestrator.ExitBadInput,
			"orchestrator: no branch NOPE in run " + fxRun + ": `orchestrator events " + fxRun + "` lists its branches\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := []string{"events", c.run, "--data-dir", dir}
			if c.branch != "" {
				args = append(args, "--branch", c.branch)
			}
			code := run(context.Background(), args, &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout: %s stderr: %s", code, c.code, out.String(), errb.String())
			}
			if c.code == 0 && !strings.Contains(out.String(), c.want) {
				t.Fatalf("stdout %q does not contain %q", out.String(), c.want)
			}
			if c.code != 0 && errb.String() != c.want {
				t.Fatalf("stderr\n%q\nwant\n%q", errb.String(), c.want)
			}
		})
	}
}

// TestOtherCommandsIDs: runs, bundle, replay and ledger resolve ids as
// events does, and say where the ids are listed when one names nothing.
func TestOtherCommandsIDs(t *testing.T) {
	dir := resolveFixture(t)
	db := filepath.Join(dir, "events.db")
	cases := []struct {
		name string
		args []string
		want string // the exact stderr, exit 2
	}{
		{"runs unknown prefix", []string{"runs", "01X"}, "orchestrator: no run 01X in " + db + ": `orchestrator runs` lists the runs\n"},
		{"bundle ambiguous run", []string{"bundle", "01run"},
			"orchestrator: run 01run is ambiguous in " + db + ": it names " + fxRun + ", " + fxRun2 + " (give more of the id)\n"},
		{"bundle unknown branch", []string{"bundle", "01runa", "01X"},
			"orchestrator: no branch 01X in run " + fxRun + ": `orchestrator events " + fxRun + "` lists its branches\n"},
		{"replay unknown branch", []string{"replay", "NOPE"},
			"orchestrator: no branch NOPE in any run of " + db + ": `orchestrator events RUN` lists a run's branches\n"},
		{"replay ambiguous branch", []string{"replay", "…BBBB"},
			"orchestrator: branch …BBBB is ambiguous in any run of " + db + ": it names " + fxChild + " (run " + fxRun + "), " + fxOther + " (run " + fxRun + ") (give more of the id)\n"},
		{"replay of a run", []string{"replay", "01runb"},
			"orchestrator: no branch 01runb in any run of " + db + ": 01runb is a run: `orchestrator events " + fxRun2 + "` lists its branches\n"},
		{"replay unknown run", []string{"replay", fxChild, "--run", "01RUNC"},
			"orchestrator: no run 01RUNC in " + db + ": `orchestrator runs` lists the runs\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append(c.args, "--data-dir", dir), &out, &errb)
			if code != orchestrator.ExitBadInput || errb.String() != c.want {
				t.Fatalf("exit %d, stderr\n%q\nwant exit 2 and\n%q", code, errb.String(), c.want)
			}
		})
	}
}
