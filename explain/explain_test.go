package explain_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	pl "github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/explain"
)

func ev(t *testing.T, kind, branch string, payload map[string]any) eventlog.Event {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return eventlog.Event{Kind: kind, BranchID: branch, Payload: b}
}

func TestExplain(t *testing.T) {
	es := []eventlog.Event{
		ev(t, eventlog.KindBranchFork, "branch-aaaaaaaa", map[string]any{"parent": "root-00000000", "action": `click link "Pricing"`, "reason": "matches the goal"}),
		ev(t, eventlog.KindMetricUpdate, "branch-aaaaaaaa", map[string]any{"action": `click link "Pricing"`, "credit": 0.25,
			"flips": []map[string]any{{"predicate": "pricing_found", "to": true}}, "score": map[string]any{"j": 0.5, "progress": 0.25}}),
		ev(t, eventlog.KindBranchFork, "branch-bbbbbbbb", map[string]any{"parent": "root-00000000", "action": `click link "Docs"`}),
		ev(t, eventlog.KindBranchPruned, "branch-bbbbbbbb", map[string]any{"rule": "duplicate_state", "j": 0.1, "progress": 0,
			"detail": map[string]any{"same_as": "branch-cccccccc", "dom_hash": "f5abf573b957ae5029c983ef9730577397a5429071e401b2"}}),
		ev(t, eventlog.KindBranchFork, "branch-dddddddd", map[string]any{"parent": "branch-aaaaaaaa", "action": `click button "Review"`}),
		ev(t, "winner", "branch-aaaaaaaa", map[string]any{"order": "higher J", "ranking": []map[string]any{
			{"branch_id": "branch-aaaaaaaa", "j": 1.0, "progress": 1, "confidence": 1, "risk": 0, "cost": 4, "steps": 4},
			{"branch_id": "branch-eeeeeeee", "j": 0.9, "progress": 1, "confidence": 1, "risk": 0.3, "cost": 5, "steps": 5, "dominated_by": "branch-aaaaaaaa"},
		}}),
	}
	tests := []struct {
		branch string
		want   []string
	}{
		{"branch-aaaaaaaa", []string{"forked from …00000000 to click link \"Pricing\" (matches the goal)",
			"J 0.5, progress 0.25, flipped pricing_found→true, credit 0.25", "won; order: higher J", "*  1 …aaaaaaaa", "2 …eeeeeeee", "…aaaaaaaa"}},
		{"branch-bbbbbbbb", []string{"pruned by duplicate_state at J 0.1, progress 0: dom_hash=f5abf573b957… same_as=…cccccccc"}},
		{"branch-eeeeeeee", []string{"reached the boundary, ranked 2 of 2", "*  2 …eeeeeeee"}},
		{"branch-dddddddd", []string{"neither pruned nor ranked"}},
		{"root-00000000", []string{"expanded: its plan goes on in 2 children (…aaaaaaaa, …bbbbbbbb)"}},
	}
	for _, tc := range tests {
		t.Run(tc.branch, func(t *testing.T) {
			got := strings.Join(explain.Branch(es, tc.branch), "\n")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("explanation lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestExplainModelAnswers(t *testing.T) {
	mk := func(kind, branch string, p any) eventlog.Event {
		raw, _ := json.Marshal(p)
		return eventlog.Event{Kind: kind, BranchID: branch, Payload: raw}
	}
	es := []eventlog.Event{
		mk(eventlog.KindBranchFork, "B1", pl.BranchFork{Action: "open the start page", PlanDigest: "d1"}),
		mk(eventlog.KindLLMResponse, "B1", pl.LLMResponse{Step: 2, Ranking: []int{2, 0, 1}, PromptTokens: 300, CompletionTokens: 20, Cost: 0.004, FromCassette: true}),
		mk(eventlog.KindLLMResponse, "B2", pl.LLMResponse{Step: 2, Fallback: "heuristic order: llm: endpoint answered 503"}),
		mk(eventlog.KindBranchFork, "B2", pl.BranchFork{Action: "click", PlanDigest: "d2"}),
	}
	got := strings.Join(explain.Branch(es, "B1"), "\n")
	if !strings.Contains(got, "asked the model (from the cassette) for step 2: it ranked 3 candidates (320 tokens") {
		t.Errorf("B1:\n%s", got)
	}
	got = strings.Join(explain.Branch(es, "B2"), "\n")
	if !strings.Contains(got, "the heuristic's order stood: llm: endpoint answered 503") {
		t.Errorf("B2:\n%s", got)
	}
}
