package simweb

import (
	"errors"
	"reflect"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/task"
)

func TestEvaluateIsDeterministic(t *testing.T) {
	trap := findSite(t, "a trap site", func(s *Site) bool { return s.Trap })
	for _, s := range []*Site{Generate(1, DefaultConfig()), trap} {
		for _, strategy := range []string{"beam", "greedy"} {
			a, errA := Evaluate(s, strategy, DefaultEvalOptions())
			b, errB := Evaluate(Generate(s.Seed, DefaultConfig()), strategy, DefaultEvalOptions())
			if errA != nil || errB != nil {
				t.Fatalf("site %d %s: %v / %v", s.Seed, strategy, errA, errB)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("site %d %s: outcomes differ:\n%+v\n%+v", s.Seed, strategy, a, b)
			}
			if a.Site != s.Seed || a.Trap != s.Trap || a.Strategy != strategy || a.CostBudget != TaskCostBudget ||
				a.Branches == 0 || a.Actions < a.Branches || a.SimTime <= 0 {
				t.Fatalf("site %d %s: outcome %+v", s.Seed, strategy, a)
			}
			if !a.Success && a.Exhausted == "" {
				t.Fatalf("site %d %s: no winner and no reason", s.Seed, strategy)
			}
		}
	}
}

func TestEvaluateUnknownStrategy(t *testing.T) {
	s := Generate(1, DefaultConfig())
	o, err := Evaluate(s, "teleport", DefaultEvalOptions())
	if !errors.Is(err, task.ErrInvalid) || o.Error == "" || o.Strategy != "teleport" || o.Site != 1 || o.Success {
		t.Fatalf("outcome %+v, error %v", o, err)
	}
}

func TestEvaluateExecutionPlane(t *testing.T) {
	s := Generate(5, DefaultConfig())
	base := EvalOptions{Workers: 4, ContextMS: 120, ObserveMS: 25}
	cold, err := Evaluate(s, "beam", base)
	if err != nil {
		t.Fatal(err)
	}
	one := base
	one.Workers = 1
	serial, _ := Evaluate(s, "beam", one)
	if serial.Branches != cold.Branches || serial.Actions != cold.Actions || serial.SimTime <= cold.SimTime {
		t.Fatalf("1 worker: %v for %d branches; 4 workers: %v for %d", serial.SimTime, serial.Branches, cold.SimTime, cold.Branches)
	}
	warmOpts := base
	warmOpts.Warm = true
	warm, _ := Evaluate(s, "beam", warmOpts)
	if !cold.Success || !warm.Success {
		t.Fatalf("beam failed on site 5: cold %+v, warm %+v", cold, warm)
	}
	if warm.Actions >= cold.Actions || warm.CostSpent >= cold.CostSpent {
		t.Fatalf("warm continuation executed %d actions (%g units), replaying %d (%g)", warm.Actions, warm.CostSpent, cold.Actions, cold.CostSpent)
	}
}
