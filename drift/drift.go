// Package drift reads a data dir's event log across runs and reports how
// the sites drifted under the plans: the targets the selector a plan names
// no longer found (the healing cascade found them by another strategy),
// by strategy and over time, the most fragile selectors, and the steps
// that grew slower. It reads the log only: no browser, no bus, no engine.
//
// A target is what a step acts on, named by the first strategy its plan
// carries (testid=plan-team, role=button "Choose Team", #seats): the same
// target in every run that plans it so, whoever planned it (the search, a
// cached plan). A step counts once per branch that executed it, replayed
// prefixes not again.
package drift

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// Options select the runs a report reads. The zero value reads every run.
type Options struct {
	// Task keeps the runs of the task of this name.
	Task string
	// Since keeps the runs that started at or after it.
	Since time.Time
}

// Report is drift across runs.
type Report struct {
	Runs     int       `json:"runs"`
	From     time.Time `json:"from,omitzero"`
	To       time.Time `json:"to,omitzero"`
	Targets  int       `json:"targets"`
	Steps    int       `json:"steps"`
	Unread   []string  `json:"unread,omitempty"`
	Healed   []Target  `json:"healed"`
	Fragile  []Target  `json:"fragile"`
	Slower   []Slower  `json:"slower"`
	Settings Settings  `json:"settings"`
}

// Settings are the report's thresholds, as it applied them.
type Settings struct {
	// MinUses is the least runs a target needs to rank as fragile, and
	// half the least to rank as slower.
	MinUses int `json:"min_uses"`
	// SlowerRatio and SlowerMS: a step is slower when the median of its
	// later half of runs is at least SlowerRatio times and SlowerMS more
	// than the median of its earlier half.
	SlowerRatio float64 `json:"slower_ratio"`
	SlowerMS    int64   `json:"slower_ms"`
	// Top bounds the fragile and slower lists.
	Top int `json:"top"`
}

// DefaultSettings are the thresholds Build applies.
var DefaultSettings = Settings{MinUses: 2, SlowerRatio: 1.5, SlowerMS: 100, Top: 10}

// Target is one target's record across the runs.
type Target struct {
	Task     string `json:"task"`
	Action   string `json:"action"`
	Selector string `json:"selector"`
	Uses     int    `json:"uses"`
	Runs     int    `json:"runs"`
	Healed   int    `json:"healed_runs"`
	// Strategies counts the strategy that found the target when the
	// named one did not.
	Strategies map[string]int `json:"strategies,omitempty"`
	// Uses counts the steps that acted on the target (every branch);
	// Runs the runs that did, Healed those where it needed healing.
	// Fragility is Healed over Runs.
	Fragility   float64   `json:"fragility"`
	FirstHealed time.Time `json:"first_healed,omitzero"`
	LastHealed  time.Time `json:"last_healed,omitzero"`
	// LastNamed is the last time the named selector found the target.
	LastNamed time.Time `json:"last_named,omitzero"`
	// History is each run's use of the target, oldest first.
	History []Use `json:"history"`

	durations []int64
}

// Use is how one run found a target: by its named selector, or healed by
// another strategy (when any of its branches needed it), and how long its
// step took (the longest of the run's branches).
type Use struct {
	RunID      string    `json:"run_id"`
	Time       time.Time `json:"time"`
	Healed     bool      `json:"healed"`
	Strategy   string    `json:"strategy"`
	DurationMS int64     `json:"duration_ms"`
}

// Slower is a step whose duration grew from the earlier runs to the later.
type Slower struct {
	Task     string  `json:"task"`
	Action   string  `json:"action"`
	Selector string  `json:"selector"`
	Runs     int     `json:"runs"`
	BeforeMS int64   `json:"before_ms"`
	AfterMS  int64   `json:"after_ms"`
	Ratio    float64 `json:"ratio"`
}

// Records is what a report reads: an event log (*eventlog.Log) or
// anything that serves runs and their events the same way.
type Records interface {
	Runs(ctx context.Context) ([]eventlog.RunInfo, error)
	Events(ctx context.Context, runID string, q eventlog.Query) ([]eventlog.Event, error)
}

// Build reads the runs of l that opts selects, oldest first.
func Build(ctx context.Context, l Records, opts Options) (*Report, error) {
	runs, err := l.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("drift: %w", err)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].First.Before(runs[j].First) })
	rep := &Report{Settings: DefaultSettings, Healed: []Target{}, Fragile: []Target{}, Slower: []Slower{}}
	targets := map[string]*Target{}
	for _, ri := range runs {
		if !opts.Since.IsZero() && ri.First.Before(opts.Since) {
			continue
		}
		task, uses, err := readRun(ctx, l, ri.RunID)
		if err != nil {
			rep.Unread = append(rep.Unread, fmt.Sprintf("run %s: %v", ri.RunID, err))
			continue
		}
		if task == "" || opts.Task != "" && task != opts.Task {
			continue
		}
		rep.Runs++
		if rep.From.IsZero() {
			rep.From = ri.First
		}
		rep.To = ri.First
		for _, u := range uses {
			k := task + "\x00" + u.action.Kind + "\x00" + u.selector
			t := targets[k]
			if t == nil {
				t = &Target{Task: task, Action: u.action.Describe(), Selector: u.selector, Strategies: map[string]int{}}
				targets[k] = t
			}
			t.add(ri, u)
			rep.Steps++
		}
	}
	rep.Targets = len(targets)
	rep.rank(targets)
	return rep, nil
}

// stepUse is one executed step of a run, its step at its longest.
type stepUse struct {
	action   branch.Action
	selector string
	healed   bool
	strategy string
	ms       int64
	count    int
}

// readRun returns a run's task and its executed steps that act on a
// target, one per target and run (healed when any branch healed it).
func readRun(ctx context.Context, l Records, runID string) (string, []stepUse, error) {
	evs, err := l.Events(ctx, runID, eventlog.Query{Kinds: []string{eventlog.KindRunStart, eventlog.KindBranchFork, eventlog.KindActionEnd}})
	if err != nil {
		return "", nil, err
	}
	task := ""
	plans := map[string]branch.Plan{}
	byKey := map[string]*stepUse{}
	var order []string
	for _, e := range evs {
		switch e.Kind {
		case eventlog.KindRunStart:
			rs, err := payload.Decode[payload.RunStart](e)
			if err != nil {
				return "", nil, fmt.Errorf("run_start: %w", err)
			}
			task = rs.Task
		case eventlog.KindBranchFork:
			f, err := payload.Decode[payload.BranchFork](e)
			if err != nil {
				return "", nil, fmt.Errorf("branch_fork %d: %w", e.Seq, err)
			}
			plans[e.BranchID] = f.Plan
		case eventlog.KindActionEnd:
			end, err := payload.Decode[payload.ActionEnd](e)
			if err != nil {
				return "", nil, fmt.Errorf("action_end %d: %w", e.Seq, err)
			}
			u, ok := useOf(plans[e.BranchID], end)
			if !ok {
				continue
			}
			k := u.action.Kind + "\x00" + u.selector
			if prev := byKey[k]; prev != nil {
				prev.merge(u)
				continue
			}
			byKey[k] = &u
			order = append(order, k)
		}
	}
	out := make([]stepUse, len(order))
	for i, k := range order {
		out[i] = *byKey[k]
	}
	return task, out, nil
}

// useOf is the target step an action_end reports, if it executed one
// that resolved (ok or healed).
func useOf(plan branch.Plan, end payload.ActionEnd) (stepUse, bool) {
	if end.Replayed || end.Step < 1 || end.Step > len(plan) {
		return stepUse{}, false
	}
	a := plan[end.Step-1]
	if a.Target == nil || end.Status != branch.StatusOK && end.Status != branch.StatusHealed {
		return stepUse{}, false
	}
	return stepUse{action: a, selector: a.Target.Selector(), healed: end.Status == branch.StatusHealed,
		strategy: end.Strategy, ms: end.DurationMS, count: 1}, true
}

func (u *stepUse) merge(o stepUse) {
	if o.healed && !u.healed {
		u.healed, u.strategy = true, o.strategy
	}
	u.ms = max(u.ms, o.ms)
	u.count++
}

func (t *Target) add(ri eventlog.RunInfo, u stepUse) {
	t.Uses += u.count
	t.Runs++
	t.durations = append(t.durations, u.ms)
	t.History = append(t.History, Use{RunID: ri.RunID, Time: ri.First, Healed: u.healed, Strategy: u.strategy, DurationMS: u.ms})
	if !u.healed {
		t.LastNamed = ri.First
		return
	}
	t.Healed++
	t.Strategies[u.strategy]++
	if t.FirstHealed.IsZero() {
		t.FirstHealed = ri.First
	}
	t.LastHealed = ri.First
}

// rank fills the report's lists from the targets.
func (r *Report) rank(targets map[string]*Target) {
	all := make([]*Target, 0, len(targets))
	for _, t := range targets {
		t.Fragility = round3(float64(t.Healed) / float64(t.Runs))
		all = append(all, t)
	}
	slices.SortFunc(all, func(a, b *Target) int {
		switch {
		case a.Healed != b.Healed:
			return b.Healed - a.Healed
		case a.Task != b.Task:
			return compare(a.Task, b.Task)
		case a.Action != b.Action:
			return compare(a.Action, b.Action)
		}
		return compare(a.Selector, b.Selector)
	})
	for _, t := range all {
		if t.Healed > 0 {
			r.Healed = append(r.Healed, *t)
		}
	}
	fragile := slices.Clone(all)
	slices.SortStableFunc(fragile, func(a, b *Target) int {
		if a.Fragility != b.Fragility {
			if a.Fragility > b.Fragility {
				return -1
			}
			return 1
		}
		return b.Runs - a.Runs
	})
	for _, t := range fragile {
		if len(r.Fragile) < r.Settings.Top && t.Healed > 0 && t.Runs >= r.Settings.MinUses {
			r.Fragile = append(r.Fragile, *t)
		}
	}
	for _, t := range all {
		if s, ok := r.Settings.slower(t); ok {
			r.Slower = append(r.Slower, s)
		}
	}
	slices.SortStableFunc(r.Slower, func(a, b Slower) int {
		if a.Ratio > b.Ratio {
			return -1
		} else if a.Ratio < b.Ratio {
			return 1
		}
		return 0
	})
	if len(r.Slower) > r.Settings.Top {
		r.Slower = r.Slower[:r.Settings.Top]
	}
}

// slower compares the median step duration of the later half of a
// target's runs with the earlier half's.
func (s Settings) slower(t *Target) (Slower, bool) {
	n := len(t.durations)
	if n < 2*s.MinUses {
		return Slower{}, false
	}
	before, after := median(t.durations[:n/2]), median(t.durations[n-n/2:])
	if before <= 0 || after-before < s.SlowerMS || float64(after) < s.SlowerRatio*float64(before) {
		return Slower{}, false
	}
	return Slower{Task: t.Task, Action: t.Action, Selector: t.Selector, Runs: n, BeforeMS: before, AfterMS: after,
		Ratio: round3(float64(after) / float64(before))}, true
}

func median(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
