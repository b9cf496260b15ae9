package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Intent is a write intent: what the committer is about to do, recorded
// before it does it.
type Intent struct {
	Key        string          // idempotency key, normally IdempotencyKey(Site, Flow, Payload); required
	RunID      string          // required
	BranchID   string          // the winning branch; optional
	PlanDigest string          // its plan digest; optional
	Site       string          // required
	Flow       string          // required
	Payload    json.RawMessage // the business intent, a JSON object; required
}

func (in *Intent) validate() error {
	for _, f := range []struct{ name, val string }{
		{"key", in.Key}, {"run_id", in.RunID}, {"site", in.Site}, {"flow", in.Flow},
	} {
		if f.val == "" {
			return fmt.Errorf("%w: intent %s is empty", ErrInvalid, f.name)
		}
	}
	for _, f := range []struct{ name, val string }{
		{"key", in.Key}, {"run_id", in.RunID}, {"branch_id", in.BranchID},
		{"plan_digest", in.PlanDigest}, {"site", in.Site}, {"flow", in.Flow},
	} {
		if err := checkToken(f.name, f.val); err != nil {
			return err
		}
	}
	return nil
}

// checkToken accepts valid UTF-8 without control characters: identifiers
// that appear in CSV exports, logs and error messages.
func checkToken(name, val string) error {
	if !utf8.ValidString(val) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalid, name)
	}
	if strings.IndexFunc(val, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return fmt.Errorf("%w: %s %q contains a control character", ErrInvalid, name, val)
	}
	return nil
}

// Intent records a write intent and returns it durably committed to disk
// (the transaction is BEGIN IMMEDIATE, synchronous=FULL) before returning, so
// the caller may perform the side effect once Intent returns nil.
//
// The payload is canonicalized (see Canonical) and PayloadSHA256 is computed
// over the canonical bytes. If the key is already recorded, Intent writes
// nothing and returns the existing entry with created=false, whatever its
// state: the caller must look at State (committed means the purchase is
// done; intent means a previous attempt's outcome is unknown; failed or
// aborted means Reopen before retrying). If the existing entry's
// PayloadSHA256 differs, Intent returns a *PayloadMismatchError
// (ErrPayloadMismatch) naming both payloads instead.
// Concurrent Intents for one key, from goroutines, handles or processes,
// create exactly one entry.
//
// Errors: ErrInvalid or ErrInvalidJSON for a malformed Intent (nothing is
// written), ErrPayloadMismatch, or a wrapped SQLite error.
func (l *Ledger) Intent(ctx context.Context, in Intent) (e Entry, created bool, err error) {
	if err := in.validate(); err != nil {
		return Entry{}, false, err
	}
	payload, sha, err := Digest(in.Payload)
	if err != nil {
		return Entry{}, false, fmt.Errorf("ledger: intent %q: payload: %w", in.Key, err)
	}
	if payload[0] != '{' {
		return Entry{}, false, fmt.Errorf("%w: intent %q: payload must be a JSON object", ErrInvalid, in.Key)
	}
	// Fast path: entries are never deleted, so a committed row read outside
	// the write lock is still there.
	if existing, err := getEntry(ctx, l.db, l.sel, "key", in.Key); err == nil {
		return existingIntent(existing, payload, sha)
	} else if !errors.Is(err, ErrNotFound) {
		return Entry{}, false, err
	}
	err = l.write(ctx, func(tx *sql.Tx, now time.Time) error {
		existing, err := getEntry(ctx, tx, entrySelect, "key", in.Key)
		if err == nil {
			e = existing
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		id, err := l.newID(now)
		if err != nil {
			return err
		}
		e = Entry{
			ID: id, Key: in.Key, RunID: in.RunID, BranchID: in.BranchID,
			PlanDigest: in.PlanDigest, Site: in.Site, Flow: in.Flow,
			Payload: payload, PayloadSHA256: sha, State: StateIntent,
			CreatedAt: now, UpdatedAt: now,
		}
		args, err := e.args()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, insertEntry, args...); err != nil {
			return fmt.Errorf("ledger: intent %q: insert: %w", in.Key, err)
		}
		if err := appendTransition(ctx, tx, OpIntent, "", &e, now); err != nil {
			return err
		}
		created = true
		return nil
	})
	if err != nil {
		return Entry{}, false, err
	}
	if !created {
		return existingIntent(e, payload, sha)
	}
	return e, true, nil
}

func existingIntent(e Entry, payload []byte, sha string) (Entry, bool, error) {
	if e.PayloadSHA256 != sha {
		return Entry{}, false, &PayloadMismatchError{Key: e.Key, Recorded: e.Payload, RecordedSHA256: e.PayloadSHA256,
			Given: json.RawMessage(payload), GivenSHA256: sha}
	}
	return e, false, nil
}

var insertEntry = "INSERT INTO entries (" + strings.Join(entryColumns[:], ", ") +
	") VALUES (?" + strings.Repeat(", ?", len(entryColumns)-1) + ")"

var updateEntry = "UPDATE entries SET " + strings.Join(entryColumns[1:], " = ?, ") + " = ? WHERE id = ?"
