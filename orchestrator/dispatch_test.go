package orchestrator

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// These tests drive the dispatcher alone, against a real embedded NATS
// server where it needs one; no browser runs.

type added struct {
	kind, branch string
	payload      map[string]any
}

// eventSink collects what the dispatcher records.
type eventSink struct{ events []added }

func (s *eventSink) add(_ time.Time, _ int64, kind, branchID string, payload any, _ ...string) {
	p, _ := payload.(map[string]any)
	s.events = append(s.events, added{kind, branchID, p})
}

func (s *eventSink) kinds() []string {
	var out []string
	for _, e := range s.events {
		out = append(out, e.kind)
	}
	return out
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startBus starts an embedded NATS server in a temporary directory and
// connects to it.
func startBus(t *testing.T) *bus.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	client, err := bus.Connect(ctx, srv.ClientURL(), bus.WithServer(srv), bus.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

// TestDispatcherCounts: only the first result of the latest claimed
// attempt of a branch of the wave counts; the others are recorded as
// stale or duplicate, or ignored.
func TestDispatcherCounts(t *testing.T) {
	tests := []struct {
		name                     string
		claim                    int // the latest claimed attempt, 0 for none
		attempt                  int
		inWave, answered, folded bool
		want                     bool
		wantKind                 string // the event recorded, "" for none
		wantPayload              map[string]any
	}{
		{name: "first result", attempt: 1, inWave: true, want: true},
		{name: "latest claimed attempt", claim: 2, attempt: 2, inWave: true, want: true},
		{name: "older attempt", claim: 3, attempt: 2, inWave: true, wantKind: eventlog.KindStaleResult,
			wantPayload: map[string]any{"attempt": 2, "latest_attempt": 3}},
		{name: "duplicate", attempt: 1, inWave: true, answered: true, wantKind: eventlog.KindDuplicateResult,
			wantPayload: map[string]any{"attempt": 1}},
		{name: "folded in an earlier wave", attempt: 1, folded: true, wantKind: eventlog.KindStaleResult,
			wantPayload: map[string]any{"attempt": 1, "reason": "the branch was already folded"}},
		{name: "never dispatched", attempt: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink := &eventSink{}
			claims := make(chan bus.Claim, 1)
			if tc.claim > 0 {
				claims <- bus.Claim{RunID: "run", BranchID: "b1", Attempt: tc.claim, Worker: "w1"}
			}
			d := newDispatcher(nil, "run", quietLog(), sink, claims, func(string) bool { return true })
			got := d.counts(bus.Result{RunID: "run", BranchID: "b1", Attempt: tc.attempt}, tc.inWave, tc.answered, tc.folded)
			if got != tc.want {
				t.Errorf("counts = %v, want %v", got, tc.want)
			}
			switch {
			case tc.wantKind == "" && len(sink.events) > 0:
				t.Errorf("recorded %v, want nothing", sink.kinds())
			case tc.wantKind != "" && (len(sink.events) != 1 || sink.events[0].kind != tc.wantKind || sink.events[0].branch != "b1"):
				t.Errorf("recorded %v, want one %s of b1", sink.events, tc.wantKind)
			case tc.wantKind != "":
				for k, v := range tc.wantPayload {
					if sink.events[0].payload[k] != v {
						t.Errorf("payload %v, want %s=%v", sink.events[0].payload, k, v)
					}
				}
			}
		})
	}
}

// TestDispatcherLost: branches without a result in time fail as lost,
// each with an error event.
func TestDispatcherLost(t *testing.T) {
	sink := &eventSink{}
	d := newDispatcher(nil, "run", quietLog(), sink, nil, nil)
	out := d.lost([]string{"b1", "b2"})
	if len(out) != 2 || out["b1"].Code != "lost" || out["b2"].Code != "lost" || out["b1"].OK {
		t.Fatalf("lost = %+v", out)
	}
	if len(sink.events) != 2 || sink.events[0].kind != eventlog.KindError || sink.events[0].payload["where"] != "dispatch" {
		t.Fatalf("recorded %+v", sink.events)
	}
}

// TestDispatcherReroute: a routed job waits for its worker while nobody
// claimed it for less than routeWait, or while its claiming worker is
// alive; then it is withdrawn from the route and queued for any worker,
// its attempts counting on. A job whose branch answered is dropped.
func TestDispatcherReroute(t *testing.T) {
	client := startBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tests := []struct {
		name       string
		claimBy    string // the worker that claimed the job, "" for none
		alive      bool
		answered   bool
		waited     time.Duration
		wantKept   bool
		wantQueued bool
	}{
		{name: "unclaimed, within routeWait", waited: routeWait / 2, wantKept: true},
		{name: "unclaimed, past routeWait", waited: routeWait, wantQueued: true},
		{name: "claimed by a live worker", claimBy: "w1", alive: true, waited: time.Hour, wantKept: true},
		{name: "claimed by a dead worker", claimBy: "w1", waited: 0, wantQueued: true},
		{name: "answered", answered: true, waited: time.Hour},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runID := "run" + string(rune('a'+i))
			claims := make(chan bus.Claim, 1)
			d := newDispatcher(client, runID, quietLog(), &eventSink{}, claims, func(string) bool { return tc.alive })
			routed, err := d.publish(ctx, []outJob{
				{branchID: "b1", data: []byte(`{}`), hdr: nats.Header{}, route: "w1"},
				{branchID: "b2", data: []byte(`{}`), hdr: nats.Header{}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(routed) != 1 || routed[0].branchID != "b1" || d.routedTo["b1"] != "w1" || d.routedTo["b2"] != "" {
				t.Fatalf("publish: routed %+v, routedTo %v", routed, d.routedTo)
			}
			if tc.claimBy != "" {
				claims <- bus.Claim{RunID: runID, BranchID: "b1", Attempt: 1, Worker: tc.claimBy}
			}
			kept, n, err := d.reroute(ctx, routed, func(string) bool { return tc.answered }, tc.waited)
			if err != nil {
				t.Fatal(err)
			}
			if (len(kept) == 1) != tc.wantKept || (n == 1) != tc.wantQueued {
				t.Fatalf("reroute: kept %d, queued %d; want kept %v, queued %v", len(kept), n, tc.wantKept, tc.wantQueued)
			}
			if _, still := d.routedTo["b1"]; still == tc.wantQueued {
				t.Errorf("routedTo %v after reroute", d.routedTo)
			}
			// Two jobs in the stream either way: b2, and b1 on its route or
			// queued for any worker in its place.
			if p, err := client.Pending(ctx, runID); err != nil || p != 2 {
				t.Errorf("pending = %d, %v; want 2", p, err)
			}
		})
	}
}

// TestSpecForGuidedSteps: the steps of a cached plan before its last skip
// the advisory screenshot; its last step and the search's own branches
// keep it, and the run's spec is never changed.
func TestSpecForGuidedSteps(t *testing.T) {
	r := &run{spec: &job.Spec{Screenshots: true}}
	cases := []struct {
		guide, depth int
		shot         bool
	}{
		{0, 3, true}, // forked by the search
		{8, 3, false},
		{8, 8, true}, // the cached plan's last step
	}
	for _, c := range cases {
		if got := r.specFor(&planner.Node{Guide: c.guide, Depth: c.depth}).Screenshots; got != c.shot {
			t.Errorf("guide %d depth %d: screenshots %v, want %v", c.guide, c.depth, got, c.shot)
		}
	}
	if !r.spec.Screenshots {
		t.Fatal("specFor changed the run's spec")
	}
	r.spec.Screenshots = false
	if r.specFor(&planner.Node{Guide: 8, Depth: 8}).Screenshots {
		t.Fatal("a run without screenshots took one")
	}
}
