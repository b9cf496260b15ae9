package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/plancache"
)

// TestMinimalPlan: a run that follows a cached plan with a detour (a
// field focused that an older plan kept) commits, tries the plan
// without each middle step, and caches and exports the plan without the
// detour; its ablation events name the step that was not needed and the
// ones that were. The next run follows the minimal plan and does not try
// it again.
func TestMinimalPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startCountingSite(t)
	dir := t.TempDir()
	code, first := runSummary(t, site.URL(), dir)
	if code != 0 || first.Minimal == nil || len(first.Minimal.Removed) != 0 {
		t.Fatalf("first run: exit %d, minimal plan %+v; want every step needed", code, first.Minimal)
	}
	store := plancache.Open(orchestrator.PlanCacheDir(dir))
	entries, err := store.List(context.Background())
	if err != nil || len(entries) != 1 || !entries[0].Minimal {
		t.Fatalf("cache entries %+v, %v: want one minimal plan", entries, err)
	}
	e := entries[0]
	want := e.Plan()
	// The detour focuses the field a later step types into: harmless,
	// and not needed.
	var detour branch.Action
	for _, st := range e.Steps {
		if st.Action.Kind == branch.KindType && detour.Target == nil {
			tg := *st.Action.Target
			detour = branch.Action{Kind: branch.KindFocus, Target: &tg, Label: "focus the field step " + st.Action.Describe() + " types into"}
		}
	}
	if detour.Target == nil {
		t.Fatalf("the cached plan types nothing: %+v", e.Steps)
	}
	e.Steps = slices.Insert(e.Steps, 1, plancache.Step{Action: detour})
	e.Minimal = false
	if err := store.Put(e); err != nil {
		t.Fatal(err)
	}

	code, second := runSummary(t, site.URL(), dir)
	if code != 0 || second.Cache == nil || second.Cache.Followed != len(e.Steps) {
		t.Fatalf("run with the detour: exit %d, cache %+v; want the %d cached steps followed", code, second.Cache, len(e.Steps))
	}
	m := second.Minimal
	if m == nil || m.Steps != len(want) || m.WinnerSteps != len(e.Steps) || !reflect.DeepEqual(m.Removed, []string{detour.Describe()}) {
		t.Fatalf("minimal plan %+v, want %d steps without %q", m, len(want), detour.Describe())
	}
	ablations := events[payload.Ablation](t, dir, second.RunID, eventlog.KindAblation)
	middle := 0 // the middle steps that write no value: the ones tried without
	for _, st := range e.Steps[1 : len(e.Steps)-1] {
		switch st.Action.Kind {
		case branch.KindType, branch.KindSelect, branch.KindCheck, branch.KindSet:
		default:
			middle++
		}
	}
	if len(ablations) != middle || middle == 0 {
		t.Errorf("%d ablations, want one per middle step that writes no value (%d)", len(ablations), middle)
	}
	for _, a := range ablations {
		if removedDetour := reflect.DeepEqual(a.Removed, []int{2}); a.Needed == removedDetour {
			t.Errorf("ablation %+v: needed %v", a, a.Needed)
		}
		if a.Needed && a.Credit <= 0 {
			t.Errorf("ablation %+v: a needed step with no credit", a)
		}
	}
	if got := events[payload.MinimalPlan](t, dir, second.RunID, eventlog.KindMinimalPlan); len(got) != 1 || !reflect.DeepEqual(got[0].Removed, []int{2}) {
		t.Errorf("minimal_plan events %+v, want one removing step 2", got)
	}

	entries, err = store.List(context.Background())
	if err != nil || len(entries) != 1 || !entries[0].Minimal || !samePlan(entries[0].Plan(), want) {
		t.Fatalf("cached after the detour run: %+v, %v; want the plan without the detour", entries, err)
	}
	path := filepath.Join(t.TempDir(), "minimal.yaml")
	var o, errb bytes.Buffer
	if code := runCLI([]string{"flow", "export", second.RunID + "/", "--data-dir", dir, "-o", path}, &o, &errb); code != 0 {
		t.Fatalf("flow export: exit %d\n%s%s", code, o.String(), errb.String())
	}
	f, err := flow.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range f.Actions {
		if a.Kind == branch.KindFocus {
			t.Errorf("the exported flow keeps the detour: %+v", f.Actions)
		}
	}
	if len(f.Actions) != len(want) {
		t.Errorf("exported flow of %d actions, want the minimal plan's %d", len(f.Actions), len(want))
	}
	o.Reset()
	var asJSON flow.Flow
	if code := runCLI([]string{"flow", "export", second.RunID + "/", "--data-dir", dir, "--json"}, &o, &errb); code != 0 ||
		json.Unmarshal(o.Bytes(), &asJSON) != nil || len(asJSON.Actions) != len(want) {
		t.Errorf("flow export --json: exit %d, %d actions\n%s%s", code, len(asJSON.Actions), o.String(), errb.String())
	}

	code, third := runSummary(t, site.URL(), dir)
	if code != 0 || third.Minimal != nil || third.Branches.Executed != len(want) {
		t.Errorf("run following the minimal plan: exit %d, minimal %+v, %d branches; want no new tries and %d branches",
			code, third.Minimal, third.Branches.Executed, len(want))
	}
	if n := len(site.Vendor.Orders()); n != 1 {
		t.Errorf("the site holds %d orders after three runs, want 1", n)
	}
}

// samePlan compares plans by what each step does.
func samePlan(a, b branch.Plan) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Describe() != b[i].Describe() {
			return false
		}
	}
	return true
}

// events decodes the events of one kind of a run.
func events[T payload.Payload](t *testing.T, dir, runID, kind string) []T {
	t.Helper()
	l, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	evs, err := l.Events(context.Background(), runID, eventlog.Query{Kinds: []string{kind}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]T, 0, len(evs))
	for _, e := range evs {
		p, err := payload.Decode[T](e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
