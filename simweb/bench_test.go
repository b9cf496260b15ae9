package simweb

import "testing"

// BenchmarkEvaluate measures one beam search on one site, end to end.
func BenchmarkEvaluate(b *testing.B) {
	s := Generate(1, DefaultConfig())
	opts := DefaultEvalOptions()
	for b.Loop() {
		if o, err := Evaluate(s, "beam", opts); err != nil || !o.Success {
			b.Fatalf("%+v %v", o, err)
		}
	}
}

// BenchmarkExecute measures a full replay of a site's solution.
func BenchmarkExecute(b *testing.B) {
	s := Generate(1, DefaultConfig())
	spec := mustSpec(b, s)
	plan := mustSolution(b, s)
	for b.Loop() {
		if res, _ := s.Execute(plan, spec); !res.AtBoundary {
			b.Fatal("not at the boundary")
		}
	}
}
