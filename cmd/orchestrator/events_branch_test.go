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

// TestEventsBranch: events RUN --branch takes a branch's full id or the
// short form events print; a branch the run does not have is bad input
// naming it, not an explanation of a branch that never existed.
func TestEventsBranch(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	l, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	const runID, root, child, other = "01RUNAAAAAAAAAAAAAAAAAAAAA", "01BRANCHROOT0000000000AAAA", "01BRANCHCHILD000000000BBBB", "01BRANCHOTHER00000000CBBBB"
	now := time.Now()
	for _, e := range []eventlog.Event{
		{RunID: runID, Time: now, Kind: eventlog.KindRunStart, Payload: json.RawMessage(`{}`)},
		{RunID: runID, Time: now, Kind: eventlog.KindBranchFork, BranchID: root, Payload: json.RawMessage(`{"action":"navigate /"}`)},
		{RunID: runID, Time: now, Kind: eventlog.KindBranchFork, BranchID: child, Payload: json.RawMessage(`{"parent":"` + root + `","action":"click Pricing","reason":"proposed"}`)},
		{RunID: runID, Time: now, Kind: eventlog.KindBranchFork, BranchID: other, Payload: json.RawMessage(`{"parent":"` + root + `","action":"click Docs","reason":"proposed"}`)},
		{RunID: runID, Time: now, Kind: eventlog.KindRunEnd, Payload: json.RawMessage(`{"status":"no_boundary"}`)},
	} {
		if _, err := l.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	cases := []struct {
		name, branch string
		code         int
		want         string
	}{
		{"full id", child, 0, "forked from …0000AAAA to click Pricing (proposed)"},
		{"short id", "…0000BBBB", 0, "forked from …0000AAAA to click Pricing (proposed)"},
		{"suffix", "CBBBB", 0, "forked from …0000AAAA to click Docs (proposed)"},
		{"ambiguous", "BBBB", orchestrator.ExitBadInput, "run " + runID + " has 2 branches ending in BBBB: " + child + ", " + other},
		{"unknown", "NOPE", orchestrator.ExitBadInput, "run " + runID + " has no branch NOPE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(ctx, []string{"events", runID, "--branch", c.branch, "--data-dir", dir}, &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout: %s stderr: %s", code, c.code, out.String(), errb.String())
			}
			if got := out.String() + errb.String(); !strings.Contains(got, c.want) {
				t.Fatalf("output %q does not contain %q", got, c.want)
			}
		})
	}
}
