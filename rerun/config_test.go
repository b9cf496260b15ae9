package rerun

import (
	"reflect"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestFullRerunPinsTheManifest: a full rerun searches with the seed,
// budgets, search settings, weights and prices the manifest recorded,
// whatever the task given says; a hybrid rerun takes the given task's.
func TestFullRerunPinsTheManifest(t *testing.T) {
	given, err := task.Parse("t.yaml", []byte("start_url: http://shop.test/\ngoal:\n  text: Buy a pen.\n  success:\n    - {name: bought, url_matches: /done}\n"))
	if err != nil {
		t.Fatal(err)
	}
	given.Weights = scoring.Weights{Progress: 0.5, Confidence: 0.1, Risk: 0.5, Cost: 0.1, Time: 0.05}
	recorded := *given
	recorded.Weights = scoring.DefaultWeights()
	recorded.Budgets.TotalBranches = 77
	recorded.Search.BeamWidth = 3
	m := payload.RunStart{Seed: "42", SeedFromTask: true, Budgets: recorded.Budgets, Search: recorded.Search,
		Weights: recorded.Weights, Prices: map[string]float64{"click": 2}}
	for _, c := range []struct {
		mode Mode
		want *task.Task
	}{{ModeFull, &recorded}, {ModeHybrid, given}} {
		cfg, err := configFor(Options{Mode: c.mode, Task: given, RunID: "01RUN", SourceDir: "/data"}, m, given, &Report{})
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		got := cfg.Task
		if got.Weights != c.want.Weights || got.Budgets != c.want.Budgets || !reflect.DeepEqual(got.Search, c.want.Search) {
			t.Errorf("%s rerun: weights %+v budgets %+v search %+v, want %+v %+v %+v", c.mode, got.Weights, got.Budgets, got.Search,
				c.want.Weights, c.want.Budgets, c.want.Search)
		}
		if c.mode == ModeFull && (got.Seed != 42 || !got.SeedSet || got.Prices["click"] != 2) {
			t.Errorf("full rerun: seed %d (set %v), prices %v; the manifest recorded 42 and click 2", got.Seed, got.SeedSet, got.Prices)
		}
		if r := cfg.Reproduces; r == nil || *r != (payload.Reproduction{RunID: "01RUN", Mode: string(c.mode), DataDir: "/data"}) {
			t.Errorf("%s rerun: its manifest says it reproduces %+v", c.mode, r)
		}
		if !cfg.ExploreOnly || cfg.Cold || !cfg.NoCache {
			t.Errorf("%s rerun config %+v: a rerun explores only, without the plan cache, its children continuing their parents' sessions", c.mode, cfg)
		}
	}
	if given.Weights.Progress != 0.5 {
		t.Error("configFor changed the given task")
	}
}
