package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"time"
	"unicode/utf8"
)

// Attempt increments the entry's Attempts and returns the updated entry. The
// committer calls it, and waits for it to return, before each attempt at the
// side effect, so the ledger never under-counts attempts. Only an entry in
// state intent can be attempted: others fail with ErrBadTransition (Reopen a
// failed or aborted entry first). ErrNotFound when the key is unknown.
func (l *Ledger) Attempt(ctx context.Context, key string) (Entry, error) {
	return l.update(ctx, key, OpAttempt, func(e *Entry) error {
		e.Attempts++
		return nil
	})
}

// Finalize records the outcome of an intent: intent -> committed, aborted or
// failed, with the order id, confirmation, artifacts, error and anchor of out
// (replacing any from an earlier, reopened round). committed is terminal and
// aborted/failed change again only through Reopen: Finalize on an entry not
// in state intent, or with out.State intent, fails with ErrBadTransition and
// writes nothing, even if the outcome is identical to the recorded one.
//
// Errors: ErrInvalid for an unknown state, a committed outcome without
// OrderID, or malformed artifacts; ErrInvalidJSON for a bad Confirmation;
// ErrNotFound; ErrBadTransition.
func (l *Ledger) Finalize(ctx context.Context, key string, out Outcome) (Entry, error) {
	out, err := out.normalize()
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: finalize %q: %w", key, err)
	}
	return l.update(ctx, key, OpFinalize, func(e *Entry) error {
		e.State = out.State
		e.OrderID = out.OrderID
		e.Confirmation = out.Confirmation
		e.Artifacts = out.Artifacts
		e.Error = out.Error
		e.Anchor = out.Anchor
		return nil
	})
}

// Reopen moves a failed or aborted entry back to intent so that a later run
// (runID) retries the same purchase with the same key. RunID becomes runID;
// OrderID, Confirmation, Artifacts, Error and Anchor are cleared (the history keeps
// them); Attempts keeps counting. A committed entry, or one already in
// intent, fails with ErrBadTransition. ErrInvalid for an empty runID,
// ErrNotFound for an unknown key.
func (l *Ledger) Reopen(ctx context.Context, key string, runID string) (Entry, error) {
	if runID == "" {
		return Entry{}, fmt.Errorf("%w: reopen %q: empty run id", ErrInvalid, key)
	}
	if err := checkToken("run_id", runID); err != nil {
		return Entry{}, err
	}
	return l.update(ctx, key, OpReopen, func(e *Entry) error {
		e.State = StateIntent
		e.RunID = runID
		e.OrderID = ""
		e.Confirmation = nil
		e.Artifacts = nil
		e.Error = ""
		e.Anchor = nil
		return nil
	})
}

// update applies change to the entry with key inside one write transaction,
// refuses the result unless op allows it, and records the transition.
func (l *Ledger) update(ctx context.Context, key string, op Op, change func(e *Entry) error) (Entry, error) {
	var out Entry
	err := l.write(ctx, func(tx *sql.Tx, now time.Time) error {
		e, err := getEntry(ctx, tx, entrySelect, "key", key)
		if err != nil {
			return err
		}
		from := e.State
		if err := change(&e); err != nil {
			return err
		}
		if !allowed(op, from, e.State) {
			return &TransitionError{Key: key, Op: op, From: from, To: e.State}
		}
		e.UpdatedAt = now
		args, err := e.args()
		if err != nil {
			return err
		}
		args = append(args[1:], args[0])
		if _, err := tx.ExecContext(ctx, updateEntry, args...); err != nil {
			return fmt.Errorf("ledger: %s %q: update: %w", op, key, err)
		}
		if err := appendTransition(ctx, tx, op, from, &e, now); err != nil {
			return err
		}
		out = e
		return nil
	})
	if err != nil {
		return Entry{}, err
	}
	return out, nil
}

// checkText accepts any valid UTF-8 (free text such as error messages).
func checkText(name, val string) error {
	if !utf8.ValidString(val) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalid, name)
	}
	return nil
}
