package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
)

// Compensation is the undo of a committed entry's side effect (cancelling
// the order the commit placed), run by the committer under its own
// idempotency key: the entry keeps its commit (OrderID, Confirmation,
// Artifacts) and records the undo beside it.
type Compensation struct {
	// Key is the undo's idempotency key, the same on every attempt.
	Key string `json:"key"`
	// RunID is the run that last began the undo.
	RunID string `json:"run_id"`
	// Reason says why it was undone: a post-check that failed after the
	// commit, or a person's request.
	Reason string `json:"reason"`
	// Attempts counts the undo's attempts (Compensate calls).
	Attempts int `json:"attempts"`
	// Confirmation is what the site showed for the undo (canonical JSON),
	// Artifacts its evidence (name -> digest), Error why it failed.
	Confirmation json.RawMessage   `json:"confirmation,omitempty"`
	Artifacts    map[string]string `json:"artifacts,omitempty"`
	Error        string            `json:"error,omitempty"`
	// Anchor is the event log's head when the undo settled.
	Anchor *Anchor `json:"anchor,omitempty"`
}

// Compensate begins, or tries again, the undo of the entry with key:
// committed, compensating or compensation_failed -> compensating, with
// comp's Key, RunID and Reason recorded and Attempts counted. The
// committer calls it, and waits for it to return, before it sends the
// undo. A second undo key for one entry is refused: every attempt sends
// the same key, so the site can tell a retry from a new undo.
//
// Errors: ErrInvalid for an empty key, run id or reason;
// ErrBadTransition from any other state (compensated is terminal);
// ErrNotFound.
func (l *Ledger) Compensate(ctx context.Context, key string, comp Compensation) (Entry, error) {
	if comp.Key == "" || comp.RunID == "" || comp.Reason == "" {
		return Entry{}, fmt.Errorf("%w: compensate %q: key, run id and reason are required", ErrInvalid, key)
	}
	if err := checkToken("compensation key", comp.Key); err != nil {
		return Entry{}, err
	}
	if err := checkToken("run_id", comp.RunID); err != nil {
		return Entry{}, err
	}
	if err := checkText("reason", comp.Reason); err != nil {
		return Entry{}, err
	}
	return l.update(ctx, key, OpCompensate, func(e *Entry) error {
		next := Compensation{Key: comp.Key, RunID: comp.RunID, Reason: comp.Reason, Attempts: 1}
		if prev := e.Compensation; prev != nil {
			if prev.Key != comp.Key {
				return fmt.Errorf("%w: compensate %q: the undo's key is %s, not %s", ErrInvalid, key, prev.Key, comp.Key)
			}
			next.Attempts = prev.Attempts + 1
		}
		e.Compensation = &next
		e.State = StateCompensating
		return nil
	})
}

// SettleCompensation records the undo's outcome: compensating ->
// compensated (ok) or compensation_failed, with the confirmation,
// artifacts, error and anchor of out (State and OrderID are ignored).
// Errors: ErrBadTransition unless the entry is compensating; ErrInvalid
// for malformed artifacts or an error on a confirmed undo; ErrNotFound.
func (l *Ledger) SettleCompensation(ctx context.Context, key string, ok bool, out Outcome) (Entry, error) {
	if ok && out.Error != "" {
		return Entry{}, fmt.Errorf("%w: settle %q: a confirmed undo carries no error", ErrInvalid, key)
	}
	out.State, out.OrderID = StateAborted, "" // normalize checks the rest
	out, err := out.normalize()
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: settle %q: %w", key, err)
	}
	return l.update(ctx, key, OpSettle, func(e *Entry) error {
		if e.Compensation == nil {
			return &TransitionError{Key: key, Op: OpSettle, From: e.State, To: StateCompensated}
		}
		c := *e.Compensation
		c.Confirmation, c.Error, c.Anchor = out.Confirmation, out.Error, out.Anchor
		c.Artifacts = maps.Clone(out.Artifacts)
		e.Compensation = &c
		e.State = StateCompensationFailed
		if ok {
			e.State = StateCompensated
		}
		return nil
	})
}

// compensationJSON returns the compensation column's text: the canonical
// JSON object, or "" for none.
func compensationJSON(c *Compensation) (string, error) { return objectColumn(c, "compensation") }

// parseCompensation reads the compensation column's text.
func parseCompensation(s string) (*Compensation, error) { return parseObjectColumn[Compensation](s) }
