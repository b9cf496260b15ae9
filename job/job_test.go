package job_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/task"
)

func sample() *job.Job {
	return &job.Job{RunID: "run1", BranchID: "b2", ParentID: "b1", PlanDigest: "d",
		Plan: branch.Plan{{Kind: branch.KindNavigate, URL: "http://site.test/"},
			{Kind: branch.KindClick, Target: &branch.Target{TestID: "nav-pricing"}}},
		Spec: &job.Spec{Origin: "http://site.test", RunSeed: 7, ScrubKey: []byte("k"),
			Inputs: map[string]task.Input{"seats": {Value: "10"}}}}
}

// TestJobRoundTrip: a decoded job is the job that was encoded, at the
// current wire version.
func TestJobRoundTrip(t *testing.T) {
	in := sample()
	b, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := job.DecodeJob(b)
	if err != nil {
		t.Fatal(err)
	}
	if out.V != job.WireVersion || !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n%+v\n%+v", in, out)
	}
}

// TestDecodeJobRefuses: a job of another version, without its ids, spec
// or plan, or with an invalid action is refused; a version mismatch says
// so with ErrWireVersion.
func TestDecodeJobRefuses(t *testing.T) {
	encode := func(edit func(m map[string]any)) []byte {
		b, _ := sample().Encode()
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ = json.Marshal(m)
		return b
	}
	for _, c := range []struct {
		name    string
		data    []byte
		version bool
	}{
		{"garbage", []byte("{not json"), false},
		{"no version", encode(func(m map[string]any) { delete(m, "v") }), true},
		{"next version", encode(func(m map[string]any) { m["v"] = job.WireVersion + 1 }), true},
		{"no run", encode(func(m map[string]any) { delete(m, "run_id") }), false},
		{"no branch", encode(func(m map[string]any) { delete(m, "branch_id") }), false},
		{"no spec", encode(func(m map[string]any) { delete(m, "spec") }), false},
		{"no plan", encode(func(m map[string]any) { m["plan"] = []any{} }), false},
		{"bad action", encode(func(m map[string]any) { m["plan"] = []any{map[string]any{"kind": "fly"}} }), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, err := job.DecodeJob(c.data)
			if err == nil || j != nil {
				t.Fatalf("DecodeJob = %+v, %v; want an error", j, err)
			}
			if got := errors.Is(err, job.ErrWireVersion); got != c.version {
				t.Fatalf("errors.Is(%v, ErrWireVersion) = %v, want %v", err, got, c.version)
			}
		})
	}
}

// TestDecodeResultRefusesVersion: a result of another version is refused.
func TestDecodeResultRefusesVersion(t *testing.T) {
	r := &job.Result{RunID: "run1", BranchID: "b1", Status: job.ResultOK}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := job.DecodeResult(b); err != nil || got.Status != job.ResultOK || got.V != job.WireVersion {
		t.Fatalf("DecodeResult = %+v, %v", got, err)
	}
	if _, err := job.DecodeResult([]byte(`{"v":2,"status":"ok"}`)); !errors.Is(err, job.ErrWireVersion) {
		t.Fatalf("version 2: %v, want ErrWireVersion", err)
	}
}

// TestResolveInput: an input resolves to its value; an input the task
// does not have is an error.
func TestResolveInput(t *testing.T) {
	s := sample().Spec
	if v, err := s.ResolveInput("seats"); err != nil || v != "10" {
		t.Fatalf("seats = %q, %v", v, err)
	}
	if _, err := s.ResolveInput("coupon"); err == nil {
		t.Fatal("an unknown input resolved")
	}
}

// FuzzDecodeJob: any bytes decode to a job or an error, never a panic;
// a job that decodes encodes to a job that decodes, and encodes to the
// same bytes again.
func FuzzDecodeJob(f *testing.F) {
	b, _ := sample().Encode()
	f.Add(b)
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`{"v":1,"run_id":"r","branch_id":"b","spec":{},"plan":[{"kind":"navigate"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := job.DecodeJob(data)
		if err != nil {
			return
		}
		again, err := j.Encode()
		if err != nil {
			t.Fatal(err)
		}
		k, err := job.DecodeJob(again)
		if err != nil {
			t.Fatalf("re-encoded job does not decode: %v\n%s", err, again)
		}
		twice, err := k.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(twice) {
			t.Fatalf("the wire form is not stable:\n%s\n%s", again, twice)
		}
	})
}
