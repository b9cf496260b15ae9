package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// runRow is one run as `runs` lists it (and prints with --json).
type runRow struct {
	RunID string `json:"run_id"`
	Task  string `json:"task"`
	// Outcome is the run's status (committed, no_boundary, ...), or
	// "unfinished" when the log has no run_end (a run still going, or
	// one killed).
	Outcome    string    `json:"outcome"`
	ExitCode   *int      `json:"exit_code,omitempty"` // the CLI's exit code, when it finished
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"` // as run_end records it; else first to last event
	Branches   int       `json:"branches"`    // branches executed
	Winner     string    `json:"winner,omitempty"`
	Events     int64     `json:"events"`
}

// outcomeUnfinished is the outcome of a run whose log has no run_end.
const outcomeUnfinished = "unfinished"

func cmdRuns(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator runs [RUN_ID_PREFIX] [flags]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return wrongArgs(fs, stderr, pos, "at most one RUN_ID_PREFIX")
	}
	l, err := openEventsRO(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer l.Close()
	runs, err := listRuns(ctx, l, pos)
	if err != nil {
		return err
	}
	rows := make([]runRow, len(runs))
	for i, r := range runs {
		if rows[i], err = describeRun(ctx, l, r); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rows)
	}
	return printRuns(stdout, rows)
}

// listRuns returns the log's runs, newest first: all of them, or those
// whose id starts with the prefix given (none is bad input).
func listRuns(ctx context.Context, l *eventlog.Log, pos []string) ([]eventlog.RunInfo, error) {
	all, err := l.Runs(ctx)
	if err != nil || len(pos) == 0 {
		return all, err
	}
	ids, err := l.RunIDs(ctx, cutID(pos[0]), 0)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, &idError{What: "run", ID: pos[0], In: l.Path(), Next: "`orchestrator runs` lists the runs"}
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []eventlog.RunInfo
	for _, r := range all {
		if want[r.RunID] {
			out = append(out, r)
		}
	}
	return out, nil
}

// describeRun reads what a run was and how it ended from its run_start,
// run_end and winner events.
func describeRun(ctx context.Context, l *eventlog.Log, r eventlog.RunInfo) (runRow, error) {
	row := runRow{RunID: r.RunID, Outcome: outcomeUnfinished, Started: r.First.UTC(), DurationMS: r.Last.Sub(r.First).Milliseconds(), Events: r.Events}
	es, err := l.Events(ctx, r.RunID, eventlog.Query{Kinds: []string{eventlog.KindRunStart, eventlog.KindRunEnd, eventlog.KindWinner}})
	if err != nil {
		return row, err
	}
	for _, e := range es {
		switch e.Kind {
		case eventlog.KindRunStart:
			if p, err := payload.Decode[payload.RunStart](e); err == nil {
				row.Task = p.Task
			}
		case eventlog.KindWinner:
			row.Winner = e.BranchID
		case eventlog.KindRunEnd:
			if p, err := payload.Decode[payload.RunEnd](e); err == nil {
				row.Outcome, row.DurationMS, row.Branches = p.Status, p.ElapsedMS, p.Branches.Executed
				row.ExitCode = &p.ExitCode
			}
		}
	}
	return row, nil
}

// printRuns writes rows as a table that fits 120 columns: the run id in
// full (any unique prefix of it names the run), the task cut to 24.
func printRuns(w io.Writer, rows []runRow) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tTASK\tOUTCOME\tSTARTED (UTC)\tTOOK\tBRANCHES\tWINNER")
	for _, r := range rows {
		winner := "-"
		if r.Winner != "" {
			winner = eventlog.ShortID(r.Winner)
		}
		branches := "-"
		if r.ExitCode != nil {
			branches = strconv.Itoa(r.Branches)
		}
		took := (time.Duration(r.DurationMS) * time.Millisecond).Round(100 * time.Millisecond)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.RunID, clipTo(orDash(r.Task), 24), clipTo(r.Outcome, 14),
			r.Started.Format("2006-01-02 15:04:05"), took, branches, winner)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
