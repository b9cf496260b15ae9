package payload_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

func canonical(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := eventlog.CanonicalPayload(raw)
	if err != nil {
		t.Fatal(err)
	}
	return string(c)
}

// TestSameBytesAsMaps pins the on-disk form: each typed payload stores
// exactly the bytes the map payload it replaced stored, so event logs
// written before and after read alike and hash alike.
func TestSameBytesAsMaps(t *testing.T) {
	plan := branch.Plan{{Kind: branch.KindNavigate, URL: "https://shop.test/", Label: "open the start page"}}
	score := scoring.Vector{Progress: 0.5, Confidence: 1, J: 0.625}
	flips := []scoring.Flip{{Predicate: "in_cart", To: true}}
	budgets := task.Budgets{WallClock: task.Duration(time.Minute), StepsPerBranch: 6, Cost: 12.5, ActionTimeout: task.Duration(5 * time.Second)}
	env := task.Environment{Viewport: task.Viewport{Width: 1280, Height: 800}, Locale: "en-US", Clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	guard := []task.RequestPattern{{Method: "POST", URL: "https://shop.test/order"}}
	tests := []struct {
		name  string
		typed payload.Payload
		old   map[string]any
	}{
		{"run_start", payload.RunStart{Task: "buy", TaskDigest: "d1", StartURL: "https://shop.test/", Seed: "7", Budgets: budgets,
			Environment: env, Workers: 2, Fingerprint: payload.Fingerprint{Browser: "chromium 1", OS: "linux"},
			Inputs: map[string]payload.Input{"email": {Token: "tok", Secret: false}}, Guard: guard, Prices: map[string]float64{"click": 1},
			Goal: scoring.Goal{Success: []scoring.Predicate{{Name: "done", URLMatches: "/thanks"}}}, HasCommit: true},
			map[string]any{"task": "buy", "task_digest": "d1", "task_file": "", "start_url": "https://shop.test/", "seed": "7",
				"seed_from_task": false, "budgets": budgets, "search": task.Search{}, "weights": scoring.Weights{}, "environment": env,
				"workers": 2, "nats": "", "multiverse_version": "", "fingerprint": map[string]any{"browser": "chromium 1",
					"browser_path": "", "driver_version": "", "os": "linux", "arch": ""},
				"scrub_key_sha256": "", "origin": "", "inputs": map[string]map[string]any{"email": {"token": "tok", "secret": false}},
				"guard": guard, "goal": scoring.Goal{Success: []scoring.Predicate{{Name: "done", URLMatches: "/thanks"}}},
				"boundary": scoring.Predicate{}, "prices": map[string]float64{"click": 1}, "goal_failure": []scoring.Predicate(nil),
				"extract": []task.IntentField(nil), "has_commit": true}},
		{"run_end", payload.RunEnd{Status: "committed", ElapsedMS: 5860, Branches: payload.RunBranches{Forked: 4, Executed: 3, Boundary: 1}},
			map[string]any{"status": "committed", "error": "", "elapsed_ms": int64(5860), "exit_code": 0, "branches": map[string]any{
				"forked": 4, "executed": 3, "explored": 0, "boundary": 1, "pruned": 0, "failed": 0}}},
		{"branch_fork", payload.BranchFork{Parent: "p", PlanDigest: "pd", Seed: 1 << 60, Depth: 1, Action: "open", Prior: 0.95, Utility: 0.9, Reason: "start", Plan: plan},
			map[string]any{"parent": "p", "plan_digest": "pd", "seed": uint64(1 << 60), "depth": 1, "action": "open", "prior": 0.95,
				"utility": 0.9, "reason": "start", "plan": plan}},
		{"metric_update", payload.MetricUpdate{Score: score, Flips: flips, Credit: 0.25, Action: "click"},
			map[string]any{"score": score, "flips": flips, "credit": 0.25, "action": "click"}},
		{"metric_update no flips", payload.MetricUpdate{Score: score},
			map[string]any{"score": score, "flips": []scoring.Flip(nil), "credit": 0.0, "action": ""}},
		{"branch_pruned", payload.BranchPruned{Rule: "duplicate_state", Detail: map[string]any{"same_as": "b2"}, State: "pruned", PlanDigest: "pd", J: 0.1},
			map[string]any{"rule": "duplicate_state", "detail": map[string]any{"same_as": "b2"}, "state": "pruned", "plan_digest": "pd", "j": 0.1, "progress": 0.0}},
		{"winner", payload.Winner{Order: "higher J", Ranking: []payload.Rank{{BranchID: "a", J: 1, Steps: 3}, {BranchID: "b", DominatedBy: "a"}}},
			map[string]any{"order": "higher J", "ranking": []map[string]any{
				{"branch_id": "a", "plan_digest": "", "j": 1.0, "cost": 0.0, "steps": 3, "progress": 0.0, "confidence": 0.0, "risk": 0.0},
				{"branch_id": "b", "plan_digest": "", "j": 0.0, "cost": 0.0, "steps": 0, "progress": 0.0, "confidence": 0.0, "risk": 0.0, "dominated_by": "a"}}}},
		{"action_end", payload.ActionEnd{Step: 2, Status: "ok", Strategy: "role", DurationMS: 40},
			map[string]any{"step": 2, "status": "ok", "code": "", "error": "", "strategy": "role", "duration_ms": int64(40), "replayed": false}},
		{"action_start replayed", payload.ActionStart{Step: 1, Action: "open", ActionKind: "navigate", Replayed: true, Worker: "w1", Attempt: 1, PlanDigest: "pd"},
			map[string]any{"step": 1, "action": "open", "kind": "navigate", "replayed": true, "worker": "w1", "attempt": 1, "plan_digest": "pd"}},
		{"action_start", payload.ActionStart{Step: 2, Action: "click", ActionKind: "click", Worker: "w1", Attempt: 1, PlanDigest: "pd",
			PrefixMS: new(int64), ContextMS: ptr(int64(110)), Warm: ptr(true), RoutedTo: "w1"},
			map[string]any{"step": 2, "action": "click", "kind": "click", "replayed": false, "worker": "w1", "attempt": 1, "plan_digest": "pd",
				"prefix_ms": int64(0), "context_ms": int64(110), "warm": true, "routed_to": "w1"}},
		{"nav", payload.Nav{URL: "https://shop.test/cart", Title: "Cart <1>", Status: 200},
			map[string]any{"url": "https://shop.test/cart", "title": "Cart <1>", "status": 200}},
		{"dom_snapshot", payload.DOMSnapshot{DOMHash: "h1", Predicates: map[string]bool{"in_cart": true}, Affordances: 9},
			map[string]any{"dom_hash": "h1", "ax_hash": "", "net_digest": "", "screenshot": "", "dom_artifact": "", "ax_artifact": "",
				"predicates": map[string]bool{"in_cart": true}, "dead_ends": []string(nil), "affordances": 9, "at_boundary": false}},
		{"net", payload.Net{NetRecord: branch.NetRecord{Seq: 1, Method: "GET", URL: "https://shop.test/"}},
			nil}, // the recorder wrote the branch.NetRecord itself
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var old any = tc.old
			if tc.old == nil {
				old = tc.typed.(payload.Net).NetRecord
			}
			if got, want := canonical(t, tc.typed), canonical(t, old); got != want {
				t.Errorf("typed payload stores\n%s\nthe map payload stored\n%s", got, want)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	raw, _ := json.Marshal(payload.Nav{URL: "https://shop.test/", Status: 404})
	tests := []struct {
		name    string
		e       eventlog.Event
		want    payload.Nav
		wantErr error
	}{
		{"ok", eventlog.Event{Kind: eventlog.KindNav, Payload: raw}, payload.Nav{URL: "https://shop.test/", Status: 404}, nil},
		{"other kind", eventlog.Event{Kind: eventlog.KindNet, Payload: raw}, payload.Nav{}, payload.ErrKind},
		{"no payload", eventlog.Event{Kind: eventlog.KindNav}, payload.Nav{}, errAny},
		{"wrong shape", eventlog.Event{Kind: eventlog.KindNav, Payload: json.RawMessage(`{"status":"404"}`)}, payload.Nav{}, errAny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := payload.Decode[payload.Nav](tc.e)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("Decode: %v", err)
			case tc.wantErr == errAny && err == nil, tc.wantErr != nil && tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Fatalf("Decode error = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Decode = %+v, want %+v", got, tc.want)
			}
		})
	}
}

var errAny = errors.New("any error")

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"dom_hash":"h","predicates":{"a":true},"dead_ends":["x"],"at_boundary":true}`))
	f.Add([]byte(`{"predicates":{"a":1}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := eventlog.Event{Kind: eventlog.KindDOMSnapshot, Payload: data}
		payload.Decode[payload.DOMSnapshot](e)
		e.Kind = eventlog.KindRunStart
		payload.Decode[payload.RunStart](e)
	})
}

func ptr[T any](v T) *T { return &v }
