package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestInterruptedRun: a run whose context ends mid-search (Ctrl-C)
// says "interrupted", exits 130 and records its end as interrupted; what
// it recorded before stays verifiable.
func TestInterruptedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Stop once the run has recorded its start: it is mid-search.
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) && !hasRunStart(dir) {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
		cancel()
	}()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"demo", "--data-dir", dir, "--workers", "1", "--quiet", "--no-screenshots"}, &out, &errb)
	if code != orchestrator.ExitInterrupted || !strings.Contains(errb.String(), "interrupted") || strings.HasPrefix(errb.String(), "context canceled") {
		t.Fatalf("exit %d, stderr %q; want 130 and a line that says interrupted", code, errb.String())
	}
	l, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runs, err := l.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v: %v", runs, err)
	}
	if err := l.Verify(context.Background(), runs[0].RunID); err != nil {
		t.Errorf("the interrupted run's log does not verify: %v", err)
	}
	evs, err := l.Events(context.Background(), runs[0].RunID, eventlog.Query{Kinds: []string{eventlog.KindRunEnd}})
	if err != nil || len(evs) != 1 {
		t.Fatalf("run_end events %d: %v", len(evs), err)
	}
	end, err := payload.Decode[payload.RunEnd](evs[0])
	if err != nil || end.Status != orchestrator.StatusInterrupted || end.ExitCode != orchestrator.ExitInterrupted {
		t.Errorf("run_end = %+v (%v), want status interrupted, exit 130", end, err)
	}
}

// hasRunStart reports whether the data dir's event log holds a run.
func hasRunStart(dir string) bool {
	l, err := eventlog.OpenReadOnly(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		return false
	}
	defer l.Close()
	runs, err := l.Runs(context.Background())
	return err == nil && len(runs) > 0
}
