package task

import "testing"

// TestPlannerFallback: a model planner stops on a model that does not
// answer unless planner.fallback says heuristic; the heuristic planner
// has no fallback to set.
func TestPlannerFallback(t *testing.T) {
	const llm = "planner:\n  proposer: llm\n  model: m\n  base_url: http://127.0.0.1:11434/v1\n"
	cases := []struct {
		name, src, want string
		fallsBack       bool
	}{
		{"default", llm, FallbackNone, false},
		{"none", llm + "  fallback: none\n", FallbackNone, false},
		{"heuristic", llm + "  fallback: heuristic\n", FallbackHeuristic, true},
		{"heuristic planner", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tk, err := Parse("mem.yaml", []byte(minimal+c.src))
			if err != nil {
				t.Fatal(err)
			}
			if tk.Planner.Fallback != c.want || tk.Planner.FallsBack() != c.fallsBack {
				t.Fatalf("fallback = %q (falls back %v), want %q (%v)", tk.Planner.Fallback, tk.Planner.FallsBack(), c.want, c.fallsBack)
			}
		})
	}
}
