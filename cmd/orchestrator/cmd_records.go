package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func openExisting(dataDir, name string) (string, error) {
	p := filepath.Join(dataDir, name)
	if _, err := os.Stat(p); err != nil {
		return "", badInput("no %s in data dir %s (run a task first, or pass --data-dir)", name, dataDir)
	}
	return p, nil
}

func cmdLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator ledger list [flags]"); fs.PrintDefaults() }
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "list" {
		fs.Usage()
		return errUsage
	}
	p, err := openExisting(*dataDir, "ledger.db")
	if err != nil {
		return err
	}
	l, err := ledger.Open(ctx, p)
	if err != nil {
		return err
	}
	defer l.Close()
	es, err := l.List(ctx, ledger.Filter{})
	if err != nil {
		return err
	}
	if *asJSON {
		return ledger.WriteJSON(stdout, es)
	}
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tORDER\tATTEMPTS\tRUN\tUPDATED\tKEY")
	for _, e := range es {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", e.ID, e.State, e.OrderID, e.Attempts, e.RunID, e.UpdatedAt.Format("2006-01-02 15:04:05"), e.Key)
	}
	return tw.Flush()
}

func cmdEvents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("events", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print JSON lines")
	br := fs.String("branch", "", "only this branch's events")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator events RUN_ID [flags]"); fs.PrintDefaults() }
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	p, err := openExisting(*dataDir, "events.db")
	if err != nil {
		return err
	}
	l, err := eventlog.Open(ctx, p)
	if err != nil {
		return err
	}
	defer l.Close()
	es, err := l.Events(ctx, pos[0], eventlog.Query{BranchID: *br})
	if errors.Is(err, eventlog.ErrRunNotFound) {
		return badInput("no run %s in %s (orchestrator runs lists them)", pos[0], p)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return eventlog.WriteJSONL(stdout, es)
	}
	for _, e := range es {
		fmt.Fprintln(stdout, eventlog.Pretty(e))
	}
	if err := l.Verify(ctx, pos[0]); err != nil {
		return fmt.Errorf("the event log of run %s does not verify: %w", pos[0], err)
	}
	return nil
}

func cmdRuns(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return errUsage
	}
	p, err := openExisting(*dataDir, "events.db")
	if err != nil {
		return err
	}
	l, err := eventlog.Open(ctx, p)
	if err != nil {
		return err
	}
	defer l.Close()
	runs, err := l.Runs(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tEVENTS\tFIRST\tLAST\tLAST KIND")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", r.RunID, r.Events, r.First.Format("2006-01-02 15:04:05"), r.Last.Format("15:04:05"), r.LastKind)
	}
	return tw.Flush()
}
