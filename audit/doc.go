// Package audit cross-checks the commit ledger and the event log, which
// anchor each other, so that cutting or removing records from either one
// is detected and named even where each store on its own still verifies.
//
// # Anchors
//
//   - Ledger to events: each finalize transition of the ledger records an
//     [ledger.Anchor], the head (seq and hash) of the finalizing run's event
//     log at that moment. The event log must still hold an event at that
//     seq with that hash. A finalize without an anchor is itself a problem
//     (rows written before anchoring was introduced report it too).
//   - Events to ledger: every commit_end and ledger event names the ledger
//     row (entry_id) it concerns, and commit_end records the ledger's head
//     (ledger_head_seq, ledger_head_hash). The row must exist, the ledger
//     chain must still hold that transition with that hash, and a commit
//     the event log reports as committed must be committed in the ledger
//     with the same order id.
//
// Each store's own chain is verified by its package (ledger.Verify,
// eventlog.Log.Verify); [Check] assumes both were or will be verified.
//
// # Limits
//
// Events appended after a run's last anchor (the commit_end and run_end
// that follow the finalization) are covered only by the event log's own
// summary. A consistent rewrite of both stores together (the ledger's tail
// and the run's events from before its intent on) cannot be told from a
// genuine history by these two files alone.
package audit
