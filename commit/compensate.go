package commit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	pl "github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Errors of compensation callers branch on.
var (
	// ErrNotCompensable: the row's side effect did not happen (it is not
	// committed), or the task says no undo (no commit.compensate);
	// nothing was sent.
	ErrNotCompensable = errors.New("commit: nothing to compensate")
	// ErrCompensationFailed: the undo ran and the site did not confirm
	// it; the row is compensation_failed and compensating again resends
	// the same key.
	ErrCompensationFailed = errors.New("commit: the site did not confirm the undo")
)

// Compensation is the outcome of Compensate.
type Compensation struct {
	Entry ledger.Entry
	// Existing is set when the row was already compensated: nothing was
	// sent.
	Existing bool
}

// CompensationKey is the undo's idempotency key for a committed row: made
// of the row's key and order id, so every attempt (in any run) sends the
// same key and a site that keys its undo by it undoes once.
func CompensationKey(e ledger.Entry) (string, error) {
	payload, err := json.Marshal(map[string]string{"entry_key": e.Key, "order_id": e.OrderID})
	if err != nil {
		return "", err
	}
	return ledger.IdempotencyKey(e.Site, e.Flow+".compensate", payload)
}

// Compensate undoes the committed side effect of the ledger row with key,
// through the task's commit.compensate, under the ledger's single-writer
// lock. reason says why (a failed post-check, a person's request). A row
// already compensated is returned with Existing and nothing is sent.
func (c *Committer) Compensate(ctx context.Context, key, reason string) (*Compensation, error) {
	unlock, err := c.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e, err := c.Ledger.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("commit: compensate: %w", err)
	}
	return c.compensate(ctx, e, reason)
}

// compensate is Compensate with the lock held.
func (c *Committer) compensate(ctx context.Context, e ledger.Entry, reason string) (*Compensation, error) {
	switch e.State {
	case ledger.StateCompensated:
		ev := pl.Ledger{Key: e.Key, State: string(e.State), EntryID: e.ID, OrderID: e.OrderID, Existing: true}
		if e.Compensation != nil { // verify names a row without it
			ev.CompensationKey = e.Compensation.Key
		}
		c.Events.Record(ctx, eventlog.KindLedger, e.BranchID, ev)
		return &Compensation{Entry: e, Existing: true}, nil
	case ledger.StateCommitted, ledger.StateCompensating, ledger.StateCompensationFailed:
	default:
		return nil, fmt.Errorf("%w: row %s is %s: only a committed side effect can be undone", ErrNotCompensable, e.ID, e.State)
	}
	cp := c.Task.Commit.Compensate
	if cp == nil {
		return nil, fmt.Errorf("%w: the task has no commit.compensate (the site's undo)", ErrNotCompensable)
	}
	compKey, err := CompensationKey(e)
	if err != nil {
		return nil, fmt.Errorf("commit: compensation key: %w", err)
	}
	reason = c.Spec.Scrubber().Text(reason) // a person's words, recorded
	kept := &keptStore{store: c.Store}
	if err := c.trailErr(kept); err != nil {
		c.Events.Record(ctx, eventlog.KindCommitRefused, e.BranchID, map[string]any{"key": compKey, "reason": err.Error()})
		return nil, err
	}
	e, err = c.Ledger.Compensate(ctx, e.Key, ledger.Compensation{Key: compKey, RunID: c.RunID, Reason: reason})
	if err != nil {
		return nil, fmt.Errorf("commit: recording the compensation: %w", err)
	}
	c.Events.Record(ctx, eventlog.KindLedger, e.BranchID, pl.Ledger{Key: e.Key, State: string(e.State), EntryID: e.ID, OrderID: e.OrderID,
		CompensationKey: compKey, Reason: reason, Attempts: e.Compensation.Attempts})
	confirmation, arts, undoErr := c.undo(ctx, e, cp, compKey, kept)
	out := ledger.Outcome{Confirmation: confirmation, Artifacts: arts}
	if undoErr != nil {
		out.Error = undoErr.Error()
	}
	if c.Anchor != nil {
		if a, err := c.Anchor.Anchor(ctx); err == nil {
			out.Anchor = &a
		}
	}
	settled, err := c.Ledger.SettleCompensation(ctx, e.Key, undoErr == nil, out)
	if err != nil {
		return nil, fmt.Errorf("commit: settling the compensation: %w", err)
	}
	c.Events.Record(ctx, eventlog.KindLedger, e.BranchID, pl.Ledger{Key: e.Key, State: string(settled.State), EntryID: e.ID, OrderID: e.OrderID,
		CompensationKey: compKey, Error: out.Error}, artValues(arts)...)
	res := &Compensation{Entry: settled}
	if undoErr != nil {
		return res, fmt.Errorf("%w: %v; the order %s stands; compensating again resends key %s", ErrCompensationFailed, undoErr, e.OrderID, compKey)
	}
	return res, nil
}

// undo runs the site's undo in a fresh session: open the undo's page, carry
// the key, release writes for the one action, wait for the confirm
// predicate. It returns the confirmation and evidence, and why the undo is
// not confirmed (nil when it is).
func (c *Committer) undo(ctx context.Context, e ledger.Entry, cp *task.Compensate, key string, kept *keptStore) (json.RawMessage, map[string]string, error) {
	arts := map[string]string{}
	so, err := browser.SessionOptionsFor(c.Spec, kept)
	if err != nil {
		return nil, arts, err
	}
	if c.Login != nil {
		so.State, so.Scrub = c.Login, c.Spec.ScrubberWith(c.Login.Secrets())
	}
	sess, err := c.Runtime.NewSession(ctx, so)
	if err != nil {
		return nil, arts, err
	}
	defer sess.Close()
	target, err := undoURL(c.Task.StartURL, cp.Navigate, e.OrderID)
	if err != nil {
		return nil, arts, err
	}
	if r, err := sess.Do(ctx, branch.Action{Kind: branch.KindNavigate, URL: target}, nil); err != nil {
		return nil, arts, err
	} else if r.Status == branch.StatusFailed {
		return nil, arts, fmt.Errorf("opening %s: %s", c.Spec.Scrubber().URL(target), r.Error)
	}
	id := c.Task.Commit.Idempotency
	if cp.Idempotency != nil {
		id = *cp.Idempotency
	}
	if id.FormField != "" {
		if r, err := sess.Do(ctx, KeyAction(id.FormField, key), nil); err != nil || r.Status == branch.StatusFailed {
			return nil, arts, fmt.Errorf("writing the undo's key into %s: %v%s", id.FormField, err, r.Error)
		}
	} else if err := sess.InjectHeader(nil, id.Header, key); err != nil {
		return nil, arts, fmt.Errorf("carrying the undo's key in %s: %w", id.Header, err)
	}
	// The last moment to refuse, as for the commit: what was recorded up
	// to here must have been kept.
	if err := c.trailErr(kept); err != nil {
		return nil, arts, err
	}
	step := sess.Step() + 1
	sess.ReleaseWrites() // the one request that may change the site: the undo
	r, err := sess.Do(ctx, cp.Action, c.Spec.ResolveInput)
	sess.HoldWrites()
	if err != nil {
		return nil, arts, fmt.Errorf("the undo action: %w", err)
	}
	snap, ok := c.awaitUndo(ctx, sess, cp)
	if d, err := c.Store.Put(ctx, mustJSON(sess.NetSince(step))); err == nil {
		arts["compensation_transcript"] = string(d)
	}
	if snap.Obs.DOMArtifact != "" {
		arts["compensation_dom"] = snap.Obs.DOMArtifact
	}
	if snap.Obs.ScreenshotHash != "" {
		arts["compensation_screenshot"] = snap.Obs.ScreenshotHash
	}
	c.Events.Record(ctx, eventlog.KindCommitAction, e.BranchID, map[string]any{"action": cp.Action.Describe(), "status": r.Status, "code": r.Code, "compensation": true})
	if r.Status == branch.StatusFailed {
		return nil, arts, fmt.Errorf("the undo action failed: %s", r.Error)
	}
	if !ok {
		return nil, arts, fmt.Errorf("commit.compensate.confirm did not hold within %s at %s", time.Duration(cp.Timeout), snap.Obs.URL)
	}
	return mustJSON(map[string]any{"order_id": e.OrderID, "url": snap.Obs.URL, "key": key}), arts, nil
}

// awaitUndo watches the page until the undo's confirm predicate holds or
// its timeout passes, and returns whether it held with one stored
// observation of the page as it ended (its evidence).
func (c *Committer) awaitUndo(ctx context.Context, sess *browser.Session, cp *task.Compensate) (browser.Snapshot, bool) {
	deadline := time.Now().Add(time.Duration(cp.Timeout))
	probe := browser.ObserveSpec{Probes: scoring.Probes(cp.Confirm)}
	held := false
	for !held && ctx.Err() == nil {
		if snap, err := sess.Observe(ctx, probe); err == nil {
			held, _ = cp.Confirm.Eval(scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers})
		}
		if held || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	snap, _ := sess.Observe(context.WithoutCancel(ctx), browser.ObserveSpec{Store: true, Screenshot: true})
	return snap, held
}

// undoURL is commit.compensate.navigate with the order id in place,
// resolved against the start URL.
func undoURL(start, navigate, orderID string) (string, error) {
	u, err := url.Parse(strings.ReplaceAll(navigate, task.OrderIDPlaceholder, url.PathEscape(orderID)))
	if err != nil {
		return "", fmt.Errorf("commit.compensate.navigate: %w", err)
	}
	base, err := url.Parse(start)
	if err != nil {
		return "", fmt.Errorf("start_url: %w", err)
	}
	return base.ResolveReference(u).String(), nil
}

// postcheck evaluates the task's post-checks on the page after a confirmed
// commit and returns the names of those that do not hold (none when the
// task has none). Only a check that evaluated to false counts: a page
// that cannot be observed, or a check whose evaluation fails, cannot tell
// that the order is wrong, and undoing it is no answer to not knowing;
// the postcheck event names those.
func (c *Committer) postcheck(ctx context.Context, sess *browser.Session, e ledger.Entry, branchID string) []string {
	checks := c.Task.Commit.Postcheck
	if len(checks) == 0 {
		return nil
	}
	ev := pl.Postcheck{EntryID: e.ID, OrderID: e.OrderID}
	snap, err := sess.Observe(ctx, browser.ObserveSpec{Probes: scoring.Probes(checks...)})
	if err != nil {
		ev.Error = err.Error()
		c.Events.Record(ctx, eventlog.KindPostcheck, branchID, ev)
		return nil
	}
	facts := scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers}
	for i := range checks {
		p := &checks[i]
		switch ok, err := p.Eval(facts); {
		case err != nil:
			ev.Unknown = append(ev.Unknown, p.Name)
		case ok:
			ev.Held = append(ev.Held, p.Name)
		default:
			ev.Failed = append(ev.Failed, p.Name)
		}
	}
	c.Events.Record(ctx, eventlog.KindPostcheck, branchID, ev)
	return ev.Failed
}
