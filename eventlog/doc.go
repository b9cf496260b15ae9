// Package eventlog is Multiverse's append-only, hash-chained record of
// everything that happens in a run: forks, actions, observations, budget
// debits, prunes, errors and the commit. The orchestrator is the single
// sequencer of a run and appends here; the CLI reads events back, verifies
// them and exports them into replay bundles as JSON Lines.
//
// # Invariants
//
//   - Per run, Seq is 1-based and dense: the n-th event appended to a run has
//     Seq n. Seq, PrevHash and Hash are assigned by [Log.Append] and
//     [Log.AppendBatch] inside one SQLite IMMEDIATE transaction that reads the
//     run's head, so appenders in many goroutines or in several processes
//     sharing the file never produce duplicate sequence numbers or a forked
//     chain. A (run_id, seq) primary key backs this up.
//   - Events are never updated or deleted by this package.
//   - Payloads are stored canonicalized (see below); a stored payload that is
//     not in canonical form is reported by verification.
//   - Times are stored in UTC with nanosecond precision as RFC 3339 text.
//
// # Hash chain (stable format, version 1)
//
// Each event commits to its predecessor:
//
//	Hash     = hex(sha256(PrevHash + "\n" + canonical))
//	PrevHash = Hash of the previous event of the same run, or, for Seq 1,
//	           Genesis(runID) = hex(sha256("multiverse/eventlog/v1\x00" + runID))
//
// where hex is lowercase and canonical is the JSON encoding of the event with
// Hash set to "", produced by encoding/json with HTML escaping disabled and no
// trailing newline:
//
//	{"run_id":…,"seq":…,"time":…,"virtual_time_ms":…,"kind":…,
//	 "branch_id":…,"trace_id":…,"span_id":…,"parent_span_id":…,
//	 "payload":…,"artifacts":[…],"prev_hash":…,"hash":""}
//
// In detail:
//   - Keys appear in exactly this order. branch_id, trace_id, span_id,
//     parent_span_id, payload and artifacts are omitted when empty (a nil and
//     an empty artifacts list both omit the key); every other key is always
//     present.
//   - time is the event time in UTC formatted with time.RFC3339Nano (trailing
//     zeros of the fraction dropped, "Z" suffix).
//   - payload is the canonical form of the caller's JSON: decoded with
//     numbers kept as their literal text and re-encoded with object keys
//     sorted by their UTF-8 bytes and no insignificant whitespace. A payload
//     that is empty, only whitespace or the literal null is absent.
//   - Strings use encoding/json escaping: quote, backslash and control
//     characters escaped, U+2028 and U+2029 written as \u2028 and \u2029,
//     invalid UTF-8 replaced by U+FFFD; '<', '>' and '&' are not escaped.
//
// One function computes this form for appending and for verifying, so the
// two cannot disagree; [EventHash] gives it to readers that hold only part
// of a chain (a bundle checks each of its events with it). The format is
// pinned by golden tests in testdata/.
//
// # What verification can and cannot detect
//
// [Log.Verify] and [VerifyChain] recompute the chain from the first event and
// stop at the first event that is wrong, returning a [*CorruptionError]: an
// edited field (hash mismatch), an edited or re-pointed prev_hash (broken
// link), a deleted or duplicated middle event or reordered events (sequence
// gap or broken link), a payload that is not in canonical form. Removing
// events from the end of a chain leaves a shorter chain that is still valid:
// the chain alone cannot detect it. [Log.Verify] cross-checks every column of
// the run summary the log keeps beside the events (head, first and last time,
// last kind), which catches accidental truncation but not someone who also
// rewrites the summary to match; to detect truncation for certain, compare
// [Log.Head] with a head recorded elsewhere: the commit ledger records it in
// every row it finalizes, and package audit checks it.
//
// # Storage
//
// [OpenReadOnly] opens an existing log for reading only (audits, listings):
// it never creates a schema and works on a read-only copy.
//
// [Open] uses SQLite through github.com/mattn/go-sqlite3 in WAL mode with
// synchronous=FULL (every committed append is durable) and a busy timeout.
// The schema version is kept in PRAGMA user_version; a file written by a
// newer schema is refused with a [*SchemaVersionError].
package eventlog
