package scoring_test

import (
	"reflect"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/scoring"
)

func goal() scoring.Goal {
	return scoring.Goal{
		Milestones: []scoring.Predicate{{Name: "cart"}, {Name: "pricing", Weight: 2}},
		Success:    []scoring.Predicate{{Name: "review"}},
	}
}

// TestProgress: a milestone counts once it ever held, a success
// predicate only while it holds, each by its weight (1 when unset).
func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ever, now map[string]bool
		want      float64
	}{
		{"nothing", nil, nil, 0},
		{"a milestone ever held", map[string]bool{"cart": true}, nil, 0.25},
		{"a heavy milestone", map[string]bool{"pricing": true}, nil, 0.5},
		{"a milestone held now only", nil, map[string]bool{"cart": true}, 0},
		{"success while it holds", nil, map[string]bool{"review": true}, 0.25},
		{"success held before only", map[string]bool{"review": true}, nil, 0},
		{"all", map[string]bool{"cart": true, "pricing": true}, map[string]bool{"review": true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := goal().Progress(tc.ever, tc.now); got != tc.want {
				t.Errorf("Progress = %v, want %v", got, tc.want)
			}
		})
	}
	if got := (scoring.Goal{}).Progress(nil, map[string]bool{"x": true}); got != 0 {
		t.Errorf("an empty goal's progress = %v, want 0", got)
	}
}

// TestScore: the vector's terms and J = p·progress + c·confidence −
// r·risk − k·cost − t·time, rounded to 1e-9; risk by the worst signal.
func TestScore(t *testing.T) {
	w := scoring.DefaultWeights() // progress 1, confidence 0.1, risk 0.5, cost 0.1, time 0.05
	all := map[string]bool{"cart": true, "pricing": true, "review": true}
	for _, tc := range []struct {
		name string
		s    scoring.State
		want scoring.Vector
	}{
		{"fresh", scoring.State{MaxSteps: 10},
			scoring.Vector{Confidence: 1, ETA: 10, J: 0.1}},
		{"half way", scoring.State{Steps: 2, MaxSteps: 10, Ever: map[string]bool{"pricing": true}},
			scoring.Vector{Progress: 0.5, Confidence: 1, ETA: 2, Time: 0.2, J: 0.59}},
		{"done, with cost", scoring.State{Steps: 4, MaxSteps: 8, Cost: 3, CostBudget: 12, Ever: all, Now: all},
			scoring.Vector{Progress: 1, Confidence: 1, Cost: 0.25, Time: 0.5, J: 1.05}},
		{"guarded outranks a dead end", scoring.State{MaxSteps: 10, Guarded: true, DeadEnd: true},
			scoring.Vector{Confidence: 1, Risk: 1, ETA: 10, J: -0.4}},
		{"dead end", scoring.State{MaxSteps: 10, DeadEnd: true, HTTPError: true},
			scoring.Vector{Confidence: 1, Risk: 0.6, ETA: 10, J: -0.2}},
		{"http error", scoring.State{MaxSteps: 10, HTTPError: true},
			scoring.Vector{Confidence: 1, Risk: 0.3, ETA: 10, J: -0.05}},
		{"predicate errors and a healed step", scoring.State{MaxSteps: 10, PredicateErrors: 1, Healed: 2},
			scoring.Vector{Confidence: 1 - 1.0/3 - 0.2, ETA: 10, J: 0.046666667}},
		{"cost over budget is clamped", scoring.State{Steps: 20, MaxSteps: 10, Cost: 30, CostBudget: 10},
			scoring.Vector{Confidence: 1, Cost: 1, Time: 1, ETA: -10, J: -0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := scoring.Score(goal(), w, tc.s)
			if !near(got, tc.want) {
				t.Errorf("Score = %+v\nwant    %+v", got, tc.want)
			}
		})
	}
}

func near(a, b scoring.Vector) bool {
	eq := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	return eq(a.Progress, b.Progress) && eq(a.Confidence, b.Confidence) && eq(a.Risk, b.Risk) &&
		eq(a.Cost, b.Cost) && eq(a.ETA, b.ETA) && eq(a.Time, b.Time) && eq(a.J, b.J)
}

// TestBetter: the winner order is J, then lower cost, fewer steps, the
// lower plan digest, the lower branch id: a strict total order.
func TestBetter(t *testing.T) {
	c := func(id, digest string, j, cost float64, steps int) scoring.Candidate {
		return scoring.Candidate{BranchID: id, PlanDigest: digest, Steps: steps, Score: scoring.Vector{J: j, Cost: cost}}
	}
	for _, tc := range []struct {
		name string
		a, b scoring.Candidate
	}{
		{"higher J", c("z", "z", 0.9, 1, 9), c("a", "a", 0.8, 0, 1)},
		{"lower cost", c("z", "z", 0.9, 0.1, 9), c("a", "a", 0.9, 0.2, 1)},
		{"fewer steps", c("z", "z", 0.9, 0.1, 3), c("a", "a", 0.9, 0.1, 4)},
		{"lower digest", c("z", "a", 0.9, 0.1, 3), c("a", "b", 0.9, 0.1, 3)},
		{"lower id", c("a", "a", 0.9, 0.1, 3), c("b", "a", 0.9, 0.1, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !scoring.Better(tc.a, tc.b) || scoring.Better(tc.b, tc.a) {
				t.Errorf("Better(%+v, %+v) must hold one way only", tc.a, tc.b)
			}
		})
	}
	if x := c("a", "a", 1, 0, 1); scoring.Better(x, x) {
		t.Error("a candidate is better than itself")
	}
}

// TestFlipsAndUnmet: the predicates an action flipped, sorted, and the
// success predicates still unmet, sorted.
func TestFlipsAndUnmet(t *testing.T) {
	got := scoring.Flips(map[string]bool{"a": true, "b": true, "c": false}, map[string]bool{"b": true, "c": true, "d": false})
	want := []scoring.Flip{{Predicate: "a", To: false}, {Predicate: "c", To: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Flips = %+v, want %+v", got, want)
	}
	g := scoring.Goal{Success: []scoring.Predicate{{Name: "z"}, {Name: "m"}, {Name: "a"}}}
	if got := g.Unmet(map[string]bool{"m": true}); !reflect.DeepEqual(got, []string{"a", "z"}) {
		t.Errorf("Unmet = %v, want [a z]", got)
	}
	if !g.Satisfied(map[string]bool{"a": true, "m": true, "z": true}) || g.Satisfied(map[string]bool{"a": true, "m": true}) {
		t.Error("Satisfied must need every success predicate")
	}
}
