// Package commit is the single writer of Multiverse: the only component
// allowed to cause the side effect a task exists for (placing an order).
//
// Protocol, per candidate branch, best first:
//
//  1. Preflight: re-materialize the branch in a fresh session (no guards)
//     and re-check that the commit boundary and the task's preconditions
//     hold. A candidate that no longer holds is skipped and the next one is
//     tried.
//  2. Read the business intent from the boundary page as it will be
//     submitted (browser.Session.ReadLive) and, unless commit.form_body is
//     false, the commit form's canonical body (less the key field, fields
//     that change on every load, nonce-named hidden fields and
//     commit.volatile; personal and secret values as hashes); its
//     canonical sha256 makes the idempotency key
//     commit:<site>:<flow>:<sha256>. The key does not depend on the path,
//     so two paths to the same purchase are the same commit.
//  3. Take the ledger's single-writer lock and write the intent row
//     durably before any side effect. An existing committed row ends the
//     commit with no side effect; an intent left by a crash is resolved by
//     probing the site for the key, and otherwise retried with the same
//     key.
//  4. Refuse if the run's audit trail broke (Trail) or an artifact of the
//     commit was not stored: nothing is sent then.
//  5. Perform the commit action carrying the key (form field or header),
//     record the request/response transcript, confirm, extract the token,
//     keep the evidence (pre-submit DOM, transcript, confirmation
//     screenshot, and the invoice sealed under the data dir's evidence
//     key, see package evidence) by hash, and finalize the row. The page
//     is polled until commit.confirm.success or commit.confirm.refused
//     holds or commit.confirm.timeout passes. Only a known outcome
//     finalizes it: the confirmation and its token, a refusal by the site
//     (its page, or a 4xx to a guarded request; a refused key is never
//     sent again), or an attempt that provably sent nothing. Any other outcome keeps the row intent and
//     asks the confirm probe until commit.confirm.timeout; what the probe
//     finds is committed, and a key is never sent again before the probe
//     has said the site does not hold it.
package commit
