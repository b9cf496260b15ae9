package commit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/worker"
)

// Errors callers branch on.
var (
	// ErrNoCandidate: no candidate held its boundary and preconditions.
	ErrNoCandidate = errors.New("commit: no candidate holds at commit time")
	// ErrSubmitFailed: the commit action ran but the site did not confirm.
	ErrSubmitFailed = errors.New("commit: the site did not confirm the commit")
)

// Recorder receives the committer's events (commit_start, ledger,
// commit_end, error) for the event log.
type Recorder interface {
	Record(ctx context.Context, kind, branchID string, payload any, artifacts ...string)
}

// Candidate is a branch the committer may commit.
type Candidate struct {
	BranchID   string
	PlanDigest string
	Plan       branch.Plan
}

// Committer performs commits for one run.
type Committer struct {
	Task    *task.Task
	RunID   string
	Spec    *worker.Spec
	Ledger  *ledger.Ledger
	Store   *artifacts.FS
	Runtime *browser.Runtime
	Events  Recorder
}

// Result is the outcome of Commit.
type Result struct {
	Entry ledger.Entry
	// Existing is set when the ledger already held a committed row for the
	// key: nothing was sent to the site.
	Existing bool
	// Recovered is set when an intent left by an earlier crash was
	// resolved by probing the site.
	Recovered bool
	Candidate Candidate
	// Skipped lists candidates that did not hold, with the reason.
	Skipped []string
}

// Commit tries the candidates in order and commits the first that holds.
func (c *Committer) Commit(ctx context.Context, cands []Candidate) (*Result, error) {
	var skipped []string
	for _, cand := range cands {
		res, err := c.commitOne(ctx, cand)
		if err == nil {
			res.Skipped = skipped
			return res, nil
		}
		var pf *preflightError
		if !errors.As(err, &pf) {
			return &Result{Candidate: cand, Skipped: skipped}, err
		}
		skipped = append(skipped, cand.BranchID+": "+pf.Error())
		c.Events.Record(ctx, "commit_skip", cand.BranchID, map[string]any{"reason": pf.Error()})
	}
	return &Result{Skipped: skipped}, fmt.Errorf("%w: %s", ErrNoCandidate, strings.Join(skipped, "; "))
}

type preflightError struct{ msg string }

func (e *preflightError) Error() string { return e.msg }

func (c *Committer) commitOne(ctx context.Context, cand Candidate) (*Result, error) {
	t := c.Task
	so, err := worker.SessionOptions(c.Spec, c.Store)
	if err != nil {
		return nil, err
	}
	so.Guard = nil // the committer is the one allowed to send them
	sess, err := c.Runtime.NewSession(ctx, so)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	c.Events.Record(ctx, "commit_start", cand.BranchID, map[string]any{"plan_digest": cand.PlanDigest, "steps": len(cand.Plan), "phase": "preflight"})
	resolve := worker.Resolver(c.Spec.Inputs)
	for i, a := range cand.Plan {
		r, err := sess.Do(ctx, a, resolve)
		if err != nil {
			return nil, err
		}
		if r.Status == browser.StatusFailed {
			return nil, &preflightError{fmt.Sprintf("re-materializing step %d (%s) failed: %s", i+1, a.Describe(), r.Error)}
		}
	}
	checks := append([]scoring.Predicate{t.Commit.Boundary}, t.Commit.Preconditions...)
	snap, err := sess.Observe(ctx, browser.ObserveSpec{Probes: scoring.Probes(checks...), Store: true})
	if err != nil {
		return nil, &preflightError{"observing the boundary: " + err.Error()}
	}
	facts := scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers}
	if ok, _ := t.Commit.Boundary.Eval(facts); !ok {
		return nil, &preflightError{"the commit boundary no longer holds at " + snap.Obs.URL}
	}
	var failed []string
	for i := range t.Commit.Preconditions {
		p := &t.Commit.Preconditions[i]
		if ok, err := p.Eval(facts); !ok {
			msg := p.Name
			if err != nil {
				msg += " (" + err.Error() + ")"
			}
			failed = append(failed, msg)
		}
	}
	payload, err := c.intent(ctx, sess)
	if err != nil {
		return nil, &preflightError{err.Error()}
	}
	if len(failed) > 0 {
		c.Events.Record(ctx, "precondition_failed", cand.BranchID, map[string]any{"failed": failed, "intent": json.RawMessage(payload)})
		return nil, &preflightError{"preconditions failed: " + strings.Join(failed, ", ")}
	}
	key, err := ledger.IdempotencyKey(t.Commit.Site, t.Commit.Flow, payload)
	if err != nil {
		return nil, fmt.Errorf("commit: idempotency key: %w", err)
	}
	unlock, err := c.Ledger.Lock(ctx)
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	defer unlock()
	entry, created, err := c.Ledger.Intent(ctx, ledger.Intent{Key: key, RunID: c.RunID, BranchID: cand.BranchID,
		PlanDigest: cand.PlanDigest, Site: t.Commit.Site, Flow: t.Commit.Flow, Payload: payload})
	if err != nil {
		return nil, fmt.Errorf("commit: recording the intent: %w", err)
	}
	res := &Result{Candidate: cand}
	if !created {
		switch entry.State {
		case ledger.StateCommitted:
			c.Events.Record(ctx, "ledger", cand.BranchID, map[string]any{"key": key, "state": entry.State, "existing": true, "order_id": entry.OrderID, "entry_id": entry.ID})
			res.Entry, res.Existing = entry, true
			return res, nil
		case ledger.StateIntent:
			// A crash left this intent: the site may or may not have the
			// order. Ask it before sending anything.
			if id, ok := c.probe(ctx, sess, key); ok {
				e, err := c.Ledger.Finalize(ctx, key, ledger.Outcome{State: ledger.StateCommitted, OrderID: id,
					Confirmation: mustJSON(map[string]any{"order_id": id, "source": "probe"})})
				if err != nil {
					return nil, fmt.Errorf("commit: finalizing a recovered intent: %w", err)
				}
				c.Events.Record(ctx, "ledger", cand.BranchID, map[string]any{"key": key, "state": e.State, "recovered": true, "order_id": id, "entry_id": e.ID})
				res.Entry, res.Recovered = e, true
				return res, nil
			}
		default:
			if entry, err = c.Ledger.Reopen(ctx, key, c.RunID); err != nil {
				return nil, fmt.Errorf("commit: reopening %s: %w", key, err)
			}
		}
	}
	c.Events.Record(ctx, "ledger", cand.BranchID, map[string]any{"key": key, "state": entry.State, "entry_id": entry.ID, "payload_sha256": entry.PayloadSHA256})
	return c.submit(ctx, sess, cand, key, snap, res)
}

// intent reads the business intent from the boundary page as canonical
// JSON (field names sorted), plus the task's nonce.
func (c *Committer) intent(ctx context.Context, sess *browser.Session) (json.RawMessage, error) {
	m := map[string]string{}
	for _, f := range c.Task.Commit.Intent {
		v, ok, err := sess.Read(ctx, f.Selector, f.Attr)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("intent field %s: no element matches %s", f.Name, f.Selector)
		}
		m[f.Name] = v
	}
	if c.Task.Commit.Nonce != "" {
		m["nonce"] = c.Task.Commit.Nonce
	}
	b, err := json.Marshal(m) // sorted keys
	if err != nil {
		return nil, err
	}
	return ledger.Canonical(b)
}

func (c *Committer) submit(ctx context.Context, sess *browser.Session, cand Candidate, key string, pre browser.Snapshot, res *Result) (*Result, error) {
	t := c.Task
	arts := map[string]string{}
	if pre.Obs.DOMArtifact != "" {
		arts["pre_submit_dom"] = pre.Obs.DOMArtifact
	}
	if id := t.Commit.Idempotency; id.FormField != "" {
		if err := sess.SetValue(ctx, id.FormField, key); err != nil {
			return c.fail(ctx, cand, key, arts, fmt.Errorf("commit: writing the key into %s: %w", id.FormField, err))
		}
	} else {
		var pats []browser.GuardPattern
		so, _ := worker.SessionOptions(c.Spec, c.Store)
		pats = so.Guard
		if err := sess.InjectHeader(pats, id.Header, key); err != nil {
			return c.fail(ctx, cand, key, arts, fmt.Errorf("commit: carrying the key in %s: %w", id.Header, err))
		}
	}
	if _, err := c.Ledger.Attempt(ctx, key); err != nil {
		return nil, fmt.Errorf("commit: recording the attempt: %w", err)
	}
	step := sess.Step() + 1
	r, err := sess.Do(ctx, t.Commit.Action, worker.Resolver(c.Spec.Inputs))
	if err != nil {
		return nil, err // the intent stays: recovery resolves it
	}
	transcript := sess.NetSince(step)
	if d, err := c.Store.Put(ctx, mustJSON(transcript)); err == nil {
		arts["submit_transcript"] = string(d)
	}
	c.Events.Record(ctx, "commit_action", cand.BranchID, map[string]any{"action": t.Commit.Action.Describe(), "status": r.Status, "code": r.Code, "requests": len(transcript)})
	if r.Status == browser.StatusFailed {
		return c.fail(ctx, cand, key, arts, fmt.Errorf("%w: the commit action failed: %s", ErrSubmitFailed, r.Error))
	}
	confirm := []scoring.Predicate{t.Commit.Confirm.Success}
	snap, err := sess.Observe(ctx, browser.ObserveSpec{Probes: scoring.Probes(confirm...), Store: true, Screenshot: true})
	if err != nil {
		return c.fail(ctx, cand, key, arts, fmt.Errorf("%w: observing the confirmation: %v", ErrSubmitFailed, err))
	}
	facts := scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers}
	if snap.Obs.ScreenshotHash != "" {
		arts["confirmation_screenshot"] = snap.Obs.ScreenshotHash
	}
	if snap.Obs.DOMArtifact != "" {
		arts["confirmation_dom"] = snap.Obs.DOMArtifact
	}
	if ok, _ := t.Commit.Confirm.Success.Eval(facts); !ok {
		status := ""
		for _, n := range transcript {
			if n.Status >= 400 {
				status = fmt.Sprintf(" (the site answered %d to %s %s)", n.Status, n.Method, n.URL)
			}
		}
		return c.fail(ctx, cand, key, arts, fmt.Errorf("%w: no confirmation at %s%s", ErrSubmitFailed, snap.Obs.URL, status))
	}
	token, ok, err := sess.Read(ctx, t.Commit.Confirm.Token.Selector, t.Commit.Confirm.Token.Attr)
	if err != nil || !ok || token == "" {
		return c.fail(ctx, cand, key, arts, fmt.Errorf("%w: the confirmation token %s is missing", ErrSubmitFailed, t.Commit.Confirm.Token.Selector))
	}
	conf := map[string]any{"order_id": token, "url": snap.Obs.URL}
	if inv := t.Commit.Confirm.Invoice; inv.Link != "" || inv.Selector != "" {
		if href, err := sess.Href(ctx, inv.Link, inv.Selector); err == nil {
			if status, body, err := sess.Fetch(ctx, href); err == nil && status == 200 {
				if d, err := c.Store.Put(ctx, body); err == nil {
					arts["invoice"] = string(d)
					conf["invoice_bytes"] = len(body)
				}
			}
		}
		if arts["invoice"] == "" {
			c.Events.Record(ctx, "error", cand.BranchID, map[string]any{"where": "commit", "error": "the invoice could not be downloaded"})
		}
	}
	e, err := c.Ledger.Finalize(ctx, key, ledger.Outcome{State: ledger.StateCommitted, OrderID: token, Confirmation: mustJSON(conf), Artifacts: arts})
	if err != nil {
		return nil, fmt.Errorf("commit: finalizing %s: %w", key, err)
	}
	c.Events.Record(ctx, "ledger", cand.BranchID, map[string]any{"key": key, "state": e.State, "order_id": token, "entry_id": e.ID}, artValues(arts)...)
	res.Entry = e
	return res, nil
}

func (c *Committer) fail(ctx context.Context, cand Candidate, key string, arts map[string]string, cause error) (*Result, error) {
	e, err := c.Ledger.Finalize(ctx, key, ledger.Outcome{State: ledger.StateFailed, Error: cause.Error(), Artifacts: arts})
	if err != nil {
		return nil, errors.Join(cause, fmt.Errorf("commit: finalizing %s as failed: %w", key, err))
	}
	c.Events.Record(ctx, "ledger", cand.BranchID, map[string]any{"key": key, "state": e.State, "error": cause.Error(), "entry_id": e.ID})
	return &Result{Entry: e, Candidate: cand}, cause
}

// probe asks the site whether it already holds a commit with the key.
func (c *Committer) probe(ctx context.Context, sess *browser.Session, key string) (string, bool) {
	p := c.Task.Commit.Confirm.Probe
	if p.URL == "" {
		return "", false
	}
	u := strings.ReplaceAll(p.URL, "{key}", url.QueryEscape(key))
	status, body, err := sess.Fetch(ctx, u)
	if err != nil || status != 200 {
		return "", false
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return "", false
	}
	for _, part := range strings.Split(p.JSON, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	s, ok := v.(string)
	return s, ok && s != ""
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

func artValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
