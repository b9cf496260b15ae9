package commit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// An attempt's outcome finalizes its ledger row only when it is known:
//
//   - committed: the site's confirmation was seen and its token read, or
//     the confirm probe found the commit under the key;
//   - aborted or failed: the site refused a guarded request (a 4xx answer,
//     409/412 being a conflict the next candidate may get past), or
//     nothing was ever sent under the key;
//   - anything else (a timeout, a page that never loaded, a token that
//     cannot be read, a 5xx, a session that died) leaves the row intent.
//     The probe is asked at once and again at every start; a key is only
//     sent again when the probe does not find it.

// probeEvery is the pause between two probes of an uncertain commit.
const probeEvery = time.Second

// uncertain handles an attempt whose outcome the committer did not see:
// it asks the site (the confirm probe) until commit.confirm.timeout and
// finalizes the row as committed when the site holds the commit under the
// key; otherwise the row stays intent and the error wraps ErrUncertain.
func (c *Committer) uncertain(ctx context.Context, res *Result, key string, arts map[string]string, cause error) (*Result, error) {
	br := res.Candidate.BranchID
	c.Events.Record(ctx, eventlog.KindCommitUncertain, br, map[string]any{"key": key, "reason": cause.Error()})
	if id, ok := c.probeUntil(ctx, key); ok {
		e, err := c.finalize(ctx, key, ledger.Outcome{State: ledger.StateCommitted, OrderID: id, Artifacts: arts,
			Confirmation: mustJSON(map[string]any{"order_id": id, "source": "probe", "unseen": cause.Error()})})
		if err != nil {
			return res, fmt.Errorf("commit: finalizing %s from the probe: %w", key, err)
		}
		c.Events.Record(ctx, eventlog.KindLedger, br, payload.Ledger{Key: key, State: string(e.State), OrderID: id, EntryID: e.ID, Probe: true}, artValues(arts)...)
		res.Entry, res.Recovered = e, true
		return res, nil
	}
	if e, err := c.Ledger.Get(ctx, key); err == nil {
		res.Entry = e
	}
	c.Events.Record(ctx, eventlog.KindLedger, br, payload.Ledger{Key: key, State: string(ledger.StateIntent), Pending: true, Error: cause.Error()}, artValues(arts)...)
	return res, fmt.Errorf("%w: %v; %s", ErrUncertain, cause, nextStart(c.Task.Commit.Confirm.Probe.URL != "", c.Task.Commit.Confirm.Timeout.D()))
}

// nextStart says what the next start does with a row left intent after
// an attempt: exactly what commitOne and Recover do with it.
func nextStart(hasProbe bool, timeout time.Duration) string {
	if !hasProbe {
		return "the task has no confirm probe (commit.confirm.probe), so the next start cannot ask the site: " +
			"it sends the commit again under the same key, and only the site's own handling of that key (commit.idempotency) keeps it from happening twice"
	}
	return fmt.Sprintf("the confirm probe did not find it within %s; the next start asks the probe first: "+
		"it records the commit if the site holds it, sends it again under the same key only if the probe answers that the site does not, "+
		"and sends nothing while the probe does not answer", timeout)
}

// probeUntil asks the confirm probe for key until it answers with a token
// or commit.confirm.timeout passes (a request still in flight at the site
// may land in between).
func (c *Committer) probeUntil(ctx context.Context, key string) (string, bool) {
	if c.Task.Commit.Confirm.Probe.URL == "" {
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, c.Task.Commit.Confirm.Timeout.D())
	defer cancel()
	for {
		// An unanswered probe is asked again like one that found nothing:
		// either way the row stays intent when time runs out.
		if id, ok, _ := Probe(ctx, c.HTTPClient, c.Task, key); ok {
			return id, true
		}
		select {
		case <-ctx.Done():
			return "", false
		case <-time.After(probeEvery):
		}
	}
}

// refused finalizes an attempt the site refused: a conflict (409, 412)
// is aborted and lets the next candidate try; any other refusal fails,
// and the key is never sent again (refusedEarlier). notice is the page's
// message when the page said refused too ("" otherwise).
func (c *Committer) refused(ctx context.Context, res *Result, key string, n branch.NetRecord, notice string, arts map[string]string) (*Result, error) {
	msg := fmt.Sprintf("the site answered %d to %s %s", n.Status, n.Method, n.URL)
	if n.Status == 409 || n.Status == 412 {
		// The version changed since preflight. Nothing was bought; the
		// next candidate may still hold.
		e, err := c.finalize(ctx, key, ledger.Outcome{State: ledger.StateAborted, Error: "conflict: " + msg, Artifacts: arts,
			Confirmation: mustJSON(ledger.Evidence{Refused: refusalOf(n, notice)})})
		if err != nil {
			return res, fmt.Errorf("commit: finalizing %s as aborted: %w", key, err)
		}
		c.Events.Record(ctx, eventlog.KindLedger, res.Candidate.BranchID, payload.Ledger{Key: key, State: string(e.State), EntryID: e.ID, Conflict: n.Status})
		res.Entry = e
		return res, &preflightError{fmt.Sprintf("the site refused the commit as a conflict (%d): it changed since preflight", n.Status)}
	}
	if notice != "" {
		msg = notice + " (" + msg + ")"
	}
	return c.finalizeNot(ctx, res, key, ledger.StateFailed, arts, ledger.Evidence{Refused: refusalOf(n, notice)}, refusedError(key, msg))
}

// pageRefused finalizes an attempt whose page said refused
// (commit.confirm.refused) with the page's message: failed, or aborted
// when the site also answered the request as a conflict. The key is never
// sent again (refusedEarlier).
func (c *Committer) pageRefused(ctx context.Context, res *Result, at attempt, guard []browser.GuardPattern, transcript []branch.NetRecord, notice string, arts map[string]string) (*Result, error) {
	if n, ok := refusal(guard, transcript); ok {
		return c.refused(ctx, res, at.key, n, notice, arts)
	}
	ref := &ledger.Refusal{Notice: notice}
	if n, ok := commitRequest(guard, transcript); ok {
		ref.Method, ref.URL, ref.Status = n.Method, n.URL, n.Status
	}
	return c.finalizeNot(ctx, res, at.key, ledger.StateFailed, arts, ledger.Evidence{Refused: ref}, refusedError(at.key, notice))
}

// refusedError is the error of a refused commit: what the site said, and
// what a later run does about it.
func refusedError(key, msg string) error {
	return fmt.Errorf("%w: %s; key %s is never sent again: to try again, change commit.nonce (a new key)", ErrRefused, msg, key)
}

// refusedEarlier reports whether a failed row records the site's refusal
// (by its answer or by its page): such a key is never sent again, and
// the message says what the site said.
func refusedEarlier(e ledger.Entry) (string, bool) {
	if e.State != ledger.StateFailed || len(e.Confirmation) == 0 {
		return "", false
	}
	var ev ledger.Evidence
	if json.Unmarshal(e.Confirmation, &ev) != nil || ev.Refused == nil {
		return "", false
	}
	r := ev.Refused
	msg := r.Notice
	if r.Method != "" {
		what := fmt.Sprintf("the site answered %d to %s %s", r.Status, r.Method, r.URL)
		if msg == "" {
			msg = what
		} else {
			msg += " (" + what + ")"
		}
	}
	if msg == "" {
		msg = e.Error
	}
	return msg, true
}

// notSent ends an attempt before its side effect. A row never attempted
// before is finalized with state (nothing was ever sent under its key);
// one that was keeps its intent, since an earlier attempt's outcome is
// still unknown.
func (c *Committer) notSent(ctx context.Context, res *Result, at attempt, state ledger.State, arts map[string]string, cause error) (*Result, error) {
	if at.before > 0 {
		c.Events.Record(ctx, eventlog.KindLedger, res.Candidate.BranchID, payload.Ledger{Key: at.key, State: string(ledger.StateIntent), Pending: true, Error: cause.Error()})
		return res, cause
	}
	return c.finalizeNot(ctx, res, at.key, state, arts, ledger.Evidence{NotSent: true}, cause)
}

// finalizeNot finalizes a row whose side effect is known not to have
// happened (aborted or failed), with the evidence of why, and returns
// cause.
func (c *Committer) finalizeNot(ctx context.Context, res *Result, key string, state ledger.State, arts map[string]string, ev ledger.Evidence, cause error) (*Result, error) {
	e, err := c.finalize(ctx, key, ledger.Outcome{State: state, Error: cause.Error(), Artifacts: arts, Confirmation: mustJSON(ev)})
	if err != nil {
		return res, fmt.Errorf("%w; commit: finalizing %s as %s: %w", cause, key, state, err)
	}
	c.Events.Record(ctx, eventlog.KindLedger, res.Candidate.BranchID, payload.Ledger{Key: key, State: string(e.State), Error: cause.Error(), EntryID: e.ID})
	res.Entry = e
	return res, cause
}

// refusal returns the guarded request the site refused (a 4xx answer),
// provided no guarded request of the transcript was accepted (2xx, 3xx).
func refusal(guard []browser.GuardPattern, transcript []branch.NetRecord) (branch.NetRecord, bool) {
	var refused *branch.NetRecord
	for i, n := range transcript {
		if !isGuarded(guard, n) {
			continue
		}
		switch {
		case n.Status >= 200 && n.Status < 400:
			return branch.NetRecord{}, false
		case n.Status >= 400 && n.Status < 500 && refused == nil:
			refused = &transcript[i]
		}
	}
	if refused == nil {
		return branch.NetRecord{}, false
	}
	return *refused, true
}

// answered describes the last error status a request of the transcript
// got, for messages: " (the site answered 503 to POST /orders)".
func answered(transcript []branch.NetRecord) string {
	s := ""
	for _, n := range transcript {
		if n.Status >= 400 {
			s = fmt.Sprintf(" (the site answered %d to %s %s)", n.Status, n.Method, n.URL)
		}
	}
	return s
}

// neverSent reports whether a failed commit action provably sent nothing:
// the browser refused to act on its target (missing, hidden, disabled,
// an input it could not type) and no guarded request left the page.
func neverSent(r branch.StepResult, guard []browser.GuardPattern, transcript []branch.NetRecord) bool {
	if r.Status != branch.StatusFailed {
		return false
	}
	switch r.Code {
	case branch.CodeSelectorNotFound, branch.CodeElementHidden, branch.CodeElementDisabled,
		branch.CodeInputMissing, branch.CodeRedactedValue, branch.CodeUnsupported:
	default:
		return false
	}
	for _, n := range transcript {
		if isGuarded(guard, n) {
			return false
		}
	}
	return true
}
