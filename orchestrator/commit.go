package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
)

// recoverPending resolves intents an earlier run left without an outcome
// (a crash between the intent and its finalization): it asks the site
// whether it holds the commit and finalizes the row when it does. Rows it
// cannot resolve stay pending; committing the same intent again retries
// them with the same key.
func (r *run) recoverPending(ctx context.Context) {
	pending, err := r.led.Pending(ctx)
	if err != nil {
		r.rec.add(zeroTime, 0, eventlog.KindError, "", map[string]any{"where": "recovery", "error": err.Error()})
		return
	}
	c := &commit.Committer{Task: r.t, RunID: r.runID, Ledger: r.led, Events: r.rec, Anchor: r.rec, HTTPClient: r.siteClient()}
	for _, e := range pending {
		if e.Site != r.t.Commit.Site || e.Flow != r.t.Commit.Flow {
			continue
		}
		f, ok, err := c.Recover(ctx, e)
		payload := map[string]any{"key": e.Key, "entry_id": e.ID, "attempts": e.Attempts, "resolved": ok}
		if err != nil {
			payload["error"] = err.Error()
		}
		if ok {
			payload["order_id"] = f.OrderID
			if r.recovered == nil {
				r.recovered = map[string]bool{}
			}
			r.recovered[e.Key] = true
		}
		r.rec.add(zeroTime, 0, eventlog.KindRecovery, e.BranchID, payload)
	}
	r.rec.flush(ctx)
}

// commit hands the winners, best first, to the single writer.
func (r *run) commit(ctx context.Context, rt *browser.Runtime, winners []*planner.Node) (err error) {
	r.phase("commit")
	ctx, span := telemetry.Tracer().Start(ctx, "commit "+r.t.Name, trace.WithAttributes(attribute.String("multiverse.run_id", r.runID)))
	defer func() { telemetry.End(span, err) }()
	c := r.committer(rt)
	c.DryRun = r.cfg.DryCommit
	c.KnownVolatile = r.cfg.CommitVolatile
	if r.cfg.Network != nil {
		// A rerun: the committer's preflight runs in the recorded world too.
		c.Network = func(ctx context.Context, branchID string, plan branch.Plan) (string, func(), error) {
			return r.cfg.Network(ctx, &job.Job{RunID: r.runID, BranchID: branchID, Plan: plan})
		}
	}
	cands := make([]commit.Candidate, len(winners))
	for i, n := range winners {
		cands[i] = commit.Candidate{BranchID: n.ID, PlanDigest: n.Digest, Plan: n.Plan}
		if n.Outcome != nil {
			cands[i].Intent = n.Outcome.Intent
			cands[i].Cookies = r.spec.Cookies
		}
	}
	res, err := c.Commit(ctx, cands)
	info := &CommitInfo{}
	branchID := ""
	if res != nil {
		branchID = res.Candidate.BranchID
		e := res.Entry
		info = &CommitInfo{EntryID: e.ID, Key: e.Key, State: string(e.State), OrderID: e.OrderID, Existing: res.Existing,
			Recovered: res.Recovered, Artifacts: e.Artifacts, Skipped: res.Skipped, Changes: res.Changes, Error: e.Error,
			PostcheckFailed: res.Postcheck}
		if e.Compensation != nil {
			info.CompensationKey = e.Compensation.Key
			if info.Error == "" {
				info.Error = e.Compensation.Error
			}
		}
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
	head, hash, _ := r.led.Head(ctx)
	r.rec.add(zeroTime, 0, eventlog.KindCommitEnd, branchID, payload.CommitEnd{EntryID: info.EntryID, State: info.State, OrderID: info.OrderID,
		Existing: info.Existing, Recovered: info.Recovered, Key: info.Key, Error: errString(err),
		Skipped: info.Skipped, Changes: info.Changes, LedgerHeadSeq: head, LedgerHeadHash: hash})
	r.rec.flush(ctx)
	if errors.Is(err, commit.ErrPostcheckFailed) {
		// The order was placed (and undone): its commit bundle records
		// both.
		r.seal(ctx, res.Candidate.BranchID)
	}
	if err != nil {
		return fmt.Errorf("orchestrator: commit: %w", err)
	}
	switch {
	case res.DryRun:
		r.sum.Status = "dry-run"
		info.Key, info.State = res.Key, "dry-run"
	case res.Existing:
		r.sum.Status = "existing"
		if r.recovered[res.Entry.Key] {
			// This run's start finalized the row through the probe: its
			// commit bundle records that.
			r.seal(ctx, res.Candidate.BranchID)
		}
	case res.Recovered:
		r.sum.Status = "recovered"
		r.seal(ctx, res.Candidate.BranchID)
	default:
		r.sum.Status = "committed"
		r.seal(ctx, res.Candidate.BranchID)
	}
	return nil
}

// committer is the run's committer: the only code that may send the
// task's side effect (or its undo).
func (r *run) committer(rt *browser.Runtime) *commit.Committer {
	c := &commit.Committer{Task: r.t, RunID: r.runID, Spec: r.spec, Ledger: r.led, Store: r.store, Runtime: rt, Events: r.rec, Anchor: r.rec, Trail: r.trail, HTTPClient: r.siteClient(), Login: r.login.current()}
	key, err := evidence.CreateKey(r.dd)
	if err != nil {
		// The commit goes on; evidence that needs the key is not kept.
		r.rec.add(zeroTime, 0, eventlog.KindError, "", map[string]any{"where": "evidence key", "error": err.Error()})
	}
	c.EvidenceKey = key
	return c
}

// CompensateRequest names the ledger row a compensation run undoes, and
// why.
type CompensateRequest struct {
	// Key is the row's idempotency key.
	Key string
	// Reason is recorded with the undo ("requested" when empty).
	Reason string
}

// compensate is a compensation run's work: the committer undoes the row,
// and the run records how it ended (commit_end names the row).
func (r *run) compensate(ctx context.Context, rt *browser.Runtime, req CompensateRequest) (err error) {
	r.phase("compensate")
	ctx, span := telemetry.Tracer().Start(ctx, "compensate "+r.t.Name, trace.WithAttributes(attribute.String("multiverse.run_id", r.runID)))
	defer func() { telemetry.End(span, err) }()
	if rt == nil {
		return fmt.Errorf("%w: compensation needs a browser; this run's executor has none", ErrBadInput)
	}
	if req.Reason == "" {
		req.Reason = "requested"
	}
	res, err := r.committer(rt).Compensate(ctx, req.Key, req.Reason)
	info := &CommitInfo{Key: req.Key, Error: errString(err)}
	if res != nil {
		e := res.Entry
		info = &CommitInfo{EntryID: e.ID, Key: e.Key, State: string(e.State), OrderID: e.OrderID, Existing: res.Existing, Artifacts: e.Compensation.Artifacts}
		info.CompensationKey, info.Error = e.Compensation.Key, e.Compensation.Error
	}
	r.sum.Commit = info
	head, hash, _ := r.led.Head(ctx)
	r.rec.add(zeroTime, 0, eventlog.KindCommitEnd, "", payload.CommitEnd{EntryID: info.EntryID, State: info.State, OrderID: info.OrderID,
		Existing: info.Existing, Key: info.Key, Error: errString(err), LedgerHeadSeq: head, LedgerHeadHash: hash})
	r.rec.flush(ctx)
	switch {
	case errors.Is(err, commit.ErrNotCompensable), errors.Is(err, ledger.ErrNotFound):
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	case err != nil:
		return fmt.Errorf("orchestrator: compensate: %w", err)
	case res.Existing:
		r.sum.Status = "existing"
	default:
		r.sum.Status = "compensated"
	}
	return nil
}

// seal writes the commit bundle: the winner's steps, the committer's own
// steps and the submit's recorded network, so a third party can replay the
// purchase against the recorded responses and audit it offline.
func (r *run) seal(ctx context.Context, branchID string) {
	path := filepath.Join(r.dd, "bundles", r.runID+"-commit.bundle")
	if err := r.writeBundle(ctx, branchID, bundle.KindCommit, path, ""); err == nil {
		r.sum.Paths.Bundle = path
	}
}

// writeBundle builds a bundle of the branch with replay.Build, the code
// behind `orchestrator bundle`, and writes it to path, recording where (or
// why not) in the event log; why names the reason a failed run picked the
// branch ("" otherwise). The records are scrubbed already, and so is the
// bundle; the error returned is scrubbed.
func (r *run) writeBundle(ctx context.Context, branchID string, kind bundle.Kind, path, why string) error {
	b, err := replay.Build(ctx, replay.Source{Events: r.elog, Store: r.store, Ledger: r.led}, r.runID, branchID, kind)
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = bundle.WriteFile(path, b)
		}
	}
	if err != nil {
		msg := r.sc.Text(err.Error())
		r.rec.add(zeroTime, 0, eventlog.KindError, branchID, map[string]any{"where": "bundle", "error": msg})
		return fmt.Errorf("orchestrator: bundle of branch %s: %s", branchID, msg)
	}
	ev := map[string]any{"path": path, "kind": kind, "steps": len(b.Steps)}
	if why != "" {
		ev["reason"] = why
	}
	r.rec.add(zeroTime, 0, eventlog.KindBundle, branchID, ev)
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
