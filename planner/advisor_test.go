package planner

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// reversing is an advisor that ranks the menu back to front, at a fixed
// cost per question, and keeps what it was asked.
type reversing struct {
	cost  float64
	asked []Query
}

func (r *reversing) Advise(_ context.Context, q Query) Advice {
	r.asked = append(r.asked, q)
	order := make([]int, len(q.Menu))
	for i := range order {
		order[i] = len(q.Menu) - 1 - i
	}
	return Advice{Order: order, Cost: r.cost, By: "the test"}
}

// advisedRun runs a search on the site model with adv (nil: none) and
// returns its fork events and the search.
func advisedRun(t *testing.T, adv Advisor) ([]string, *Search) {
	t.Helper()
	s := newTestSearch(t)
	if adv != nil {
		s.SetAdvisor(adv)
	}
	var forks []string
	runWaves(s, 30, simulate, func(e Event) {
		if e.Kind == EventFork {
			forks = append(forks, fmt.Sprintf("%s %s %.3f %s", e.Node.ID, e.Node.Action().Describe(), e.Fork.Prior, e.Fork.Reason))
		}
	})
	return forks, s
}

func TestAdvisorOrdersTheMenu(t *testing.T) {
	plain, ps := advisedRun(t, nil)
	adv := &reversing{cost: 0.25}
	advised, as := advisedRun(t, adv)
	if len(adv.asked) == 0 {
		t.Fatal("the advisor was never asked")
	}
	q := adv.asked[0]
	if q.Step != 2 || q.Obs == nil || len(q.Menu) == 0 || len(q.Done) != 1 || q.Goal == "" {
		t.Fatalf("first query = step %d, %d menu entries, done %q", q.Step, len(q.Menu), q.Done)
	}
	if reflect.DeepEqual(plain, advised) {
		t.Fatal("a reversed ranking forked the same branches as none")
	}
	if !strings.Contains(advised[1], "ranked 1 by the test") {
		t.Errorf("the first child does not say who ranked it: %s", advised[1])
	}
	// The first child is the menu's last entry, with the menu's best prior.
	last := q.Menu[len(q.Menu)-1].Action.Describe()
	if !strings.Contains(advised[1], last) || !strings.Contains(advised[1], fmt.Sprintf("%.3f", q.Menu[0].Prior)) {
		t.Errorf("first child %q, want %q with prior %.3f", advised[1], last, q.Menu[0].Prior)
	}
	// The advice's cost is charged beside the actions'.
	if got, want := as.Spent()-executedCost(as), 0.25*float64(len(adv.asked)); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", want) {
		t.Errorf("advice charged %.3f, want %.3f (%d questions)", got, want, len(adv.asked))
	}
	if ps.Spent() != executedCost(ps) {
		t.Errorf("without an advisor the search charged %.3f beyond its actions", ps.Spent()-executedCost(ps))
	}
	again, _ := advisedRun(t, &reversing{cost: 0.25})
	if !reflect.DeepEqual(advised, again) {
		t.Fatal("the same advice gave other decisions")
	}
}

// executedCost is what the executed branches' actions cost.
func executedCost(s *Search) float64 {
	c := 0.0
	for _, n := range s.Nodes() {
		if n.Outcome != nil {
			c += n.Cost
		}
	}
	return c
}

func TestReorder(t *testing.T) {
	act := func(s string) branch.Action { return branch.Action{Kind: branch.KindClick, Label: s} }
	menu := []Candidate{{Action: act("a"), Prior: 0.9}, {Action: act("b"), Prior: 0.6}, {Action: act("c"), Prior: 0.3}}
	field := branch.Affordance{Kind: "textbox", Target: branch.Target{Name: "Company"}}
	cases := []struct {
		name   string
		adv    Advice
		want   string
		fields []branch.Affordance
	}{
		{"none keeps the order", Advice{}, "a=0.90 b=0.60 c=0.30", nil},
		{"reversed", Advice{Order: []int{2, 1, 0}}, "c=0.90 b=0.60 a=0.30", nil},
		{"partial", Advice{Order: []int{2}}, "c=0.90 a=0.60 b=0.30", nil},
		{"repeats and strays skipped", Advice{Order: []int{1, 1, 7, -1}}, "b=0.90 a=0.60 c=0.30", nil},
		{"a field with its value", Advice{Order: []int{3, 0}, Values: map[int]string{3: "Acme"}},
			`type "Acme" into "Company"=0.95 a=0.90 b=0.60 c=0.30`, []branch.Affordance{field}},
		{"a field without a value", Advice{Order: []int{3, 2}}, "c=0.90 a=0.60 b=0.30", []branch.Affordance{field}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range defaults.reorder(menu, tc.fields, tc.adv) {
				got = append(got, fmt.Sprintf("%s=%.2f", c.Action.Describe(), c.Prior))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %s, want %s", strings.Join(got, " "), tc.want)
			}
		})
	}
}

// TestSubstitute: a substituted step is forked in place of the one the
// search chose, says so, and the search goes on from it.
func TestSubstitute(t *testing.T) {
	_, plain := advisedRun(t, nil)
	var target *Node
	for _, n := range plain.Nodes() {
		if n.Depth == 2 && n.Outcome != nil {
			target = n
			break
		}
	}
	if target == nil {
		t.Fatal("no executed branch at depth 2")
	}
	s := newTestSearch(t)
	with := branch.Action{Kind: branch.KindNavigate, URL: "http://swapped.test/", Label: "open the swapped page"}
	s.Substitute(target.Plan, with)
	found := false
	runWaves(s, 3, simulate, func(e Event) {
		if e.Kind != EventFork {
			return
		}
		if e.Node.Digest == target.Digest {
			t.Fatalf("the substituted plan was forked as it was")
		}
		if strings.Contains(e.Fork.Reason, "swapped: open the swapped page instead of "+target.Action().Describe()) {
			found = e.Node.Action().URL == with.URL && len(e.Node.Plan) == 2
		}
	})
	if !found {
		t.Fatal("the substitute was never forked")
	}
}

// batchReversing answers a wave's questions at once, as reversing does
// one by one.
type batchReversing struct {
	reversing
	batches, batched int
}

func (b *batchReversing) AdviseAll(ctx context.Context, qs []Query) []Advice {
	b.batches++
	b.batched += len(qs)
	out := make([]Advice, len(qs))
	for i, q := range qs {
		out[i] = b.Advise(ctx, q)
	}
	return out
}

// TestBatchAdvisorDecidesAsOneByOne: the same advice asked a wave at a
// time forks the same branches, in the same order, at the same cost.
func TestBatchAdvisorDecidesAsOneByOne(t *testing.T) {
	one, os := advisedRun(t, &reversing{cost: 0.25})
	b := &batchReversing{reversing: reversing{cost: 0.25}}
	batched, bs := advisedRun(t, b)
	if !reflect.DeepEqual(one, batched) {
		t.Fatalf("batched advice forked otherwise:\n%v\n%v", one, batched)
	}
	if b.batches == 0 || b.batched != len(b.asked) {
		t.Fatalf("%d of %d questions asked in %d batches", b.batched, len(b.asked), b.batches)
	}
	if os.Spent() != bs.Spent() {
		t.Fatalf("spent %.3f one by one, %.3f batched", os.Spent(), bs.Spent())
	}
}
