package replay_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/replay"
)

// runEvents turns a compact script into a run's events: "score B 0.4"
// (metric_update), "seen B" (dom_snapshot), "prune B RULE STATE"
// (branch_pruned).
func runEvents(t *testing.T, script ...string) []eventlog.Event {
	t.Helper()
	var evs []eventlog.Event
	for i, line := range script {
		f := strings.Fields(line)
		e := eventlog.Event{RunID: "R", Seq: int64(i + 1), BranchID: f[1]}
		switch f[0] {
		case "score":
			e.Kind, e.Payload = eventlog.KindMetricUpdate, json.RawMessage(fmt.Sprintf(`{"score":{"j":%s}}`, f[2]))
		case "seen":
			e.Kind, e.Payload = eventlog.KindDOMSnapshot, json.RawMessage(`{}`)
		case "prune":
			e.Kind, e.Payload = eventlog.KindBranchPruned, json.RawMessage(fmt.Sprintf(`{"rule":%q,"state":%q}`, f[2], f[3]))
		default:
			t.Fatalf("bad script line %q", line)
		}
		evs = append(evs, e)
	}
	return evs
}

func TestPickForFailure(t *testing.T) {
	best := func(id string, j float64) replay.Pick {
		return replay.Pick{BranchID: id, Reason: replay.PickBest, J: j}
	}
	failed := func(id string, j float64, rule string) replay.Pick {
		return replay.Pick{BranchID: id, Reason: replay.PickFailed, J: j, Rule: rule}
	}
	cases := []struct {
		name   string
		script []string
		max    int
		want   []replay.Pick
	}{
		{"no branches", nil, 5, nil},
		{"best only", []string{"seen A", "score A 0.2", "seen B", "score B 0.5", "prune A beam_cut pruned"}, 5,
			[]replay.Pick{best("B", 0.5)}},
		{"tie goes to the smaller id", []string{"seen C", "score C 0.5", "seen B", "score B 0.5"}, 5,
			[]replay.Pick{best("B", 0.5)}},
		{"failures after the best, best J first", []string{
			"seen A", "score A 0.6",
			"seen F1", "prune F1 action_failed failed",
			"seen F2", "score F2 0.3", "prune F2 goal_failed failed",
			"seen F3", "score F3 0.3", "prune F3 auth_required failed"}, 5,
			[]replay.Pick{best("A", 0.6), failed("F2", 0.3, "goal_failed"), failed("F3", 0.3, "auth_required"), failed("F1", 0, "action_failed")}},
		{"the cap counts failures only", []string{
			"seen A", "score A 0.6",
			"seen F1", "score F1 0.1", "prune F1 goal_failed failed",
			"seen F2", "score F2 0.2", "prune F2 goal_failed failed"}, 1,
			[]replay.Pick{best("A", 0.6), failed("F2", 0.2, "goal_failed")}},
		{"the best failed: picked once", []string{
			"seen F", "score F 0.7", "prune F goal_failed failed",
			"seen G", "score G 0.1", "prune G goal_failed failed"}, 5,
			[]replay.Pick{{BranchID: "F", Reason: replay.PickBest, J: 0.7, Rule: "goal_failed"}, failed("G", 0.1, "goal_failed")}},
		{"unobserved failures are skipped", []string{"seen A", "score A 0.2", "prune X action_failed failed"}, 5,
			[]replay.Pick{best("A", 0.2)}},
		{"zero cap: the best alone", []string{"seen A", "score A 0.2", "seen F", "prune F action_failed failed"}, 0,
			[]replay.Pick{best("A", 0.2)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := replay.PickForFailure(runEvents(t, c.script...), c.max)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("PickForFailure =\n %+v\nwant\n %+v", got, c.want)
			}
		})
	}
}
