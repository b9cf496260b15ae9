package payload

import "github.com/multiverse-orchestrator/multiverse/eventlog"

// CommitEnd is the payload of commit_end: how the commit of a run ended,
// and the ledger head it left. The audit checks the row it names and the
// head against the ledger.
type CommitEnd struct {
	// EntryID, State and OrderID name the ledger row the commit ended
	// on; empty when it reached no row (a dry run, a refusal).
	EntryID string `json:"entry_id,omitempty"`
	State   string `json:"state,omitempty"`
	OrderID string `json:"order_id,omitempty"`
	Key     string `json:"key,omitempty"`
	// Existing: the key was committed before (the order is that one);
	// Recovered: the confirm probe found the outcome of an earlier
	// attempt; DryRun: nothing was submitted.
	Existing  bool `json:"existing,omitempty"`
	Recovered bool `json:"recovered,omitempty"`
	DryRun    bool `json:"dry_run,omitempty"`
	// Error says why the commit did not commit (scrubbed).
	Error string `json:"error,omitempty"`
	// Skipped lists the candidates passed over; Changes the intent fields
	// that changed since exploration.
	Skipped []string `json:"skipped,omitempty"`
	Changes []string `json:"changes,omitempty"`
	// LedgerHeadSeq and LedgerHeadHash are the ledger's last transition
	// when the commit ended: the audit finds a ledger whose tail was cut
	// or rewritten by them.
	LedgerHeadSeq  int64  `json:"ledger_head_seq,omitempty"`
	LedgerHeadHash string `json:"ledger_head_hash,omitempty"`
}

// Kind implements Payload.
func (CommitEnd) Kind() string { return eventlog.KindCommitEnd }

// Ledger is the payload of ledger: a commit ledger row changed, or the
// committer found it as it was. Which flags are set says what happened.
type Ledger struct {
	Key     string `json:"key"`
	State   string `json:"state"`
	EntryID string `json:"entry_id,omitempty"`
	OrderID string `json:"order_id,omitempty"`
	// PayloadSHA256 and Version are the intent's digest and its
	// committer's version, when the row was written.
	PayloadSHA256 string `json:"payload_sha256,omitempty"`
	Version       string `json:"version,omitempty"`
	// Existing: the key was already committed; Retry: an earlier attempt
	// is retried (Attempts so far); RefusedEarlier: the site refused it
	// before; Reopened: a failed row is open again; Recovered: a pending
	// row of an earlier run was finalized; Probe: the confirm probe found
	// the outcome; Pending: the outcome is unknown (Error says why);
	// Conflict: the site answered the commit with this conflict status.
	Existing       bool   `json:"existing,omitempty"`
	Retry          bool   `json:"retry,omitempty"`
	Attempts       int    `json:"attempts,omitempty"`
	RefusedEarlier bool   `json:"refused_earlier,omitempty"`
	Reopened       bool   `json:"reopened,omitempty"`
	Recovered      bool   `json:"recovered,omitempty"`
	Probe          bool   `json:"probe,omitempty"`
	Pending        bool   `json:"pending,omitempty"`
	Conflict       int    `json:"conflict,omitempty"`
	Error          string `json:"error,omitempty"`
	// CompensationKey and Reason are the undo's key and why it runs, on
	// the rows of a compensation (states compensating, compensated,
	// compensation_failed).
	CompensationKey string `json:"compensation_key,omitempty"`
	Reason          string `json:"reason,omitempty"`
	// Form is what the committer read of the commit form, when it read
	// one: field names only, never values.
	Form *FormReport `json:"form,omitempty"`
}

// FormReport is the commit form as the ledger event tells it: the names
// of the fields its body holds, those left out of the idempotency payload
// and why, and how volatile fields were found.
type FormReport struct {
	Fields     []string      `json:"fields"`
	Dropped    []FormDropped `json:"dropped"`
	Volatility string        `json:"volatility,omitempty"`
}

// FormDropped is a form field left out of the payload: Reason is
// key_field, volatile, nonce_name or changes_per_load.
type FormDropped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Kind implements Payload.
func (Ledger) Kind() string { return eventlog.KindLedger }

// BeamWidth is the payload of beam_width: the beam narrowed or widened,
// with the two best scalarized scores that decided it.
type BeamWidth struct {
	From    int     `json:"from"`
	To      int     `json:"to"`
	BestJ   float64 `json:"best_j"`
	SecondJ float64 `json:"second_j"`
}

// Kind implements Payload.
func (BeamWidth) Kind() string { return eventlog.KindBeamWidth }

// Postcheck is the payload of postcheck: the commit's post-checks
// evaluated on the page after the confirmation. A failed one means the
// commit was wrong; the committer then compensates it. Unknown names the
// checks whose evaluation failed, Error why the page could not be
// observed: neither undoes anything.
type Postcheck struct {
	EntryID string   `json:"entry_id"`
	OrderID string   `json:"order_id"`
	Held    []string `json:"held,omitempty"`
	Failed  []string `json:"failed,omitempty"`
	Unknown []string `json:"unknown,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// Kind implements Payload.
func (Postcheck) Kind() string { return eventlog.KindPostcheck }
