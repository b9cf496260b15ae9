package planner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// TestWithWeights: a proposer tuned apart proposes with its own weights,
// and one left alone keeps the defaults.
func TestWithWeights(t *testing.T) {
	tuned := DefaultWeights()
	tuned.ValueSurePrior = 0.42
	page := []branch.Affordance{field("textbox", "text", "Director"), submitButton("Find")}
	for _, tc := range []struct {
		name string
		opts []Option
		want float64
	}{
		{"defaults", nil, defaults.ValueSurePrior},
		{"tuned", []Option{WithWeights(tuned)}, 0.42},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProposer(goalTask(t, "Find movies directed by Steven Spielberg", ""), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			cs := valueActions(p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: page}, History{}))
			if len(cs) == 0 || cs[0].Prior != tc.want {
				t.Fatalf("value candidates %+v: want the first at %.2f", cs, tc.want)
			}
		})
	}
}

// TestDefaultWeightsComplete: every weight has a default; a field added
// to Weights without one would tune the planner to zero.
func TestDefaultWeightsComplete(t *testing.T) {
	w := DefaultWeights()
	v := reflect.ValueOf(w)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("Weights.%s has no default", v.Type().Field(i).Name)
		}
	}
}

// TestSearchWithWeights: a search tuned with a fork floor above every
// prior but the root's forks fewer branches than the default search of
// the same task.
func TestSearchWithWeights(t *testing.T) {
	forks := func(log decisionLog) int {
		n := 0
		for _, l := range log {
			if strings.HasPrefix(l, EventFork+" ") {
				n++
			}
		}
		return n
	}
	tuned := DefaultWeights()
	tuned.MinPrior = 0.99
	def, _ := runSearch(t, false)
	high, _ := runSearch(t, false, WithWeights(tuned))
	if forks(high) >= forks(def) {
		t.Fatalf("forks with MinPrior 0.99: %d, with the default: %d; want fewer", forks(high), forks(def))
	}
}
