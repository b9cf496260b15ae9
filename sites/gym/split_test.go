package gym

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSplitIsPinned: the evaluation families are exactly these. A change
// here means the rule or a family's name changed: the planner must
// never be tuned against the families listed, and a family may leave
// this list only by being removed from the gym.
func TestSplitIsPinned(t *testing.T) {
	want := []string{
		"accordion", "autocomplete", "button-sequence", "checkbox-dozen", "checkboxes", "click-button", "copy-value", "enter-text",
		"flight-search", "hover-menu", "iframe", "menu", "mirrors", "pagination", "passwords", "radio", "sellers",
		"slider", "tab-then-button", "two-step-form",
	}
	tuning, evaluation := Split()
	if !reflect.DeepEqual(evaluation, want) {
		t.Fatalf("evaluation families changed:\n got  %s\n want %s", strings.Join(evaluation, " "), strings.Join(want, " "))
	}
	if len(tuning)+len(evaluation) != len(Families()) {
		t.Fatalf("split lost families: %d + %d of %d", len(tuning), len(evaluation), len(Families()))
	}
	for _, f := range tuning {
		if Evaluation(f) {
			t.Errorf("tuning family %s is an evaluation family", f)
		}
	}
	// The rule reads the name alone: a family not served yet already
	// has its side, so adding it moves no other.
	if Evaluation("no-such-family") != Evaluation("no-such-family") {
		t.Error("Evaluation is not a function of the name")
	}
}

// TestPatternsAreSeeded: every pattern family gives the same page and
// goal for the same seed, varies them over seeds, has at least three
// goal phrasings and shows each of them within 40 seeds, and has a
// solution on every seed.
func TestPatternsAreSeeded(t *testing.T) {
	if len(patterns) < 15 {
		t.Fatalf("%d pattern families, want at least 15", len(patterns))
	}
	for _, f := range slices.Sorted(maps.Keys(patterns)) {
		t.Run(f, func(t *testing.T) {
			if Original(f) {
				t.Fatalf("%s is both an original and a pattern family", f)
			}
			a, _ := New(f, 11)
			b, _ := New(f, 11)
			if a.Goal != b.Goal || a.HTML() != b.HTML() || !reflect.DeepEqual(a.solve, b.solve) {
				t.Fatal("seed 11 gave two episodes")
			}
			seen := map[int]bool{}
			pages, goals := map[string]bool{}, map[string]bool{}
			for seed := int64(1); seed <= 40; seed++ {
				e, err := New(f, seed)
				if err != nil {
					t.Fatal(err)
				}
				if e.phrasings < 3 {
					t.Fatalf("seed %d: %d goal phrasings, want at least 3", seed, e.phrasings)
				}
				seen[e.phrasing] = true
				pages[e.HTML()], goals[e.Goal] = true, true
				if e.Goal == "" || !strings.Contains(e.HTML(), "verdict(") || len(e.solve) == 0 {
					t.Errorf("seed %d: goal %q, a page without a verdict or no solution", seed, e.Goal)
				}
				if strings.Contains(e.Goal, "%!") {
					t.Errorf("seed %d: goal %q has a formatting error", seed, e.Goal)
				}
			}
			if len(seen) != a.phrasings {
				t.Errorf("40 seeds showed %d of %d phrasings", len(seen), a.phrasings)
			}
			if len(pages) < 35 || len(goals) < 12 {
				t.Errorf("40 seeds gave %d pages and %d goals", len(pages), len(goals))
			}
		})
	}
}
