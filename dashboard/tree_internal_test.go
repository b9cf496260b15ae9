package dashboard

import (
	"encoding/json"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

func ev(kind, branch string, p any) eventlog.Event {
	raw, _ := json.Marshal(p)
	return eventlog.Event{Kind: kind, BranchID: branch, Payload: raw}
}

func fork(id, parent string) eventlog.Event {
	return ev(eventlog.KindBranchFork, id, payload.BranchFork{Parent: parent, Depth: 1, Action: "act " + id})
}

func score(id string, j float64) eventlog.Event {
	return ev(eventlog.KindMetricUpdate, id, payload.MetricUpdate{Score: scoring.Vector{J: j}})
}

func TestTreeStatus(t *testing.T) {
	tests := []struct {
		name string
		es   []eventlog.Event
		want map[string]string // id -> status (rule after a slash)
	}{
		{"forked only", []eventlog.Event{fork("a", "")}, map[string]string{"a": StatusOpen}},
		{"scored", []eventlog.Event{fork("a", ""), score("a", 0.5)}, map[string]string{"a": StatusExplored}},
		{"pruned", []eventlog.Event{fork("a", ""), score("a", 0.5),
			ev(eventlog.KindBranchPruned, "a", payload.BranchPruned{Rule: "dead_end", State: "pruned"})},
			map[string]string{"a": StatusPruned + "/dead_end"}},
		{"failed", []eventlog.Event{fork("a", ""),
			ev(eventlog.KindBranchPruned, "a", payload.BranchPruned{Rule: "action_failed", State: "failed"})},
			map[string]string{"a": StatusFailed + "/action_failed"}},
		{"boundary", []eventlog.Event{fork("a", ""), score("a", 1), ev(eventlog.KindDOMSnapshot, "a", payload.DOMSnapshot{AtBoundary: true})},
			map[string]string{"a": StatusBoundary}},
		{"ranked", []eventlog.Event{fork("a", ""), fork("b", "a"), fork("c", "a"), score("b", 1), score("c", 0.9),
			ev(eventlog.KindWinner, "b", payload.Winner{Ranking: []payload.Rank{{BranchID: "b"}, {BranchID: "c"}}})},
			map[string]string{"a": StatusOpen, "b": StatusWinner, "c": StatusBoundary}},
		{"a later ranking demotes", []eventlog.Event{fork("a", ""), fork("b", ""), score("a", 1), score("b", 1),
			ev(eventlog.KindWinner, "a", payload.Winner{Ranking: []payload.Rank{{BranchID: "a"}, {BranchID: "b"}}}),
			ev(eventlog.KindWinner, "b", payload.Winner{Ranking: []payload.Rank{{BranchID: "b"}, {BranchID: "a"}}})},
			map[string]string{"a": StatusBoundary, "b": StatusWinner}},
		{"unknown branch ignored", []eventlog.Event{score("x", 1), ev(eventlog.KindBranchPruned, "x", payload.BranchPruned{Rule: "r"})},
			map[string]string{}},
		{"bad payload ignored", []eventlog.Event{fork("a", ""), {Kind: eventlog.KindMetricUpdate, BranchID: "a", Payload: json.RawMessage(`{"score":1}`)}},
			map[string]string{"a": StatusOpen}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree()
			for _, e := range tc.es {
				tr.apply(e)
			}
			got := map[string]string{}
			for _, b := range tr.list() {
				got[b.ID] = b.Status
				if b.Rule != "" {
					got[b.ID] += "/" + b.Rule
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("statuses %v, want %v", got, tc.want)
			}
			for id, w := range tc.want {
				if got[id] != w {
					t.Errorf("%s: %s, want %s", id, got[id], w)
				}
			}
		})
	}
}

func TestSafeType(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"},
		{"pdf", "%PDF-1.7\n", "application/pdf"},
		{"html", "<!doctype html><script>alert(1)</script>", "text/plain; charset=utf-8"},
		{"svg", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`, "text/plain; charset=utf-8"},
		{"json", `{"a":1}`, "text/plain; charset=utf-8"},
		{"binary", "\x00\x01\x02\x03", "application/octet-stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := safeType([]byte(tc.data)); got != tc.want {
				t.Errorf("safeType = %q, want %q", got, tc.want)
			}
		})
	}
}
