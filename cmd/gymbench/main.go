// Command gymbench runs the gym's small task pages through the real
// orchestrator, as tasks without commit (goal text, a success and a
// failure predicate, nothing else), with the default search and with a
// sequential greedy agent (one branch, one worker) on the same episodes,
// and prints the success per family.
//
//	gymbench [-seeds 10] [-families tabs,radio] [-json]
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

// Row is one family's result.
type Row struct {
	Family string `json:"family"`
	// Ambiguous: several candidates look alike and only trying tells
	// the right one (gym.Ambiguous).
	Ambiguous bool           `json:"ambiguous,omitempty"`
	Seeds     int            `json:"seeds"`
	Solved    map[string]int `json:"solved"` // by mode
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	fams := gym.Families()
	if *only != "" {
		fams = strings.Split(*only, ",")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: gym.Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	var rows []Row
	for _, f := range fams {
		row := Row{Family: f, Ambiguous: gym.Ambiguous(f), Seeds: *seeds, Solved: map[string]int{}}
		for seed := int64(1); seed <= int64(*seeds); seed++ {
			e, err := gym.New(f, seed)
			if err != nil {
				return err
			}
			for _, m := range modes {
				ok, why, err := episode(ctx, base, e, m, *keep)
				if err != nil {
					return fmt.Errorf("%s seed %d (%s): %w", f, seed, m.Name, err)
				}
				if ok {
					row.Solved[m.Name]++
				}
				if *verbose {
					fmt.Fprintf(os.Stderr, "%-14s %3d %-7s %-5v %s\n", f, seed, m.Name, ok, why)
				}
			}
		}
		rows = append(rows, row)
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	printTable(out, rows)
	return nil
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

// episode runs one episode in one mode and says whether the goal was
// reached, and how the run ended.
func episode(ctx context.Context, base string, e gym.Episode, m mode, keep string) (bool, string, error) {
	t, err := task.Parse("gym.yaml", []byte(taskText(base, e, m)))
	if err != nil {
		return false, "", err
	}
	dir, err := os.MkdirTemp(keep, "gymbench-")
	if err != nil {
		return false, "", err
	}
	if keep == "" {
		defer os.RemoveAll(dir)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: t, DataDir: dir, Workers: t.Search.Workers, NoScreenshots: true})
	switch {
	case err == nil:
		return true, fmt.Sprintf("%d branches", sum.Branches.Executed), nil
	case errors.Is(err, orchestrator.ErrNoBoundary), errors.Is(err, orchestrator.ErrGoalNotReached), errors.Is(err, orchestrator.ErrGoalFailed):
		if keep != "" {
			return false, err.Error() + " (data dir " + dir + ", run " + sum.RunID + ")", nil
		}
		return false, err.Error(), nil
	}
	return false, "", err
}

// printTable prints a row per family, the total, and the total over the
// ambiguous families with the search's success as a multiple of the
// greedy agent's.
func printTable(out io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "family\tepisodes\tsearch\tgreedy\t")
	var all, amb Row
	all.Solved, amb.Solved = map[string]int{}, map[string]int{}
	for _, r := range rows {
		name := r.Family
		if r.Ambiguous {
			name += " *"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", name, r.Seeds, pct(r.Solved["search"], r.Seeds), pct(r.Solved["greedy"], r.Seeds))
		for _, t := range []*Row{&all, &amb} {
			if t == &amb && !r.Ambiguous {
				continue
			}
			t.Seeds += r.Seeds
			for m, k := range r.Solved {
				t.Solved[m] += k
			}
		}
	}
	fmt.Fprintf(tw, "all\t%d\t%s\t%s\t\n", all.Seeds, pct(all.Solved["search"], all.Seeds), pct(all.Solved["greedy"], all.Seeds))
	if amb.Seeds > 0 {
		fmt.Fprintf(tw, "ambiguous (*)\t%d\t%s\t%s\t\n", amb.Seeds, pct(amb.Solved["search"], amb.Seeds), pct(amb.Solved["greedy"], amb.Seeds))
	}
	tw.Flush()
	if amb.Seeds > 0 {
		ratio := "∞"
		if g := amb.Solved["greedy"]; g > 0 {
			ratio = fmt.Sprintf("%.2f", float64(amb.Solved["search"])/float64(g))
		}
		fmt.Fprintf(out, "* ambiguous: several candidates look alike and only trying tells the right one; search/greedy = %s\n", ratio)
	}
}

func pct(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d%% (%d)", 100*k/n, k)
}
