package ledger

// State is the lifecycle state of a ledger entry.
//
//	(none) --Intent--> intent --Attempt--> intent
//	intent --Finalize--> committed | aborted | failed
//	aborted | failed --Reopen--> intent
//
// committed is terminal: no operation changes a committed entry again.
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
)

// Valid reports whether s is one of the four states.
func (s State) Valid() bool {
	switch s {
	case StateIntent, StateCommitted, StateAborted, StateFailed:
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
	}
	return false
}
