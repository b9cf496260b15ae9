package simweb

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// Summary aggregates the outcomes of one strategy.
type Summary struct {
	Strategy string `json:"strategy"`
	// Sites counts the sites evaluated; Failed those where the strategy
	// could not run (Error holds the first such error).
	Sites  int    `json:"sites"`
	Failed int    `json:"failed,omitempty"`
	Error  string `json:"error,omitempty"`
	// Successes and TrapSites, TrapSuccesses count sites and wins.
	Successes     int `json:"successes"`
	TrapSites     int `json:"trap_sites"`
	TrapSuccesses int `json:"trap_successes"`
	// SuccessRate and TrapSuccessRate are shares in [0, 1] of the sites
	// that ran.
	SuccessRate     float64 `json:"success_rate"`
	TrapSuccessRate float64 `json:"trap_success_rate"`
	// MeanActions is over every site that ran; MeanSimTime over the sites
	// with a winner (the time to the boundary decision).
	MeanActions float64       `json:"mean_actions"`
	MeanSimTime time.Duration `json:"mean_sim_time_ns"`
	// Overruns counts outcomes that went past the cost budget;
	// MaxOverrun is the largest excess in cost units.
	Overruns   int     `json:"overruns"`
	MaxOverrun float64 `json:"max_overrun"`
}

// Available reports whether the strategy ran on any site.
func (s Summary) Available() bool { return s.Sites > s.Failed }

// Summarize aggregates outcomes per strategy, strategies in order of
// first appearance.
func Summarize(results []Outcome) []Summary {
	var order []string
	by := map[string]*Summary{}
	simSum := map[string]time.Duration{}
	actions := map[string]int{}
	for _, o := range results {
		s := by[o.Strategy]
		if s == nil {
			s = &Summary{Strategy: o.Strategy}
			by[o.Strategy] = s
			order = append(order, o.Strategy)
		}
		s.Sites++
		if o.Error != "" {
			s.Failed++
			if s.Error == "" {
				s.Error = o.Error
			}
			continue
		}
		actions[o.Strategy] += o.Actions
		if o.Trap {
			s.TrapSites++
		}
		if o.Success {
			s.Successes++
			simSum[o.Strategy] += o.SimTime
			if o.Trap {
				s.TrapSuccesses++
			}
		}
		if o.Overrun > 0 {
			s.Overruns++
			s.MaxOverrun = max(s.MaxOverrun, o.Overrun)
		}
	}
	out := make([]Summary, 0, len(order))
	for _, name := range order {
		s := by[name]
		if ran := s.Sites - s.Failed; ran > 0 {
			s.SuccessRate = float64(s.Successes) / float64(ran)
			s.MeanActions = float64(actions[name]) / float64(ran)
		}
		if s.TrapSites > 0 {
			s.TrapSuccessRate = float64(s.TrapSuccesses) / float64(s.TrapSites)
		}
		if s.Successes > 0 {
			s.MeanSimTime = simSum[name] / time.Duration(s.Successes)
		}
		out = append(out, *s)
	}
	return out
}

// Table formats the per-strategy summary as an aligned text table: sites,
// success rate overall and on trap sites, mean actions executed, mean
// simulated wall clock to the boundary, and budget overruns (count and
// largest excess in cost units). A strategy that could not run shows
// "n/a", with its error listed under the table.
func Table(results []Outcome) string {
	var b strings.Builder
	sums := Summarize(results)
	// Strategy names are padded so that they read left-aligned in a
	// right-aligned table.
	wide := len("strategy")
	for _, s := range sums {
		wide = max(wide, len(s.Strategy))
	}
	name := func(s string) string { return s + strings.Repeat(" ", wide-len(s)) }
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tsites\tsuccess\ton traps\tactions\tsim time\toverruns\tmax over\t\n", name("strategy"))
	var notes []string
	for _, s := range sums {
		if !s.Available() {
			fmt.Fprintf(tw, "%s\t%d\tn/a\tn/a\tn/a\tn/a\tn/a\tn/a\t\n", name(s.Strategy), s.Sites)
			notes = append(notes, fmt.Sprintf("%s: %s", s.Strategy, s.Error))
			continue
		}
		traps := "-"
		if s.TrapSites > 0 {
			traps = pct(s.TrapSuccessRate)
		}
		sim := "-"
		if s.Successes > 0 {
			sim = fmt.Sprintf("%.2fs", s.MeanSimTime.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%s\t%d\t%.1f\t\n", name(s.Strategy), s.Sites, pct(s.SuccessRate), traps,
			s.MeanActions, sim, s.Overruns, s.MaxOverrun)
		if s.Failed > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d of %d sites could not run: %s", s.Strategy, s.Failed, s.Sites, s.Error))
		}
	}
	tw.Flush()
	// Right alignment pads the first column on the left too.
	lines := strings.SplitAfter(b.String(), "\n")
	b.Reset()
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(l, "  "))
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
