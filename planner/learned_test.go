package planner

import (
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// twoWays is a site with two equal ways to the boundary: /a and /b each
// offer a Continue button to /review.
const twoWays = `start_url: http://ways.test/
seed: 5
goal:
  text: Take either route and continue to the review
  success:
    - {name: review, url_matches: /review}
search: {beam_width: 4, min_beam_width: 2, max_children: 3, stall_limit: 3}
budgets: {total_branches: 30, steps_per_branch: 5}
`

var wayPages = map[string][]branch.Affordance{
	"/": {
		{Kind: "link", Href: "http://ways.test/a", Region: "main", Form: -1, Target: branch.Target{Role: "link", Name: "Route A", TestID: "way-a", CSS: "#way-a"}},
		{Kind: "link", Href: "http://ways.test/b", Region: "main", Form: -1, Target: branch.Target{Role: "link", Name: "Route B", TestID: "way-b", CSS: "#way-b"}},
	},
	"/a": {{Kind: "button", Region: "main", Form: -1, Target: branch.Target{Role: "button", Name: "Continue", TestID: "continue-a", CSS: "#continue-a"}}},
	"/b": {{Kind: "button", Region: "main", Form: -1, Target: branch.Target{Role: "button", Name: "Continue", TestID: "continue-b", CSS: "#continue-b"}}},
}

func simulateWays(p branch.Plan) Outcome {
	url := "/"
	for _, a := range p[1:] {
		switch id := a.Target.TestID; {
		case id == "way-a" || id == "way-b":
			url = "/" + strings.TrimPrefix(id, "way-")
		case strings.HasPrefix(id, "continue-"):
			url = "/review"
		default:
			return Outcome{Code: "selector_not_found", Msg: "no such element", Step: len(p)}
		}
	}
	obs := &branch.Observation{URL: "http://ways.test" + url, DOMHash: url, Predicates: map[string]bool{"review": url == "/review"},
		Affordances: wayPages[url]}
	return Outcome{OK: true, Obs: obs, AtBoundary: url == "/review"}
}

// learnedMS is a site's record: each way's Continue took what it says.
type learnedMS map[string]float64

func (l learnedMS) StepMS(page string, a branch.Action) (float64, bool) {
	if a.Target != nil {
		if ms, ok := l[a.Target.TestID]; ok {
			return ms, true
		}
	}
	return l.MedianMS(), false
}

func (l learnedMS) SlowestMS(a branch.Action) (float64, bool) { return l.StepMS("", a) }

func (l learnedMS) StallOnTheWay() (int, int) { return 0, 0 }

func (l learnedMS) MedianMS() float64 {
	if len(l) == 0 {
		return 0
	}
	return 100
}

func waysSearch(t *testing.T, l Learned, g *Guide) (*Node, int) {
	t.Helper()
	tk, err := task.Parse("ways.yaml", []byte(twoWays))
	if err != nil {
		t.Fatal(err)
	}
	s := searchOf(t, tk)
	s.Follow(g)
	if l != nil {
		s.Learn(l)
	}
	d, executed, _ := runWaves(s, 10, simulateWays, nil)
	if len(d.Winners) == 0 {
		t.Fatalf("no winner: %s", d.Exhausted)
	}
	return d.Winners[0], executed
}

func way(w *Node) string { return w.Plan[len(w.Plan)-1].Target.TestID }

// TestLearnedLatency: with nothing learned the tie between two equal ways
// goes by the plan digest; when earlier runs measured one way's Continue
// at 2 s and the other's at 0.1 s, the fast way wins, its expected
// seconds in its score.
func TestLearnedLatency(t *testing.T) {
	plain, _ := waysSearch(t, nil, nil)
	if plain.Score.Latency != 0 {
		t.Fatalf("a search that learned nothing expects %v s", plain.Score.Latency)
	}
	slow := "continue-a"
	if way(plain) == "continue-b" {
		slow = "continue-b"
	}
	fast := map[string]string{"continue-a": "continue-b", "continue-b": "continue-a"}[slow]
	w, _ := waysSearch(t, learnedMS{slow: 2000, fast: 100}, nil)
	if way(w) != fast {
		t.Fatalf("learned: won by %s, want the fast %s", way(w), fast)
	}
	if w.Score.Latency != 0.3 { // navigate and the link at the median, Continue 0.1 s
		t.Fatalf("the winner expects %v s, want 0.3", w.Score.Latency)
	}
	again, _ := waysSearch(t, learnedMS{slow: 2000, fast: 100}, nil)
	if again.Digest != w.Digest {
		t.Fatal("the same record decided differently")
	}
}

// TestSlowGuidedStep: a cached plan through the way measured slow no
// longer hides the other way: its slow step is forked beside its
// alternatives, and the fast way wins; a guide without a slow step is
// followed alone.
func TestSlowGuidedStep(t *testing.T) {
	plain, searched := waysSearch(t, nil, nil)
	g := &Guide{Plan: plain.Plan, From: "(test)"}
	for k := 1; k <= len(plain.Plan); k++ {
		g.Expect = append(g.Expect, simulateWays(plain.Plan[:k]).Obs.Predicates)
	}
	same := learnedMS{"continue-a": 100, "continue-b": 100}
	w, executed := waysSearch(t, same, g)
	if w.Digest != plain.Digest || executed != len(plain.Plan) {
		t.Fatalf("a guide with no slow step: won by %s in %d branches, want %s in %d", way(w), executed, way(plain), len(plain.Plan))
	}
	slowRec := learnedMS{way(plain): 2000}
	w, executed = waysSearch(t, slowRec, g)
	if w.Digest == plain.Digest {
		t.Fatalf("the cached plan's slow step hid the other way (%d branches, %d without the guide)", executed, searched)
	}
	if executed >= searched+len(plain.Plan) {
		t.Fatalf("%d branches", executed)
	}
}

// TestHealedCounts: a healed step counts in its branch and every
// descendant's score.
func TestHealedCounts(t *testing.T) {
	tk, err := task.Parse("ways.yaml", []byte(twoWays))
	if err != nil {
		t.Fatal(err)
	}
	s := searchOf(t, tk)
	healedWay := func(p branch.Plan) Outcome {
		o := simulateWays(p)
		if len(p) == 2 {
			o.Healed = 1
		}
		return o
	}
	d, _, _ := runWaves(s, 10, healedWay, nil)
	if len(d.Winners) == 0 {
		t.Fatal(d.Exhausted)
	}
	w := d.Winners[0]
	if w.Healed != 1 || w.Score.Confidence != 0.9 {
		t.Fatalf("winner healed %d, confidence %v; want 1 and 0.9", w.Healed, w.Score.Confidence)
	}
}

// stallRecord is a site's record of the stall rule only.
type stallRecord struct{ longest, runs int }

func (r stallRecord) StepMS(string, branch.Action) (float64, bool) { return 0, false }
func (r stallRecord) SlowestMS(branch.Action) (float64, bool)      { return 0, false }
func (r stallRecord) MedianMS() float64                            { return 0 }
func (r stallRecord) StallOnTheWay() (int, int)                    { return r.longest, r.runs }

// TestStallCalibrates: the stall rule prunes sooner on a site whose ways
// to the boundary never went long without progress, once enough runs
// reached it; never later than the task says, never below the floor.
func TestStallCalibrates(t *testing.T) {
	tk, err := task.Parse("ways.yaml", []byte(twoWays)) // stall_limit: 3
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rec  Learned
		want int
	}{
		{nil, 3},
		{stallRecord{0, 2}, 3}, // too few runs to tell
		{stallRecord{0, 3}, 2},
		{stallRecord{1, 5}, 3},
		{stallRecord{4, 9}, 3}, // the task's limit is the most
	} {
		s := searchOf(t, tk)
		s.Learn(c.rec)
		if got := s.StallLimit(); got != c.want {
			t.Errorf("record %+v: stall limit %d, want %d", c.rec, got, c.want)
		}
	}
}
