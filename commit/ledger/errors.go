package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors. Callers branch on them with errors.Is; the errors actually
// returned wrap them with the key, path or field concerned.
var (
	// ErrPayloadMismatch is returned by Intent when the idempotency key is
	// already recorded with a payload whose canonical sha256 differs. The
	// error is a *PayloadMismatchError.
	ErrPayloadMismatch = errors.New("ledger: idempotency key reused with a different payload")
	// ErrNotFound is returned when no entry has the requested key or id.
	ErrNotFound = errors.New("ledger: entry not found")
	// ErrBadTransition is returned when a state change is not allowed from
	// the entry's current state. The error is a *TransitionError.
	ErrBadTransition = errors.New("ledger: bad state transition")
	// ErrLocked is returned by Lock while another holder (this or another
	// process) holds the writer lock. The error is a *LockError.
	ErrLocked = errors.New("ledger: locked by another holder")
	// ErrSchemaVersion is returned by Open when the file carries a schema
	// version this build does not know (written by a newer Multiverse).
	ErrSchemaVersion = errors.New("ledger: unsupported schema version")
	// ErrInvalid is returned for malformed arguments: an Intent, Outcome or
	// Filter that breaks its documented contract. Nothing is written.
	ErrInvalid = errors.New("ledger: invalid argument")
	// ErrInvalidJSON is returned by Canonical (and so by Intent and Finalize)
	// for a payload that is not exactly one JSON value, has duplicate object
	// keys or nests deeper than MaxDepth.
	ErrInvalidJSON = errors.New("ledger: invalid JSON")
	// ErrNotLedger is returned by OpenReadOnly for a file that exists but
	// holds no ledger: empty (0 bytes), not an SQLite database, or without
	// the ledger's schema. For a file a run wrote, it was truncated or
	// replaced.
	ErrNotLedger = errors.New("ledger: not a commit ledger")
	// ErrReadOnly is returned by the writing methods of a Ledger opened
	// with OpenReadOnly.
	ErrReadOnly = errors.New("ledger: opened read-only")
	// ErrVerify is matched by every *VerifyError returned from Verify.
	ErrVerify = errors.New("ledger: verification failed")
)

// PayloadMismatchError reports that Intent found the key recorded with
// another payload: the intent kept beside the key differs from the one
// being recorded. It carries both payloads as the ledger has them; they
// may hold business values, so a caller that shows them scrubs them
// first. It matches ErrPayloadMismatch.
type PayloadMismatchError struct {
	Key            string
	Recorded       json.RawMessage // the payload the ledger holds under Key
	RecordedSHA256 string
	Given          json.RawMessage // the payload of the refused Intent (canonical)
	GivenSHA256    string
}

// Error names the key and both payloads' sha256, never their content.
func (e *PayloadMismatchError) Error() string {
	return fmt.Sprintf("ledger: idempotency key reused with a different payload: key %q is recorded with payload sha256 %s, intent has %s",
		e.Key, e.RecordedSHA256, e.GivenSHA256)
}

// Is reports whether target is ErrPayloadMismatch.
func (e *PayloadMismatchError) Is(target error) bool { return target == ErrPayloadMismatch }

// TransitionError reports a state change that the state machine forbids.
// It matches ErrBadTransition.
type TransitionError struct {
	Key  string // idempotency key of the entry
	Op   Op     // the operation attempted
	From State  // the entry's current state
	To   State  // the state the operation would have produced
}

// Error names the key, the operation and the refused move.
func (e *TransitionError) Error() string {
	return fmt.Sprintf("ledger: bad state transition: key %q: %s from %q to %q", e.Key, e.Op, e.From, e.To)
}

// Is reports whether target is ErrBadTransition.
func (e *TransitionError) Is(target error) bool { return target == ErrBadTransition }

// LockError reports that the writer lock is held by someone else. PID is the
// holder's process id as recorded in the lock file, or 0 when the holder has
// not written it yet. It matches ErrLocked.
type LockError struct {
	Path string // the lock file, "<ledger path>.lock"
	PID  int
}

// Error names the lock file and the holder's pid.
func (e *LockError) Error() string {
	holder := "unknown pid"
	if e.PID > 0 {
		holder = "pid " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("ledger: locked by another holder: %s held by %s", e.Path, holder)
}

// Is reports whether target is ErrLocked.
func (e *LockError) Is(target error) bool { return target == ErrLocked }

// VerifyError is one problem found by Verify. It names the table and row
// (Seq for transitions; ID and Key for entries), the field that is wrong, and
// what was expected versus found. Err carries the error returned by the
// caller's check function, if that is the source. It matches ErrVerify.
type VerifyError struct {
	Table string // "transitions" or "entries"
	Seq   int64  // transitions: the sequence number of the broken link
	ID    string // entries: the entry id
	Key   string // entries (and transitions when known): the idempotency key
	Field string // column or snapshot field, e.g. "order_id", "prev_hash"; "check" for the caller's check
	Want  string
	Got   string
	Err   error // the caller's check error, when Field is "check"
}

// Error names the row, the field and what was wanted versus found.
func (e *VerifyError) Error() string {
	var row string
	switch {
	case e.Table == "transitions":
		row = fmt.Sprintf("transitions seq %d", e.Seq)
	default:
		row = fmt.Sprintf("%s id %s key %q", e.Table, e.ID, e.Key)
	}
	if e.Err != nil {
		return fmt.Sprintf("ledger: verify: %s: %s: %v", row, e.Field, e.Err)
	}
	return fmt.Sprintf("ledger: verify: %s: %s: want %q, got %q", row, e.Field, e.Want, e.Got)
}

// Is reports whether target is ErrVerify.
func (e *VerifyError) Is(target error) bool { return target == ErrVerify }

// Unwrap returns the caller's check error, if any.
func (e *VerifyError) Unwrap() error { return e.Err }
