// Command simbench compares the planner's search strategies on generated,
// simulated vendor sites: no browser, a simulated clock and simulated
// workers, the same numbers on every run.
//
//	simbench [-sites 200] [-seed 1] [-workers 4] [-strategies beam,uct,greedy,bfs,random] [-json]
//
// It prints, per strategy, the success rate overall and on trap sites, the
// mean actions executed, the mean simulated wall clock to the boundary and
// the budget overruns. With -json it writes the summaries and every
// outcome as JSON to stdout and the table to stderr. Exit status 2 means
// bad flags.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/simweb"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// report is the -json document.
type report struct {
	Seed       int64              `json:"seed"`
	Sites      int                `json:"sites"`
	TrapRate   float64            `json:"trap_rate"`
	Options    simweb.EvalOptions `json:"options"`
	Strategies []string           `json:"strategies"`
	Elapsed    string             `json:"elapsed"`
	Summary    []simweb.Summary   `json:"summary"`
	Outcomes   []simweb.Outcome   `json:"outcomes"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := simweb.DefaultEvalOptions()
	sites := fs.Int("sites", 200, "number of generated sites")
	seed := fs.Int64("seed", 1, "seed of the first site; the others follow it")
	workers := fs.Int("workers", def.Workers, "simulated workers executing each wave")
	strategies := fs.String("strategies", "beam,uct,greedy,bfs,random", "comma-separated search strategies to compare")
	asJSON := fs.Bool("json", false, "write summaries and outcomes as JSON to stdout (the table goes to stderr)")
	trapRate := fs.Float64("trap-rate", simweb.DefaultTrapRate, "share of sites with traps, in [0, 1]")
	warm := fs.Bool("warm", def.Warm, "let a parent's first child continue its live context")
	contextMS := fs.Int64("context-ms", def.ContextMS, "simulated time to open a fresh browser context")
	observeMS := fs.Int64("observe-ms", def.ObserveMS, "simulated time to observe a page")
	parallel := fs.Int("parallel", 0, "evaluations run at once (0: one per CPU)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var names []string
	for _, s := range strings.Split(*strategies, ",") {
		if s = strings.TrimSpace(s); s != "" {
			names = append(names, s)
		}
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "simbench: unexpected argument %q\n", fs.Arg(0))
		return 2
	case *sites < 1:
		fmt.Fprintln(stderr, "simbench: -sites must be at least 1")
		return 2
	case *workers < 1:
		fmt.Fprintln(stderr, "simbench: -workers must be at least 1")
		return 2
	case len(names) == 0:
		fmt.Fprintln(stderr, "simbench: -strategies names no strategy")
		return 2
	case *trapRate < 0 || *trapRate > 1:
		fmt.Fprintln(stderr, "simbench: -trap-rate must be in [0, 1]")
		return 2
	case *contextMS < 0 || *observeMS < 0:
		fmt.Fprintln(stderr, "simbench: -context-ms and -observe-ms must not be negative")
		return 2
	}
	cfg := simweb.DefaultConfig()
	cfg.Traps, cfg.TrapRate = *trapRate > 0, *trapRate
	opts := simweb.EvalOptions{Workers: *workers, ContextMS: *contextMS, ObserveMS: *observeMS, Warm: *warm}

	start := time.Now()
	list := make([]*simweb.Site, *sites)
	for i := range list {
		list[i] = simweb.Generate(*seed+int64(i), cfg)
	}
	outcomes := simweb.EvaluateAll(list, names, opts, *parallel)
	elapsed := time.Since(start).Round(time.Millisecond)
	table := simweb.Table(outcomes)
	if !*asJSON {
		fmt.Fprint(stdout, table)
		fmt.Fprintf(stdout, "%d sites from seed %d, %d simulated workers, evaluated in %s\n", *sites, *seed, *workers, elapsed)
		return 0
	}
	fmt.Fprint(stderr, table)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report{Seed: *seed, Sites: *sites, TrapRate: *trapRate, Options: opts, Strategies: names,
		Elapsed: elapsed.String(), Summary: simweb.Summarize(outcomes), Outcomes: outcomes}); err != nil {
		fmt.Fprintf(stderr, "simbench: %v\n", err)
		return 1
	}
	return 0
}
