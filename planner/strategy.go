package planner

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strconv"
)

// Strategy names, as written in a task's search.strategy.
const (
	StrategyBeam   = "beam"   // dynamic-width beam over utility per marginal cost
	StrategyUCT    = "uct"    // UCT (PUCT) over the action tree with cost-aware priors and bound cuts
	StrategyGreedy = "greedy" // one branch, the best action each step: a sequential agent
	StrategyBFS    = "bfs"    // breadth first, every candidate, level by level
	StrategyRandom = "random" // uniformly random pending branches (seeded)
)

// Strategies lists the strategy names, search strategies first, then the
// baselines they are measured against.
var Strategies = []string{StrategyBeam, StrategyUCT, StrategyGreedy, StrategyBFS, StrategyRandom}

// strategy is what differs between search policies; everything else
// (pruning rules, scoring, budgets, determinism) is shared.
type strategy interface {
	initialWidth(s *Search) int
	// key orders the frontier: larger first.
	key(s *Search, n *Node) float64
	// rekey refreshes keys that depend on the tree's statistics.
	rekey(s *Search)
	diversify() bool
	dynamicWidth() bool
	// children says how many children to fork at most, and the least
	// prior a child needs.
	children(s *Search, n *Node) (int, float64)
	// cut prunes pending branches the strategy gives up on.
	cut(s *Search)
	// backtracks says whether, when every pending branch is gone with
	// budget left, the search goes back to candidates it left out.
	backtracks() bool
}

func strategyFor(name string) strategy {
	switch name {
	case StrategyUCT:
		return uct{}
	case StrategyGreedy:
		return greedy{}
	case StrategyBFS:
		return bfs{}
	case StrategyRandom:
		return random{}
	}
	return beam{}
}

// marginalCost is what executing n costs on top of its parent: the price
// of its last action (its prefix is already paid for when it continues the
// parent's live context), plus LatencyPrice per second the step is
// expected to take on this site.
func marginalCost(s *Search, n *Node) float64 {
	return math.Max(s.t.Prices[n.Action().Kind]+s.w.LatencyPrice*n.StepMS/1000, s.w.MinMarginalCost)
}

type beam struct{}

func (beam) initialWidth(s *Search) int { return s.t.Search.BeamWidth }

// key is utility per marginal cost: with unit prices, the utility.
func (beam) key(s *Search, n *Node) float64 { return n.Utility / marginalCost(s, n) }
func (beam) rekey(*Search)                  {}
func (beam) diversify() bool                { return true }
func (beam) dynamicWidth() bool             { return true }
func (beam) children(s *Search, n *Node) (int, float64) {
	if n.Parent == nil {
		return max(s.t.Search.MaxChildren, s.t.Search.BeamWidth), 0 // start wide
	}
	return s.t.Search.MaxChildren, s.w.MinPrior
}
func (beam) cut(s *Search)    { s.trimPool() }
func (beam) backtracks() bool { return true }

type uct struct{}

func (uct) initialWidth(s *Search) int { return s.t.Search.BeamWidth }

// key is the PUCT upper confidence bound of a pending branch: its parent
// subtree's mean J plus an exploration term that grows with the run's
// visits, shrinks with the parent subtree's, and is weighted by the
// child's share of its siblings' priors (the cost-aware prior: the
// proposer's prior per marginal cost).
func (uct) key(s *Search, n *Node) float64 { return ucb(s, n) }

func ucb(s *Search, n *Node) float64 {
	p := n.Parent
	if p == nil {
		return 1
	}
	q := 0.0
	if p.visits > 0 {
		q = p.sumJ / float64(p.visits)
	}
	share := 1.0
	if p.priors > 0 {
		share = n.Prior / p.priors
	}
	share /= marginalCost(s, n)
	total := 1
	if s.root != nil {
		total = max(s.root.visits, 1)
	}
	return q + s.w.UCTExplore*share*math.Sqrt(float64(total))/float64(1+p.visits) - s.softPenalty(n)
}

func (uct) rekey(s *Search)  { s.frontier.Reheap(func(n *Node) float64 { return ucb(s, n) }) }
func (uct) diversify() bool  { return true }
func (uct) backtracks() bool { return true }
func (uct) dynamicWidth() bool {
	return true
}
func (uct) children(s *Search, n *Node) (int, float64) {
	if n.Parent == nil {
		return max(s.t.Search.MaxChildren, s.t.Search.BeamWidth), 0
	}
	return s.t.Search.MaxChildren + 1, s.w.MinPrior / 2
}

// cut prunes pending branches whose upper bound plus budget slack falls
// below the best lower bound (the best J an executed, still live branch
// holds).
func (uct) cut(s *Search) {
	best := math.Inf(-1)
	for _, n := range s.nodes {
		if n.State == StateExplored && n.Score.J > best {
			best = n.Score.J
		}
	}
	if math.IsInf(best, -1) {
		return
	}
	slack := s.w.UCTSlack
	if tb := s.t.Budgets.TotalBranches; tb > 0 {
		slack *= 1 - float64(s.executed)/float64(tb)
	}
	var cut []*Node
	for _, n := range s.frontier.Nodes() {
		if u := ucb(s, n); u+slack < best {
			cut = append(cut, n)
		}
	}
	sortByDigest(cut)
	for _, n := range cut {
		u := ucb(s, n)
		s.frontier.Remove(n)
		s.prune(n, RuleUCTBound, map[string]any{"ucb": round3(u), "slack": round3(slack), "best_lower_bound": round3(best)})
	}
	s.trimPool()
}

type greedy struct{}

func (greedy) initialWidth(*Search) int               { return 1 }
func (greedy) key(s *Search, n *Node) float64         { return n.Utility }
func (greedy) rekey(*Search)                          {}
func (greedy) diversify() bool                        { return false }
func (greedy) dynamicWidth() bool                     { return false }
func (greedy) children(*Search, *Node) (int, float64) { return 1, 0 }
func (greedy) cut(*Search)                            {}

// A sequential agent keeps to its one line: it does not go back.
func (greedy) backtracks() bool { return false }

type bfs struct{}

func (bfs) initialWidth(s *Search) int { return max(s.t.Search.BeamWidth, s.t.Search.Workers) }

// key orders by depth, shallowest first.
func (bfs) key(s *Search, n *Node) float64         { return -float64(n.Depth) }
func (bfs) rekey(*Search)                          {}
func (bfs) diversify() bool                        { return false }
func (bfs) dynamicWidth() bool                     { return false }
func (bfs) children(*Search, *Node) (int, float64) { return math.MaxInt32, 0 }
func (bfs) cut(*Search)                            {}
func (bfs) backtracks() bool                       { return false } // it forks every candidate already

type random struct{}

func (random) initialWidth(s *Search) int { return s.t.Search.BeamWidth }

// key is a deterministic pseudo-random number from the run seed and the
// plan digest.
func (random) key(s *Search, n *Node) float64 {
	h := sha256.Sum256([]byte(strconv.FormatUint(s.t.Seed, 10) + "/" + n.Digest))
	return float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
}
func (random) rekey(*Search)                          {}
func (random) diversify() bool                        { return false }
func (random) dynamicWidth() bool                     { return false }
func (random) children(*Search, *Node) (int, float64) { return math.MaxInt32, 0 }
func (random) cut(*Search)                            {}
func (random) backtracks() bool                       { return false } // it forks every candidate already
