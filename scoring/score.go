package scoring

import (
	"math"
	"sort"
)

// Goal is what a task wants. Milestones are sticky progress signals: they
// count once they held at any step of a branch. Success predicates describe
// the state at the commit boundary; every one must hold for a branch to be
// committable, and each counts toward progress while it holds.
type Goal struct {
	Milestones []Predicate `json:"milestones,omitempty"`
	Success    []Predicate `json:"success,omitempty"`
}

// All returns milestones then success predicates.
func (g Goal) All() []Predicate {
	out := make([]Predicate, 0, len(g.Milestones)+len(g.Success))
	out = append(out, g.Milestones...)
	return append(out, g.Success...)
}

// Weights scalarize a score vector:
// J = Progress·p + Confidence·c − Risk·r − Cost·k − Time·t − Latency·l.
type Weights struct {
	Progress   float64 `json:"progress"`
	Confidence float64 `json:"confidence"`
	Risk       float64 `json:"risk"`
	Cost       float64 `json:"cost"`
	Time       float64 `json:"time"`
	// Latency is what J loses per second a branch's steps are expected
	// to take (Vector.Latency, at most MaxLatency counted). A run that
	// learned nothing on its site expects no duration, and the term is 0.
	Latency float64 `json:"latency,omitempty"`
}

// MaxLatency bounds the seconds the latency term counts.
const MaxLatency = 60

// DefaultWeights are used for weights a task leaves out.
func DefaultWeights() Weights {
	return Weights{Progress: 1, Confidence: 0.1, Risk: 0.5, Cost: 0.1, Time: 0.05, Latency: 0.01}
}

// State summarizes a branch for scoring.
type State struct {
	// Steps is the number of actions in the branch's plan.
	Steps int
	// MaxSteps is the per-branch step budget (for the time discount).
	MaxSteps int
	// Cost is the cost units spent by the branch; CostBudget the task's cap
	// (0: no cost term).
	Cost, CostBudget float64
	// Ever holds the predicates that were true at any step; Now those true
	// at the last step.
	Ever, Now map[string]bool
	// PredicateErrors counts predicates whose evaluation failed at the
	// last step; Healed counts actions whose target had to be healed.
	PredicateErrors, Healed int
	// LatencyMS is how long the branch's steps are expected to take, in
	// milliseconds, from what earlier runs on the site measured (0 when
	// the run learned nothing).
	LatencyMS float64
	// DeadEnd is set when a dead-end detector fired at the last step;
	// Guarded when the branch tried to send a request only the committer
	// may send; HTTPError when the last document answered 4xx/5xx.
	DeadEnd, Guarded, HTTPError bool
}

// Vector is a branch's multi-objective score, with J its scalarization.
type Vector struct {
	Progress   float64 `json:"progress"`
	Confidence float64 `json:"confidence"`
	Risk       float64 `json:"risk"`
	Cost       float64 `json:"cost"`
	ETA        float64 `json:"eta_steps"`
	Time       float64 `json:"time_discount"`
	// Latency is the seconds the branch's steps are expected to take
	// (State.LatencyMS), to the millisecond.
	Latency float64 `json:"latency_s,omitempty"`
	J       float64 `json:"j"`
}

// Progress is the weighted fraction of goal predicates satisfied: a
// milestone once it held, a success predicate while it holds.
func (g Goal) Progress(ever, now map[string]bool) float64 {
	var total, got float64
	for _, p := range g.Milestones {
		w := weight(p)
		total += w
		if ever[p.Name] {
			got += w
		}
	}
	for _, p := range g.Success {
		w := weight(p)
		total += w
		if now[p.Name] {
			got += w
		}
	}
	if total == 0 {
		return 0
	}
	return got / total
}

// Satisfied reports whether every success predicate holds now.
func (g Goal) Satisfied(now map[string]bool) bool {
	for _, p := range g.Success {
		if !now[p.Name] {
			return false
		}
	}
	return true
}

// Unmet names the success predicates that do not hold now, sorted.
func (g Goal) Unmet(now map[string]bool) []string {
	var out []string
	for _, p := range g.Success {
		if !now[p.Name] {
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out
}

func weight(p Predicate) float64 {
	if p.Weight == 0 {
		return 1
	}
	return p.Weight
}

// Score computes the vector and J of a branch state.
func Score(g Goal, w Weights, s State) Vector {
	v := Vector{Progress: g.Progress(s.Ever, s.Now)}
	n := len(g.Milestones) + len(g.Success)
	v.Confidence = 1
	if n > 0 {
		v.Confidence -= float64(s.PredicateErrors) / float64(n)
	}
	v.Confidence -= 0.1 * float64(s.Healed)
	v.Confidence = clamp01(v.Confidence)
	switch {
	case s.Guarded:
		v.Risk = 1
	case s.DeadEnd:
		v.Risk = 0.6
	case s.HTTPError:
		v.Risk = 0.3
	}
	if s.CostBudget > 0 {
		v.Cost = clamp01(s.Cost / s.CostBudget)
	}
	if s.MaxSteps > 0 {
		v.Time = clamp01(float64(s.Steps) / float64(s.MaxSteps))
	}
	// ETA: steps so far per unit of progress, times the progress missing.
	if v.Progress > 0 {
		v.ETA = math.Ceil(float64(s.Steps) * (1 - v.Progress) / v.Progress)
	} else if s.MaxSteps > 0 {
		v.ETA = float64(s.MaxSteps - s.Steps)
	}
	v.Latency = math.Round(s.LatencyMS) / 1000
	v.J = round9(w.Progress*v.Progress + w.Confidence*v.Confidence - w.Risk*v.Risk - w.Cost*v.Cost - w.Time*v.Time -
		w.Latency*math.Min(v.Latency, MaxLatency))
	return v
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// round9 rounds to 1e-9 so that J compares equal across platforms when the
// inputs do.
func round9(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// Flip is a predicate whose truth changed right after an action.
type Flip struct {
	Predicate string `json:"predicate"`
	To        bool   `json:"to"`
}

// Flips lists the predicates whose truth differs between before and after,
// sorted by name: the contrastive delta credited to the action in between.
func Flips(before, after map[string]bool) []Flip {
	names := map[string]bool{}
	for k := range before {
		names[k] = true
	}
	for k := range after {
		names[k] = true
	}
	var out []Flip
	for k := range names {
		if before[k] != after[k] {
			out = append(out, Flip{Predicate: k, To: after[k]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Predicate < out[j].Predicate })
	return out
}

// Candidate is a branch competing to be the winner.
type Candidate struct {
	BranchID   string
	PlanDigest string
	Score      Vector
	Steps      int
}

// Better reports whether a wins over b: higher J, lower cost, fewer steps,
// then the lower plan digest, then the lower branch id. It is a strict
// total order on distinct candidates, with no randomness.
func Better(a, b Candidate) bool {
	if a.Score.J != b.Score.J {
		return a.Score.J > b.Score.J
	}
	if a.Score.Cost != b.Score.Cost {
		return a.Score.Cost < b.Score.Cost
	}
	if a.Steps != b.Steps {
		return a.Steps < b.Steps
	}
	if a.PlanDigest != b.PlanDigest {
		return a.PlanDigest < b.PlanDigest
	}
	return a.BranchID < b.BranchID
}

// Dominates reports whether a is at least as good as b on every objective
// (progress and confidence higher, risk, cost and steps lower) and better
// on one.
func Dominates(a, b Candidate) bool {
	x, y := a.Score, b.Score
	if x.Progress < y.Progress || x.Confidence < y.Confidence || x.Risk > y.Risk || x.Cost > y.Cost || a.Steps > b.Steps {
		return false
	}
	return x.Progress > y.Progress || x.Confidence > y.Confidence || x.Risk < y.Risk || x.Cost < y.Cost || a.Steps < b.Steps
}

// DominatedBy returns, for each candidate, the best (by Better) candidate
// that dominates it, or "" for the members of the Pareto front.
func DominatedBy(cs []Candidate) map[string]string {
	out := make(map[string]string, len(cs))
	for _, c := range cs {
		var best *Candidate
		for i := range cs {
			if Dominates(cs[i], c) && (best == nil || Better(cs[i], *best)) {
				best = &cs[i]
			}
		}
		if best != nil {
			out[c.BranchID] = best.BranchID
		} else {
			out[c.BranchID] = ""
		}
	}
	return out
}

// RankPareto sorts candidates in place: the Pareto front first, each part
// by Better. Unlike J alone, it never prefers a candidate another one beats
// on every objective, whatever the weights ignore.
func RankPareto(cs []Candidate) []Candidate {
	dom := DominatedBy(cs)
	sort.SliceStable(cs, func(i, j int) bool {
		fi, fj := dom[cs[i].BranchID] == "", dom[cs[j].BranchID] == ""
		if fi != fj {
			return fi
		}
		return Better(cs[i], cs[j])
	})
	return cs
}

// Rank sorts candidates best first by Better, in place, and returns them.
func Rank(cs []Candidate) []Candidate {
	sort.SliceStable(cs, func(i, j int) bool { return Better(cs[i], cs[j]) })
	return cs
}
