// Package ledger is the commit ledger of Multiverse: the durable record a
// procurement user audits to prove that a purchase happened exactly once.
//
// The committer records a write intent with Intent before it performs any
// side effect on the outside world, calls Attempt before each try, and
// records the outcome with Finalize. A later run may Reopen a failed or
// aborted entry to retry the same purchase under the same key. Everything
// lives in one SQLite file, normally ledger.db in the data dir.
//
// # Invariants
//
//   - One entry per idempotency key ("commit:<site>:<flow>:<payload_sha256>",
//     see IdempotencyKey). Concurrent Intents for one key, from goroutines,
//     *Ledger handles or processes, create exactly one entry; the others get
//     it back with created=false. A key reused with another payload is
//     refused with ErrPayloadMismatch.
//   - Intent returns only after the entry is committed to disk (BEGIN
//     IMMEDIATE, WAL, synchronous=FULL), so a crash after Intent returns
//     always leaves the entry in Pending.
//   - States move intent -> committed | aborted | failed (Finalize),
//     aborted | failed -> intent (Reopen), intent -> intent (Attempt).
//     A committed entry never goes back: its side effect can only be
//     undone by compensation, committed | compensating |
//     compensation_failed -> compensating (Compensate, under the undo's
//     own key, the same on every attempt) and compensating -> compensated
//     | compensation_failed (SettleCompensation). compensated is
//     terminal; anything else is ErrBadTransition and writes nothing. A
//     committed entry, and every entry in a compensation state, has an
//     OrderID; the latter also its Compensation.
//   - Entries are never deleted.
//   - Every state change writes the entries row and appends one row to the
//     transitions table in the same transaction. Transitions form one hash
//     chain across the whole ledger, and the last transition of each entry
//     holds a full snapshot of its row, so the row can be re-derived from
//     the chain and Verify detects edits, deletions and gaps offline.
//   - Lock provides an advisory, exclusive, non-blocking single-writer lock
//     (flock on "<path>.lock") for the committer; the kernel drops it when
//     the holder exits, however it exits.
//
// # Storage format (schema version 3)
//
// The file is SQLite in WAL mode; PRAGMA user_version holds the schema
// version, and Open refuses a file with a newer one (ErrSchemaVersion) and
// migrates a version 1 file (which lacks the anchor column) and a version
// 2 file (which lacks the compensation column and states; its entries
// table is rebuilt with the rows unchanged). OpenReadOnly
// opens an existing file for reading only, never creating or migrating a
// schema: audits and listings use it, also on a read-only copy.
// Times are text, UTC, fixed width: "2006-01-02T15:04:05.000000000Z".
//
// Table entries has one row per key with the columns id (ULID), key, run_id,
// branch_id, plan_digest, site, flow, payload (canonical JSON), payload_sha256
// (lowercase hex sha256 of payload), state, attempts, order_id, confirmation
// (canonical JSON or NULL), artifacts (canonical JSON object name -> digest,
// "{}" when empty), error, created_at, updated_at, anchor (the canonical
// JSON object {"hash","run_id","seq"} of the event log's head recorded at
// Finalize, "" when none; see Anchor), compensation (the canonical JSON
// object of the entry's Compensation, "" when none).
//
// Table transitions has one row per state change: seq (1, 2, 3... without
// gaps), entry_id, key, op (intent, attempt, finalize, reopen), from_state
// ("" on creation), to_state, at, data, prev_hash, hash; op is also
// compensate or settle. data is the
// canonical JSON snapshot of the entry after the change: an object whose
// members are exactly the entries columns (same names), with payload and
// confirmation embedded as JSON values (confirmation null when absent),
// artifacts as an object ({} when empty), attempts as a number, and anchor
// as an object, omitted when the entry has none (so version 1 snapshots
// read unchanged), and compensation likewise (so version 1 and 2
// snapshots read unchanged).
//
// The hash of a transition is
//
//	hash = hex(sha256(prev_hash + "\n" + canonical JSON of the transition without hash))
//
// where the canonical JSON is the object with members at, data, entry_id,
// from, key, op, prev_hash, seq, to (in that order, as Canonical sorts them;
// from and to carry from_state and to_state, seq is a number, data the
// snapshot object). prev_hash is the hash of transition seq-1, and for seq 1
// it is GenesisHash = hex(sha256("multiverse/ledger/v1")).
//
// Canonical JSON (Canonical) has no insignificant whitespace, object members
// sorted by the UTF-8 bytes of their keys, numbers exactly as written,
// strings escaping only '"', '\\' and control characters, and no duplicate
// keys.
//
// # Audit limits
//
// The chain detects any edit, insertion or deletion of a transition, and
// any row that differs from its last snapshot. A rewrite of the whole tail
// of the chain with rows to match cannot be told from a genuine history by
// the file alone: record Head elsewhere (the event log) to anchor it. In
// the other direction, each finalized entry records its Anchor, the head of
// the finalizing run's event log, which a cross-check (package audit) finds
// in the event log with the same hash.
package ledger
