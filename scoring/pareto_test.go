package scoring_test

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/scoring"
)

func cand(id string, j, progress, conf, risk, cost float64, steps int) scoring.Candidate {
	return scoring.Candidate{BranchID: id, PlanDigest: "d-" + id, Steps: steps,
		Score: scoring.Vector{J: j, Progress: progress, Confidence: conf, Risk: risk, Cost: cost}}
}

func TestDominates(t *testing.T) {
	base := cand("a", 1, 1, 1, 0, 0.2, 5)
	tests := []struct {
		name string
		a, b scoring.Candidate
		want bool
	}{
		{"equal is not domination", base, cand("b", 1, 1, 1, 0, 0.2, 5), false},
		{"lower risk dominates", base, cand("b", 1, 1, 1, 0.3, 0.2, 5), true},
		{"fewer steps dominates", base, cand("b", 1, 1, 1, 0, 0.2, 6), true},
		{"trade-off: cheaper but riskier", cand("b", 1, 1, 1, 0.3, 0.1, 5), base, false},
		{"worse everywhere", cand("b", 0, 0.5, 0.9, 0.6, 0.5, 9), base, false},
		{"J plays no part", cand("b", -5, 1, 1, 0, 0.1, 5), base, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := scoring.Dominates(tc.a, tc.b); got != tc.want {
				t.Fatalf("Dominates = %v, want %v", got, tc.want)
			}
		})
	}
}

// With the risk weight at zero, J ties a risky candidate with a safe one
// and the plan digest picks the risky one; Pareto selection never picks a
// candidate another beats on every objective.
func TestRankParetoNeverPrefersDominated(t *testing.T) {
	risky := cand("a", 0.9, 1, 1, 0.6, 0.2, 5)
	safe := cand("b", 0.9, 1, 1, 0, 0.2, 5)
	cheapRisky := cand("c", 0.8, 1, 1, 0.3, 0.1, 5) // on the front: cheapest
	byJ := scoring.Rank([]scoring.Candidate{safe, cheapRisky, risky})
	if byJ[0].BranchID != "a" {
		t.Fatalf("by J the winner is %s; the test expects J to tie and the digest to pick a", byJ[0].BranchID)
	}
	got := scoring.RankPareto([]scoring.Candidate{risky, cheapRisky, safe})
	order := ""
	for _, c := range got {
		order += c.BranchID
	}
	if order != "bca" {
		t.Fatalf("Pareto order %s, want bca (front b, c by J; then the dominated a)", order)
	}
	dom := scoring.DominatedBy(got)
	if dom["a"] != "b" || dom["b"] != "" || dom["c"] != "" {
		t.Fatalf("dominated by: %v, want a by b, b and c on the front", dom)
	}
}
