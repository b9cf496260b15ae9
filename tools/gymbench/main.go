// Command gymbench runs the gym's small task pages through the real
// orchestrator, as tasks without commit (goal text, a success and a
// failure predicate, nothing else), with the default search and with a
// sequential greedy agent (one branch, one worker) on the same episodes,
// and prints the success per family, with tuning and evaluation
// families (gym.Evaluation) reported apart: the planner is never changed
// to pass the evaluation families, so their part is the measure of
// generality.
//
// It also times the episodes both modes solved whose search winner took
// one to three actions after the start page: the search's time against
// the greedy agent's. With -warm every episode runs with one NATS server
// and one Chromium kept for all (as a warm engine's runs do), so that the
// time is the episodes' own, not the parts' start-up.
//
//	gymbench [-seeds 10] [-part tuning|evaluation|all] [-families tabs,radio] [-warm] [-json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites/gym"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// mode is one way of running an episode.
type mode struct {
	Name   string
	Search string // the task's search section
}

var modes = []mode{
	{Name: "search", Search: "{workers: 2}"},
	{Name: "greedy", Search: "{strategy: greedy, beam_width: 1, min_beam_width: 1, workers: 1}"},
}

// Parts of the gym (gym.Split).
const (
	PartTuning     = "tuning"
	PartEvaluation = "evaluation"
)

// Row is one family's result.
type Row struct {
	Family string `json:"family"`
	// Part is PartTuning or PartEvaluation.
	Part string `json:"part"`
	// Pattern: written after the split from widget patterns of real
	// sites (not gym.Original).
	Pattern bool `json:"pattern,omitempty"`
	// Ambiguous: several candidates look alike and only trying tells
	// the right one (gym.Ambiguous).
	Ambiguous bool           `json:"ambiguous,omitempty"`
	Seeds     int            `json:"seeds"`
	Solved    map[string]int `json:"solved"` // by mode
	// Seconds is the wall clock of the family's episodes, by mode.
	Seconds map[string]float64 `json:"seconds"`
}

// Short is the time of the episodes both modes solved whose search
// winner took one to three actions after the start page, by mode, and
// the search's as a multiple of the greedy agent's.
type Short struct {
	Episodes         int                `json:"episodes"`
	Seconds          map[string]float64 `json:"seconds"`
	SearchOverGreedy float64            `json:"search_over_greedy,omitempty"`
	// Branches, Actions and CPUSeconds are what the episodes executed, by
	// mode: the branches and actions the runs' summaries count, and the
	// CPU of their whole process tree (orchestrator, driver, Chromium).
	// The search tries every candidate of a page, so its time over the
	// greedy agent's is bounded below by its CPU over the greedy agent's
	// divided by the cores it keeps busy.
	Branches   map[string]int     `json:"branches"`
	Actions    map[string]int     `json:"actions"`
	CPUSeconds map[string]float64 `json:"cpu_seconds"`
	// Warm: the episodes ran with the parts kept running (-warm).
	Warm bool `json:"warm"`
}

// Total is the success over a set of families, by mode.
type Total struct {
	Episodes int            `json:"episodes"`
	Solved   map[string]int `json:"solved"`
	// Percent is 100 * Solved / Episodes, by mode.
	Percent map[string]float64 `json:"percent"`
}

// Report is gymbench's JSON output: the rows, the totals per part and
// overall, and on the ambiguous families the search's success as a
// multiple of the greedy agent's (SearchOverGreedy; absent when greedy
// solved none).
type Report struct {
	Rows             []Row            `json:"rows"`
	Parts            map[string]Total `json:"parts"`
	All              Total            `json:"all"`
	Ambiguous        Total            `json:"ambiguous"`
	SearchOverGreedy *float64         `json:"search_over_greedy,omitempty"`
	Short            Short            `json:"short"`
}

// outcome is how one episode ended in one mode.
type outcome struct {
	ok      bool
	why     string
	seconds float64
	actions int // the winner's actions after the start page
	// branches, executed (every action of every branch) and cpu
	// (seconds, the run's process tree) are the run's cost.
	branches, executed int
	cpu                float64
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gymbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("gymbench", flag.ContinueOnError)
	seeds := fs.Int("seeds", 10, "episodes per family (seeds 1..N)")
	only := fs.String("families", "", "comma-separated families (default: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	verbose := fs.Bool("v", false, "print each episode")
	keep := fs.String("keep", "", "keep each episode's data dir under this directory (to read its events)")
	part := fs.String("part", "all", "families to run: tuning, evaluation or all")
	warm := fs.Bool("warm", false, "keep one NATS server and one Chromium for every episode, as a warm engine does")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fams, err := selectFamilies(*part, *only)
	if err != nil {
		return err
	}
	if *keep != "" {
		if err := os.MkdirAll(*keep, 0o755); err != nil {
			return fmt.Errorf("-keep: %w", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: gym.Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	var parts *orchestrator.Parts
	if *warm {
		p, stop, err := warmParts(ctx)
		if err != nil {
			return err
		}
		defer stop()
		parts = p
	}
	var rows []Row
	short := Short{Seconds: map[string]float64{}, Branches: map[string]int{}, Actions: map[string]int{}, CPUSeconds: map[string]float64{}, Warm: *warm}
	for _, f := range fams {
		row := Row{Family: f, Part: partOf(f), Pattern: !gym.Original(f), Ambiguous: gym.Ambiguous(f), Seeds: *seeds, Solved: map[string]int{}, Seconds: map[string]float64{}}
		for seed := int64(1); seed <= int64(*seeds); seed++ {
			e, err := gym.New(f, seed)
			if err != nil {
				return err
			}
			got := map[string]outcome{}
			for _, m := range modes {
				o, err := episode(ctx, base, e, m, *keep, parts)
				if err != nil {
					return fmt.Errorf("%s seed %d (%s): %w", f, seed, m.Name, err)
				}
				got[m.Name] = o
				row.Seconds[m.Name] += o.seconds
				if o.ok {
					row.Solved[m.Name]++
				}
				if *verbose {
					fmt.Fprintf(os.Stderr, "%-14s %3d %-7s %-5v %5.2fs %s\n", f, seed, m.Name, o.ok, o.seconds, o.why)
				}
			}
			if s, g := got["search"], got["greedy"]; s.ok && g.ok && s.actions >= 1 && s.actions <= 3 {
				short.Episodes++
				for name, o := range map[string]outcome{"search": s, "greedy": g} {
					short.Seconds[name] += o.seconds
					short.Branches[name] += o.branches
					short.Actions[name] += o.executed
					short.CPUSeconds[name] += o.cpu
				}
			}
		}
		rows = append(rows, row)
	}
	rep := report(rows)
	if g := short.Seconds["greedy"]; g > 0 {
		short.SearchOverGreedy = short.Seconds["search"] / g
	}
	rep.Short = short
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printTable(out, rep)
	return nil
}

// selectFamilies is the families a run covers: those of the part
// (tuning, evaluation or all), narrowed to the named ones when names are
// given; an unknown part or family is an error naming it.
func selectFamilies(part, names string) ([]string, error) {
	tuning, evaluation := gym.Split()
	var fams []string
	switch part {
	case "all", "":
		fams = gym.Families()
	case PartTuning:
		fams = tuning
	case PartEvaluation:
		fams = evaluation
	default:
		return nil, fmt.Errorf("-part %q: want tuning, evaluation or all", part)
	}
	if names == "" {
		return fams, nil
	}
	in := map[string]bool{}
	for _, f := range fams {
		in[f] = true
	}
	known := map[string]bool{}
	for _, f := range gym.Families() {
		known[f] = true
	}
	var out []string
	for _, f := range strings.Split(names, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			continue
		case !known[f]:
			return nil, fmt.Errorf("-families: %w %q", gym.ErrUnknownFamily, f)
		case in[f]:
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-families %q: none of them is in part %q", names, part)
	}
	return out, nil
}

// partOf is the family's part.
func partOf(f string) string {
	if gym.Evaluation(f) {
		return PartEvaluation
	}
	return PartTuning
}

// report sums the rows per part, overall and over the ambiguous
// families.
func report(rows []Row) Report {
	rep := Report{Rows: rows, Parts: map[string]Total{}}
	add := func(t Total, r Row) Total {
		if t.Solved == nil {
			t.Solved, t.Percent = map[string]int{}, map[string]float64{}
		}
		t.Episodes += r.Seeds
		for _, m := range modes {
			t.Solved[m.Name] += r.Solved[m.Name]
			t.Percent[m.Name] = 100 * float64(t.Solved[m.Name]) / float64(t.Episodes)
		}
		return t
	}
	for _, r := range rows {
		rep.Parts[r.Part] = add(rep.Parts[r.Part], r)
		rep.All = add(rep.All, r)
		if r.Ambiguous {
			rep.Ambiguous = add(rep.Ambiguous, r)
		}
	}
	if g := rep.Ambiguous.Solved["greedy"]; g > 0 {
		x := float64(rep.Ambiguous.Solved["search"]) / float64(g)
		rep.SearchOverGreedy = &x
	}
	return rep
}

// taskText is an episode as a plain task file: its goal text, and the
// page's own verdict as the success and failure predicates.
func taskText(base string, e gym.Episode, m mode) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`version: 1
name: gym-%s-%d
start_url: %s
seed: %d
goal:
  text: %s
  success:
    - {name: solved, visible: %s}
  failure:
    - {name: wrong, visible: %s}
budgets: {wall_clock: 90s, branch_wall_clock: 30s, steps_per_branch: 8, total_branches: 40, action_timeout: 5s}
search: %s
`, e.Family, e.Seed, q(base+e.Path), e.Seed, q(e.Goal), q(gym.SuccessSelector), q(gym.FailureSelector), m.Search)
}

// episode runs one episode in one mode (with parts, when not nil) and
// says whether the goal was reached, how the run ended, how long it took
// and how many actions its winner took after the start page.
func episode(ctx context.Context, base string, e gym.Episode, m mode, keep string, parts *orchestrator.Parts) (outcome, error) {
	t, err := task.Parse("gym.yaml", []byte(taskText(base, e, m)))
	if err != nil {
		return outcome{}, err
	}
	dir, err := os.MkdirTemp(keep, "gymbench-")
	if err != nil {
		return outcome{}, err
	}
	if keep == "" {
		defer os.RemoveAll(dir)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	start := time.Now()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: t, DataDir: dir, Workers: t.Search.Workers, NoScreenshots: true, Parts: parts})
	o := outcome{seconds: time.Since(start).Seconds()}
	switch {
	case err == nil:
		o.branches, o.executed, o.cpu = sum.Branches.Executed, sum.Actions, (sum.CPU + sum.DriverCPU + sum.BrowserCPU).Seconds()
		o.ok, o.why = true, fmt.Sprintf("%d branches, %d actions, %.2f CPU-s (%.1f cores busy)", o.branches, o.executed, o.cpu, o.cpu/o.seconds)
		if sum.Winner != nil {
			o.actions = len(sum.Winner.Steps) - 1
		}
		return o, nil
	case errors.Is(err, orchestrator.ErrNoBoundary), errors.Is(err, orchestrator.ErrGoalNotReached), errors.Is(err, orchestrator.ErrGoalFailed):
		o.why = err.Error()
		if keep != "" {
			o.why += " (data dir " + dir + ", run " + sum.RunID + ")"
		}
		return o, nil
	}
	return o, err
}

// warmParts starts the parts every episode shares with -warm: an
// embedded NATS server (its store in a directory of its own) and a
// Chromium kept running.
func warmParts(ctx context.Context) (*orchestrator.Parts, func(), error) {
	dir, err := os.MkdirTemp("", "gymbench-nats-")
	if err != nil {
		return nil, nil, err
	}
	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: dir, Host: "127.0.0.1"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	k := browser.NewKeeper(browser.Options{}, nil)
	if _, err := k.Get(ctx); err != nil {
		srv.Shutdown()
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return &orchestrator.Parts{NATS: srv, Runtime: k.Get, Selectors: &orchestrator.ValidSelectors{}}, func() { k.Close(); srv.Shutdown(); os.RemoveAll(dir) }, nil
}

// printTable prints the tuning and then the evaluation families, a row
// each (pattern families marked +, ambiguous ones *), the total of each
// part, the total over all, and the total over the ambiguous families
// with the search's success as a multiple of the greedy agent's.
func printTable(out io.Writer, rep Report) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "family\tepisodes\tsearch\tgreedy\t")
	line := func(name string, t Total) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", name, t.Episodes, pct(t.Solved["search"], t.Episodes), pct(t.Solved["greedy"], t.Episodes))
	}
	for _, part := range []string{PartTuning, PartEvaluation} {
		t, ok := rep.Parts[part]
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "-- %s families\t\t\t\t\n", part)
		for _, r := range rep.Rows {
			if r.Part != part {
				continue
			}
			name := r.Family
			if r.Pattern {
				name += " +"
			}
			if r.Ambiguous {
				name += " *"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", name, r.Seeds, pct(r.Solved["search"], r.Seeds), pct(r.Solved["greedy"], r.Seeds))
		}
		line(part+" total", t)
	}
	fmt.Fprintln(tw, "--\t\t\t\t")
	line("all", rep.All)
	if rep.Ambiguous.Episodes > 0 {
		line("ambiguous (*)", rep.Ambiguous)
	}
	tw.Flush()
	fmt.Fprintln(out, "+ pattern family, written after the split from widget patterns of real sites")
	if rep.Ambiguous.Episodes > 0 {
		ratio := "∞"
		if rep.SearchOverGreedy != nil {
			ratio = fmt.Sprintf("%.2f", *rep.SearchOverGreedy)
		}
		fmt.Fprintf(out, "* ambiguous: several candidates look alike and only trying tells the right one; search/greedy = %s\n", ratio)
	}
	fmt.Fprintln(out, "evaluation families are frozen: the planner is never changed to pass them (sites/gym/split.go)")
	if sh := rep.Short; sh.Episodes > 0 {
		how := "each run starting its own NATS server and Chromium"
		if sh.Warm {
			how = "NATS and Chromium kept running (-warm)"
		}
		fmt.Fprintf(out, "episodes both solved in 1 to 3 actions: %d; search %.1fs, greedy %.1fs: search/greedy %.2f (%s)\n",
			sh.Episodes, sh.Seconds["search"], sh.Seconds["greedy"], sh.SearchOverGreedy, how)
		if sh.CPUSeconds["greedy"] > 0 && sh.Seconds["search"] > 0 && sh.Seconds["greedy"] > 0 {
			fmt.Fprintf(out, "  what bounds it: search %d branches, %d actions, %.1f CPU-s (%.1f cores busy); greedy %d branches, %d actions, %.1f CPU-s (%.1f cores busy): CPU search/greedy %.2f\n",
				sh.Branches["search"], sh.Actions["search"], sh.CPUSeconds["search"], sh.CPUSeconds["search"]/sh.Seconds["search"],
				sh.Branches["greedy"], sh.Actions["greedy"], sh.CPUSeconds["greedy"], sh.CPUSeconds["greedy"]/sh.Seconds["greedy"],
				sh.CPUSeconds["search"]/sh.CPUSeconds["greedy"])
		}
	}
}

func pct(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d)", 100*float64(k)/float64(n), k)
}
