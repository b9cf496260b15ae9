package simweb

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// ErrNoSite is returned by Evaluate for a nil site.
var ErrNoSite = errors.New("simweb: no site")

// MaxWaves bounds the waves of one evaluation, in case a search never
// stops by itself.
const MaxWaves = 10000

// EvalOptions model the execution plane of an evaluation.
type EvalOptions struct {
	// Workers is the number of simulated workers; zero or less means the
	// task's search.workers.
	Workers int
	// ContextMS is the time to open a fresh browser context; ObserveMS
	// the time to observe a page after a job's last action.
	ContextMS, ObserveMS int64
	// Warm lets the first child of a parent (in wave order) continue the
	// parent's live context: it pays only its last action. Every other
	// job replays its whole plan in a fresh context.
	Warm bool
}

// DefaultEvalOptions are the options of the benchmark: four workers,
// 120 ms to open a context, 25 ms to observe, warm continuation on.
func DefaultEvalOptions() EvalOptions {
	return EvalOptions{Workers: 4, ContextMS: 120, ObserveMS: 25, Warm: true}
}

// Outcome is the result of one strategy on one site.
type Outcome struct {
	Site     int64  `json:"site"`
	Trap     bool   `json:"trap"`
	Strategy string `json:"strategy"`
	// Success reports that the search named a winner: a branch at the
	// boundary with every success predicate holding.
	Success bool `json:"success"`
	// Actions counts every action executed, replays included.
	Actions int `json:"actions"`
	// Branches counts the branches executed.
	Branches int `json:"branches"`
	// SimTime is the simulated wall clock until the search decided (a
	// winner, or nothing left to try).
	SimTime time.Duration `json:"sim_time_ns"`
	// CostSpent is the cost units the site charged; CostBudget the task's
	// cost budget; Overrun how far the spend went past the budget (0 when
	// it did not).
	CostSpent  float64 `json:"cost_spent"`
	CostBudget float64 `json:"cost_budget"`
	Overrun    float64 `json:"overrun"`
	// Exhausted says why a search without a winner stopped.
	Exhausted string `json:"exhausted,omitempty"`
	// Error is set when the strategy could not run (the task does not
	// parse with it, say).
	Error string `json:"error,omitempty"`
}

// Evaluate runs the planner's search with strategy on the site, in
// memory: each wave's branches are executed by Execute and their time is
// list-scheduled, in the order NextWave returned them, on opts.Workers
// simulated workers; a wave takes as long as its makespan. The strategy is
// written into the task before the search is built, so a strategy the task
// parser or the planner does not know is an error (the outcome still names
// the site and strategy and carries the error). Evaluate is deterministic:
// the same site, strategy and options give the same outcome.
func Evaluate(s *Site, strategy string, opts EvalOptions) (Outcome, error) {
	if s == nil {
		return Outcome{Strategy: strategy, Error: ErrNoSite.Error()}, ErrNoSite
	}
	out := Outcome{Site: s.Seed, Trap: s.Trap, Strategy: strategy}
	t, err := s.TaskFor(strategy)
	if err != nil {
		out.Error = err.Error()
		return out, err
	}
	out.CostBudget = t.Budgets.Cost
	prop, err := planner.NewProposer(t)
	if err != nil {
		out.Error = err.Error()
		return out, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = t.Search.Workers
	}
	spec := SpecOf(t)
	id := 0
	search := planner.NewSearch(t, prop, func() string { id++; return fmt.Sprintf("b%06d", id) })
	search.Root()
	search.Drain()
	var simMS int64
	free := make([]int64, workers)
	// runs keeps the tab of every executed branch that may have children:
	// a child continues a copy of it instead of replaying (the simulated
	// cost is still charged as the options say).
	runs := map[*planner.Node]*run{}
	for wave := 0; ; wave++ {
		if wave >= MaxWaves {
			out.Exhausted = fmt.Sprintf("simweb: %d waves without a decision", MaxWaves)
			break
		}
		nodes := search.NextWave()
		if len(nodes) == 0 {
			out.Exhausted = "frontier empty"
			break
		}
		for i := range free {
			free[i] = 0
		}
		continued := map[*planner.Node]bool{}
		var makespan int64
		for _, n := range nodes {
			var r *run
			if pr := runs[n.Parent]; pr != nil && n.Parent != nil {
				r = pr.clone()
			} else {
				r = s.newRun(spec)
			}
			r.advance(n.Plan)
			res, costs := r.result(n.Plan)
			if res.Status == job.ResultOK && !res.AtBoundary {
				runs[n] = r
			}
			warm := false
			if p := n.Parent; opts.Warm && p != nil && !continued[p] && p.Outcome != nil && p.Outcome.OK && !p.Outcome.AtBoundary {
				continued[p], warm = true, true
			}
			var ms int64
			actions := len(costs)
			if warm && len(costs) == len(n.Plan) {
				actions = 1
				c := costs[len(costs)-1]
				ms = c.SimMS + opts.ObserveMS
				out.Actions++
				out.CostSpent += c.Units
			} else {
				ms = opts.ContextMS + opts.ObserveMS
				for _, c := range costs {
					ms += c.SimMS
					out.Actions++
					out.CostSpent += c.Units
				}
			}
			w := 0
			for i := range free {
				if free[i] < free[w] {
					w = i
				}
			}
			free[w] += ms
			makespan = max(makespan, free[w])
			search.Complete(n, planner.Outcome{OK: res.Status == job.ResultOK, Code: res.ErrCode, Msg: res.ErrMsg, Step: res.ErrStep,
				Obs: res.Obs, AtBoundary: res.AtBoundary, Blocked: res.Blocked, Actions: actions, Intent: res.Intent, Healed: res.Healed()})
		}
		simMS += makespan
		d := search.EndWave(context.Background()) // the simulated search asks no model
		search.Drain()
		if len(d.Winners) > 0 {
			out.Success = true
			break
		}
		if d.Exhausted != "" {
			out.Exhausted = d.Exhausted
			break
		}
	}
	out.Branches = search.Executed()
	out.SimTime = time.Duration(simMS) * time.Millisecond
	if out.CostBudget > 0 && out.CostSpent > out.CostBudget {
		out.Overrun = out.CostSpent - out.CostBudget
	}
	return out, nil
}

// EvaluateAll evaluates every strategy on every site, using up to
// parallel goroutines (GOMAXPROCS when zero or less). Outcomes come back
// site by site in the order given, strategies in the order given; an
// evaluation that could not run carries its error in Outcome.Error.
func EvaluateAll(sites []*Site, strategies []string, opts EvalOptions, parallel int) []Outcome {
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	out := make([]Outcome, len(sites)*len(strategies))
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o, _ := Evaluate(sites[i/len(strategies)], strategies[i%len(strategies)], opts)
				out[i] = o
			}
		}()
	}
	for i := range out {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
