package orchestrator

import (
	"context"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// commit hands the winners, best first, to the single writer.
func (r *run) commit(ctx context.Context, rt *browser.Runtime, winners []*planner.Node) error {
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Phase: "commit", Elapsed: timeSince(r.start), Budget: r.t.Budgets.WallClock.D()})
	}
	c := &commit.Committer{Task: r.t, RunID: r.runID, Spec: r.spec, Ledger: r.led, Store: r.store, Runtime: rt, Events: r.rec}
	cands := make([]commit.Candidate, len(winners))
	for i, n := range winners {
		cands[i] = commit.Candidate{BranchID: n.ID, PlanDigest: n.Digest, Plan: n.Plan}
	}
	res, err := c.Commit(ctx, cands)
	info := &CommitInfo{}
	branchID := ""
	if res != nil {
		branchID = res.Candidate.BranchID
		e := res.Entry
		info = &CommitInfo{EntryID: e.ID, Key: e.Key, State: string(e.State), OrderID: e.OrderID, Existing: res.Existing,
			Recovered: res.Recovered, Artifacts: e.Artifacts, Skipped: res.Skipped, Error: e.Error}
		for _, n := range winners {
			if n.ID == res.Candidate.BranchID {
				w := &Winner{BranchID: n.ID, PlanDigest: n.Digest, Score: n.Score}
				for _, a := range n.Plan {
					w.Steps = append(w.Steps, a.Describe())
				}
				r.sum.Winner = w
			}
		}
	}
	r.sum.Commit = info
	r.rec.add(zeroTime, 0, "commit_end", branchID, map[string]any{"entry_id": info.EntryID, "state": info.State, "order_id": info.OrderID,
		"existing": info.Existing, "recovered": info.Recovered, "key": info.Key, "error": errString(err)})
	r.rec.flush(ctx)
	if err != nil {
		return fmt.Errorf("orchestrator: commit: %w", err)
	}
	switch {
	case res.Existing:
		r.sum.Status = "existing"
	case res.Recovered:
		r.sum.Status = "recovered"
	default:
		r.sum.Status = "committed"
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
