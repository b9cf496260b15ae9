package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// ledgerCompensate is `ledger compensate ENTRY`: the committer undoes a
// committed row through the task's commit.compensate, in a run of its own
// (its events, evidence and ledger transitions recorded as any run's).
func ledgerCompensate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ledger compensate", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print JSON")
	taskFile := fs.String("task", "", "the task file whose commit.compensate undoes the row (default: the one the row's run ran)")
	reason := fs.String("reason", "requested", "why the commit is undone (recorded in the ledger)")
	startURL := fs.String("start-url", "", "override the task's start_url (the same site at another address)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator ledger compensate ENTRY [--task FILE] [--reason TEXT] [flags]\n\n"+
			"Undoes a committed side effect (cancels the order) with the task's commit.compensate, through the\n"+
			"committer under the undo's own idempotency key; a row already compensated sends nothing.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return wrongArgs(fs, stderr, pos, "one ENTRY: an entry id, a unique prefix of one, an idempotency key or its run")
	}
	key, runID, err := entryKeyAndRun(ctx, *dataDir, pos[0])
	if err != nil {
		return err
	}
	t, err := compensationTask(ctx, *dataDir, runID, *taskFile)
	if err != nil {
		return err
	}
	if *startURL != "" {
		if t, err = t.WithStartURL(*startURL); err != nil {
			return err
		}
	}
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: t, DataDir: *dataDir, Workers: 1,
		Compensate: &orchestrator.CompensateRequest{Key: key, Reason: *reason}})
	if *asJSON {
		printSummary(stdout, sum, err, true)
		return err
	}
	printCompensation(stdout, sum, err)
	return err
}

// entryKeyAndRun resolves ENTRY in the ledger (read-only) to its key and
// the run that committed it.
func entryKeyAndRun(ctx context.Context, dataDir, ref string) (key, runID string, err error) {
	l, err := openLedgerRO(ctx, dataDir)
	if err != nil {
		return "", "", err
	}
	defer l.Close()
	e, err := resolveEntry(ctx, l, ref)
	if err != nil {
		return "", "", err
	}
	return e.Key, e.RunID, nil
}

// compensationTask loads the task given, or the one the run named in its
// manifest.
func compensationTask(ctx context.Context, dataDir, runID, file string) (*task.Task, error) {
	if file != "" {
		return task.Load(file)
	}
	el, err := openEventsRO(ctx, dataDir)
	if err != nil {
		return nil, err
	}
	defer el.Close()
	evs, err := el.Events(ctx, runID, eventlog.Query{Kinds: []string{eventlog.KindRunStart}})
	if err != nil || len(evs) == 0 {
		return nil, badInput("run %s left no manifest naming its task: give the task with --task", runID)
	}
	m, err := payload.Decode[payload.RunStart](evs[0])
	if err != nil || m.TaskFile == "" {
		return nil, badInput("run %s names no task file: give the task with --task", runID)
	}
	return loadRunTask(m.TaskFile)
}

// printCompensation prints how a compensation run ended.
func printCompensation(w io.Writer, s *orchestrator.Summary, err error) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "Multiverse compensation %s: task %s\n", s.RunID, s.Task)
	if c := s.Commit; c != nil && c.EntryID != "" {
		switch {
		case c.Existing:
			fmt.Fprintf(w, "  undo      order %s was undone earlier (ledger entry %s); nothing was sent to the site\n", c.OrderID, c.EntryID)
		case c.State == "compensated":
			fmt.Fprintf(w, "  undo      order %s undone: the site confirmed (ledger entry %s)\n", c.OrderID, c.EntryID)
		default:
			fmt.Fprintf(w, "  undo      order %s: %s: %s (ledger entry %s)\n", c.OrderID, c.State, c.Error, c.EntryID)
		}
		fmt.Fprintf(w, "  ledger    %s  key %s\n            undo key %s\n", c.State, c.Key, c.CompensationKey)
	}
	fmt.Fprintf(w, "  records   events %s  (orchestrator events %s --data-dir %s)\n", s.Paths.Events, s.RunID, s.Paths.DataDir)
	status := s.Status
	if err != nil {
		status += ": " + oneLine(err.Error())
	}
	fmt.Fprintf(w, "  result    %s in %s\n", status, s.Elapsed.Round(10*time.Millisecond))
}
