package dashboard

import (
	"context"
	"net/http"
	"sort"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// Timeline is a run's branches over time, one lane per worker: when each
// ran its actions (replayed prefix included) and how it ended.
type Timeline struct {
	Start   time.Time `json:"start"`
	EndMS   int64     `json:"end_ms"`
	Workers []string  `json:"workers"`
	Spans   []Span    `json:"spans"`
}

// Span is one branch's execution on a worker: from its first action's
// start to its last action's end, in milliseconds after the run's start.
type Span struct {
	BranchID string `json:"branch_id"`
	Worker   string `json:"worker"`
	StartMS  int64  `json:"start_ms"`
	EndMS    int64  `json:"end_ms"`
	Actions  int    `json:"actions"`
	Status   string `json:"status"`
	Action   string `json:"action"`
	Wave     int    `json:"wave,omitempty"`
}

func (s *Server) handleTimeline(w http.ResponseWriter, r *http.Request) {
	runID, err := s.runParam(r.Context(), r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	tl, err := s.timeline(r.Context(), runID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, tl)
}

// timeline folds a run's action events into spans per branch.
func (s *Server) timeline(ctx context.Context, runID string) (*Timeline, error) {
	es, err := s.events.Events(ctx, runID, eventlog.Query{Kinds: []string{eventlog.KindRunStart, eventlog.KindBranchFork,
		eventlog.KindActionStart, eventlog.KindActionEnd, eventlog.KindBranchPruned, eventlog.KindWinner}})
	if err != nil {
		return nil, err
	}
	tl := &Timeline{Workers: []string{}, Spans: []Span{}}
	tree := newTree()
	spans := map[string]*Span{}
	var order []string
	workers := map[string]bool{}
	for _, e := range es {
		tree.apply(e)
		if tl.Start.IsZero() {
			tl.Start = e.Time
		}
		ms := e.Time.Sub(tl.Start).Milliseconds()
		switch e.Kind {
		case eventlog.KindActionStart:
			a, err := payload.Decode[payload.ActionStart](e)
			if err != nil {
				continue
			}
			sp := spans[e.BranchID]
			if sp == nil {
				sp = &Span{BranchID: e.BranchID, Worker: a.Worker, StartMS: ms, EndMS: ms}
				spans[e.BranchID] = sp
				order = append(order, e.BranchID)
			}
			if a.Worker != "" && !workers[a.Worker] {
				workers[a.Worker] = true
				tl.Workers = append(tl.Workers, a.Worker)
			}
			sp.StartMS = min(sp.StartMS, ms)
		case eventlog.KindActionEnd:
			if sp := spans[e.BranchID]; sp != nil {
				if _, err := payload.Decode[payload.ActionEnd](e); err == nil {
					sp.Actions++
				}
				sp.EndMS = max(sp.EndMS, ms)
			}
		}
		tl.EndMS = max(tl.EndMS, ms)
	}
	sort.Strings(tl.Workers)
	for _, id := range order {
		sp := spans[id]
		if b := tree.branches[id]; b != nil {
			sp.Status, sp.Action, sp.Wave = b.Status, b.Action, b.Wave
		}
		tl.Spans = append(tl.Spans, *sp)
	}
	return tl, nil
}
