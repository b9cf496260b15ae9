package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/dashboard"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// synthLog is a writable event log of synthetic runs, written directly
// through the eventlog API (no browser), as another process would.
type synthLog struct {
	dir string
	log *eventlog.Log
}

func newSynthLog(t testing.TB) *synthLog {
	t.Helper()
	dir := t.TempDir()
	l, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return &synthLog{dir: dir, log: l}
}

// syntheticStores is a data dir with one finished synthetic run, opened
// read-only.
func syntheticStores(t testing.TB) dashboard.Stores {
	t.Helper()
	s := newSynthLog(t)
	r := s.start(t, "synthetic")
	r.forks(t, 3)
	r.end(t, "no_boundary")
	return openStores(t, s.dir)
}

// synthRun appends the events of one run.
type synthRun struct {
	log   *eventlog.Log
	id    string
	ids   []string
	batch []eventlog.Event
}

func (s *synthLog) start(t testing.TB, task string) *synthRun {
	r := &synthRun{log: s.log, id: ulid.Make().String()}
	r.add(eventlog.KindRunStart, "", payload.RunStart{Task: task, Seed: "1"})
	r.flush(t)
	return r
}

func (r *synthRun) add(kind, branchID string, p any) {
	raw, err := jsonOf(p)
	if err != nil {
		panic(err)
	}
	r.batch = append(r.batch, eventlog.Event{RunID: r.id, Time: time.Now(), Kind: kind, BranchID: branchID, Payload: raw})
}

func (r *synthRun) flush(t testing.TB) {
	t.Helper()
	if _, err := r.log.AppendBatch(context.Background(), r.batch); err != nil {
		t.Fatal(err)
	}
	r.batch = r.batch[:0]
}

// forks appends n branches, each a child of the one n/4 before it, each
// scored; every fifth is pruned.
func (r *synthRun) forks(t testing.TB, n int) {
	for i := 0; i < n; i++ {
		id := ulid.Make().String()
		parent, depth := "", 1
		if k := len(r.ids); k > 0 {
			parent, depth = r.ids[k-1-(k-1)%max(1, n/4)], 2
		}
		r.ids = append(r.ids, id)
		plan := branch.Plan{{Kind: branch.KindNavigate, URL: "https://shop.test/", Label: "open the start page"}}
		r.add(eventlog.KindBranchFork, id, payload.BranchFork{Parent: parent, Depth: depth, Action: fmt.Sprintf("click #%d", i), Plan: plan})
		j := float64(i%10) / 10
		r.add(eventlog.KindMetricUpdate, id, payload.MetricUpdate{Score: scoring.Vector{J: j, Progress: j}, Action: "click"})
		if i%5 == 4 {
			r.add(eventlog.KindBranchPruned, id, payload.BranchPruned{Rule: "duplicate_state", State: "pruned", J: j})
		}
	}
	r.flush(t)
}

// commit appends a winner ranking of the last two branches and a commit
// of the first of them.
func (r *synthRun) commit(t testing.TB, order string) {
	w, second := r.ids[len(r.ids)-1], r.ids[len(r.ids)-2]
	r.add(eventlog.KindWinner, w, payload.Winner{Order: "higher J", Ranking: []payload.Rank{{BranchID: w, J: 1}, {BranchID: second, J: 0.5}}})
	r.add(eventlog.KindCommitEnd, w, map[string]any{"state": "committed", "order_id": order})
	r.flush(t)
}

func (r *synthRun) end(t testing.TB, status string) {
	r.add(eventlog.KindRunEnd, "", map[string]any{"status": status, "elapsed_ms": 1234, "branches": map[string]int{"forked": len(r.ids)}})
	r.flush(t)
}

func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }
