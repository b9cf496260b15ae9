package ledger

// State is the lifecycle state of a ledger entry.
//
//	(none) --Intent--> intent --Attempt--> intent
//	intent --Finalize--> committed | aborted | failed
//	aborted | failed --Reopen--> intent
//	committed | compensating | compensation_failed --Compensate--> compensating
//	compensating --Settle--> compensated | compensation_failed
//
// No operation sends a committed entry back: its side effect happened.
// It can only be undone by compensation (the site's own undo, under its
// own idempotency key), and compensated is terminal.
type State string

// The states of an entry.
const (
	// StateIntent: the intent is recorded; a side effect may be under way or
	// may have happened without its outcome being recorded (crash recovery
	// must probe the site before retrying with the same key).
	StateIntent State = "intent"
	// StateCommitted: the side effect happened and its confirmation (OrderID)
	// is recorded. Terminal.
	StateCommitted State = "committed"
	// StateAborted: the committer decided not to perform the side effect
	// (e.g. preconditions failed). Reopen allows a later run to retry.
	StateAborted State = "aborted"
	// StateFailed: the side effect was attempted and did not succeed.
	// Reopen allows a later run to retry with the same key.
	StateFailed State = "failed"
	// StateCompensating: the undo of a committed side effect is recorded
	// and may be under way (its own key is in Compensation). A crash
	// leaves it here; compensating again resends the same key.
	StateCompensating State = "compensating"
	// StateCompensated: the site confirmed the undo. Terminal.
	StateCompensated State = "compensated"
	// StateCompensationFailed: the undo was attempted and not confirmed;
	// the side effect stands. Compensate may try again, same key.
	StateCompensationFailed State = "compensation_failed"
)

// Valid reports whether s is one of the seven states.
func (s State) Valid() bool {
	switch s {
	case StateIntent, StateCommitted, StateAborted, StateFailed,
		StateCompensating, StateCompensated, StateCompensationFailed:
		return true
	}
	return false
}

// Committed reports whether the entry's side effect happened: committed,
// or in any state of its compensation (compensated means it was undone
// as well).
func (s State) Committed() bool {
	switch s {
	case StateCommitted, StateCompensating, StateCompensated, StateCompensationFailed:
		return true
	}
	return false
}

// Op names the operation that produced a transition.
type Op string

// The operations recorded in the transitions table.
const (
	OpIntent   Op = "intent"   // entry created; From is ""
	OpAttempt  Op = "attempt"  // Attempts incremented; intent -> intent
	OpFinalize Op = "finalize" // intent -> committed | aborted | failed
	OpReopen   Op = "reopen"   // aborted | failed -> intent
	// OpCompensate begins (or retries) the undo of a committed entry:
	// committed | compensating | compensation_failed -> compensating.
	OpCompensate Op = "compensate"
	// OpSettle records the undo's outcome: compensating -> compensated |
	// compensation_failed.
	OpSettle Op = "settle"
)

// allowed reports whether op may move an entry from one state to another.
func allowed(op Op, from, to State) bool {
	switch op {
	case OpIntent:
		return from == "" && to == StateIntent
	case OpAttempt:
		return from == StateIntent && to == StateIntent
	case OpFinalize:
		return from == StateIntent && (to == StateCommitted || to == StateAborted || to == StateFailed)
	case OpReopen:
		return (from == StateAborted || from == StateFailed) && to == StateIntent
	case OpCompensate:
		return (from == StateCommitted || from == StateCompensating || from == StateCompensationFailed) && to == StateCompensating
	case OpSettle:
		return from == StateCompensating && (to == StateCompensated || to == StateCompensationFailed)
	}
	return false
}
