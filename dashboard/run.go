package dashboard

import (
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// Outcomes the dashboard gives runs without a run_end event.
const (
	// OutcomeRunning: the run's log has no run_end yet: it is in progress
	// in another process, or that process died.
	OutcomeRunning = "running"
	// OutcomeRecorded: the run shown from a bundle, which holds the
	// branch's events but not the run's end.
	OutcomeRecorded = "recorded"
)

// Run is one run in the runs list.
type Run struct {
	RunID string `json:"run_id"`
	Task  string `json:"task"`
	// Outcome is the run_end status (committed, no_boundary, goal_reached,
	// aborted, failed, ...), or OutcomeRunning.
	Outcome    string    `json:"outcome"`
	Error      string    `json:"error,omitempty"`
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
	Branches   int       `json:"branches"` // forked
	Winner     string    `json:"winner,omitempty"`
	OrderID    string    `json:"order_id,omitempty"`
	Events     int64     `json:"events"`
	// Reproduces names the run a rerun reproduces (from its manifest).
	Reproduces *payload.Reproduction `json:"reproduces,omitempty"`
}

// summaryKinds are the event kinds a Run is derived from.
var summaryKinds = []string{eventlog.KindRunStart, eventlog.KindRunEnd, eventlog.KindWinner, eventlog.KindCommitEnd}

// summarize derives a Run from the run's summary row and its events of
// summaryKinds (more kinds are ignored). forks counts branch_fork events
// when the run has not ended (run_end carries the count otherwise).
// unended is the outcome of a run without run_end.
func summarize(info eventlog.RunInfo, es []eventlog.Event, forks int, unended string) Run {
	r := Run{RunID: info.RunID, Outcome: unended, Started: info.First, Events: info.Events, Branches: forks,
		DurationMS: info.Last.Sub(info.First).Milliseconds()}
	for _, e := range es {
		switch e.Kind {
		case eventlog.KindRunStart:
			if rs, err := payload.Decode[payload.RunStart](e); err == nil {
				r.Task, r.Reproduces = rs.Task, rs.Reproduces
			}
			r.Started = e.Time
		case eventlog.KindWinner:
			r.Winner = e.BranchID
		case eventlog.KindCommitEnd:
			if c, err := payload.Decode[payload.CommitEnd](e); err == nil && c.OrderID != "" {
				r.OrderID = c.OrderID
			}
		case eventlog.KindRunEnd:
			if end, err := payload.Decode[payload.RunEnd](e); err == nil {
				r.Outcome, r.Error, r.DurationMS = end.Status, end.Error, end.ElapsedMS
				if end.Branches.Forked > 0 {
					r.Branches = end.Branches.Forked
				}
			}
		}
	}
	return r
}
