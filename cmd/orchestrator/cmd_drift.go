package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/drift"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func cmdDrift(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("drift", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	taskName := fs.String("task", "", "only the runs of the task of this name")
	since := fs.Duration("since", 0, "only the runs that started within this long (e.g. 168h)")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator drift [flags]\n\n"+
			"How the sites drifted under the plans, across the data dir's runs: the targets the\n"+
			"selector a plan names no longer found (healed by another strategy), by strategy and\n"+
			"over time, the most fragile selectors, and the steps that grew slower.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	if *since < 0 {
		return badInput("--since %s is negative", *since)
	}
	l, err := openEventsRO(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer l.Close()
	opts := drift.Options{Task: *taskName}
	if *since > 0 {
		opts.Since = time.Now().Add(-*since)
	}
	rep, err := drift.Build(ctx, l, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	printDrift(stdout, rep, *taskName)
	return nil
}

// printDrift prints a drift report for people.
func printDrift(w io.Writer, rep *drift.Report, task string) {
	scope := "every task"
	if task != "" {
		scope = "task " + task
	}
	if rep.Runs == 0 {
		fmt.Fprintf(w, "drift: no runs of %s in the data dir\n", scope)
		return
	}
	fmt.Fprintf(w, "drift over %d run(s) of %s, %s to %s: %d step(s) on %d target(s)\n", rep.Runs, scope,
		rep.From.Local().Format(time.DateTime), rep.To.Local().Format(time.DateTime), rep.Steps, rep.Targets)
	if len(rep.Healed) == 0 {
		fmt.Fprintln(w, "healed    none: every target was found by the selector its plan names")
	}
	for _, t := range rep.Healed {
		fmt.Fprintf(w, "healed    %s  %s\n", t.Action, t.Selector)
		fmt.Fprintf(w, "          in %d of %d run(s), by %s; first %s, last %s%s\n", t.Healed, t.Runs, strategies(t.Strategies),
			t.FirstHealed.Local().Format(time.DateTime), t.LastHealed.Local().Format(time.DateTime), lastNamed(t))
	}
	for i, t := range rep.Fragile {
		fmt.Fprintf(w, "fragile   %2d. %-40s %3.0f%% of %d run(s) healed\n", i+1, t.Selector, 100*t.Fragility, t.Runs)
	}
	for _, s := range rep.Slower {
		fmt.Fprintf(w, "slower    %s  %s: median %d ms -> %d ms (%.1fx) over %d run(s)\n", s.Action, s.Selector, s.BeforeMS, s.AfterMS, s.Ratio, s.Runs)
	}
	for _, u := range rep.Unread {
		fmt.Fprintf(w, "unread    %s\n", u)
	}
}

func strategies(by map[string]int) string {
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		return by[names[i]] > by[names[j]] || by[names[i]] == by[names[j]] && names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, by[n])
	}
	return strings.Join(parts, ", ")
}

func lastNamed(t drift.Target) string {
	if t.LastNamed.IsZero() {
		return "; the named selector never found it"
	}
	return "; the named selector last found it " + t.LastNamed.Local().Format(time.DateTime)
}
