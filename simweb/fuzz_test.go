package simweb

import (
	"context"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
)

// FuzzHandle feeds arbitrary job bytes to the executor: it must answer
// with a result the orchestrator can decode, never panic or fail.
func FuzzHandle(f *testing.F) {
	s := Generate(1, DefaultConfig())
	spec := mustSpec(f, s)
	good, _ := jobFor(f, s, spec).Encode()
	f.Add(good)
	f.Add([]byte(`{"v":1,"run_id":"r","branch_id":"b","plan":[{"kind":"navigate","url":"http://sim-1.test/%zz"}],"spec":{"origin":"http://sim-1.test"}}`))
	f.Add([]byte(`{"v":1,"run_id":"r","branch_id":"b","plan":[{"kind":"click","target":{"css":"a"}}],"spec":{}}`))
	f.Add([]byte(`null`))
	e := NewExecutor(s)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := e.Handle(context.Background(), job.Delivery{RunID: "r", BranchID: "b", Attempt: 1, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := job.DecodeResult(out); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzExecute drives a site with arbitrary URLs, targets and values: the
// result is always well formed and the same when repeated.
func FuzzExecute(f *testing.F) {
	s := Generate(2, DefaultConfig())
	spec := mustSpec(f, s)
	f.Add("/", "nav-docs", "", "")
	f.Add(s.Checkout+"?plan="+s.Want.PlanID, "", s.Params[RoleSeats], "12")
	f.Add(s.Review+"?plan=x&seats=-1", "place-order", "", "")
	f.Add("/search?q=%E2%82%AC", "search-result-pricing", "q", "pricing")
	f.Add("//evil.test/", "", "", "")
	f.Fuzz(func(t *testing.T, path, testid, field, value string) {
		plan := branch.Plan{{Kind: branch.KindNavigate, URL: s.Origin + path},
			{Kind: branch.KindType, Target: &branch.Target{Field: field, TestID: testid}, Value: value + "x"},
			{Kind: branch.KindClick, Target: &branch.Target{TestID: testid, CSS: field}}}
		a, ca := s.Execute(plan, spec)
		b, cb := s.Execute(plan, spec)
		if a.Status != b.Status || ca != cb || (a.Obs == nil) != (b.Obs == nil) || (a.Obs != nil && a.Obs.DOMHash != b.Obs.DOMHash) {
			t.Fatal("executing the same plan twice differs")
		}
		if a.Status != job.ResultOK && a.Status != job.ResultFailed {
			t.Fatalf("status %q", a.Status)
		}
		if len(a.Steps) == 0 || len(a.Steps) > len(plan) {
			t.Fatalf("%d steps", len(a.Steps))
		}
	})
}
