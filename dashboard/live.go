package dashboard

import (
	"context"
	"slices"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// liveRun is a run folded up to some event: its summary row, the events
// a Run is derived from, and its tree. The stream feeds it new events.
type liveRun struct {
	unended string // the outcome while there is no run_end
	info    eventlog.RunInfo
	sum     []eventlog.Event // of summaryKinds
	tree    *tree
	seq     int64
}

// openRun folds every event of a run recorded so far.
func (s *Server) openRun(ctx context.Context, runID string) (*liveRun, error) {
	es, err := s.events.Events(ctx, runID, eventlog.Query{})
	if err != nil {
		return nil, err
	}
	info, err := s.runInfo(ctx, runID)
	if err != nil {
		return nil, err
	}
	lr := &liveRun{unended: s.unended(), info: info, tree: newTree()}
	for _, e := range es {
		lr.apply(e)
	}
	return lr, nil
}

// apply folds e in and returns the branches it changed.
func (lr *liveRun) apply(e eventlog.Event) []*Branch {
	if slices.Contains(summaryKinds, e.Kind) {
		lr.sum = append(lr.sum, e)
	}
	lr.seq = e.Seq
	lr.info.Events, lr.info.Last, lr.info.LastKind = e.Seq, e.Time, e.Kind
	return lr.tree.apply(e)
}

func (lr *liveRun) run() Run { return summarize(lr.info, lr.sum, len(lr.tree.order), lr.unended) }

func (lr *liveRun) detail() *RunDetail {
	return &RunDetail{Run: lr.run(), Order: lr.tree.rankOf, Branches: lr.tree.list(), Seq: lr.seq}
}

// ended reports whether the run can change no more: it ended, or it is
// a bundle's.
func (lr *liveRun) ended() bool { return lr.run().Outcome != OutcomeRunning }
