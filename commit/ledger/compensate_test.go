package ledger_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// committedEntry records a purchase and commits it.
func committedEntry(t *testing.T, l *ledger.Ledger) ledger.Intent {
	t.Helper()
	ctx := context.Background()
	in := purchase(t, "team", 10)
	_, _, err := l.Intent(ctx, in)
	requireNoErr(t, err)
	_, err = l.Attempt(ctx, in.Key)
	requireNoErr(t, err)
	_, err = l.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-1",
		Confirmation: json.RawMessage(`{"order_id":"ORD-1"}`), Anchor: anchorOf(in.RunID, 4)})
	requireNoErr(t, err)
	return in
}

// TestCompensationLifecycle: a committed entry is undone under one key of
// its own: compensating (attempts counted, the same key on a retry, another
// key refused), then compensated, terminal; the commit's own fields stay;
// Verify holds at every step and names a compensation state without its key.
func TestCompensationLifecycle(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, ledgerPath(t))
	in := committedEntry(t, l)
	comp := ledger.Compensation{Key: "compensate:saas-demo:checkout:abc", RunID: "01JRUN0000000000000000000B", Reason: "postcheck seats_match failed"}

	_, err := l.SettleCompensation(ctx, in.Key, true, ledger.Outcome{})
	requireIs(t, err, ledger.ErrBadTransition)
	_, err = l.Compensate(ctx, in.Key, ledger.Compensation{Key: comp.Key, RunID: comp.RunID})
	requireIs(t, err, ledger.ErrInvalid)

	e, err := l.Compensate(ctx, in.Key, comp)
	requireNoErr(t, err)
	requireEqual(t, e.State, ledger.StateCompensating, "state")
	requireEqual(t, e.Compensation.Attempts, 1, "attempts")
	requireEqual(t, e.OrderID, "ORD-1", "the commit's order id")
	requireNoErr(t, l.Verify(ctx, nil))

	e, err = l.Compensate(ctx, in.Key, comp)
	requireNoErr(t, err)
	requireEqual(t, e.Compensation.Attempts, 2, "attempts after a retry")
	other := comp
	other.Key = "compensate:saas-demo:checkout:other"
	_, err = l.Compensate(ctx, in.Key, other)
	requireIs(t, err, ledger.ErrInvalid)

	e, err = l.SettleCompensation(ctx, in.Key, true, ledger.Outcome{Confirmation: json.RawMessage(`{"status": "cancelled"}`),
		Artifacts: map[string]string{"compensation_dom": "sha256:d"}, Anchor: anchorOf(comp.RunID, 9)})
	requireNoErr(t, err)
	requireEqual(t, e.State, ledger.StateCompensated, "state")
	requireEqual(t, string(e.Compensation.Confirmation), `{"status":"cancelled"}`, "confirmation")
	requireEqual(t, string(e.Confirmation), `{"order_id":"ORD-1"}`, "the commit's confirmation")
	requireNoErr(t, l.Verify(ctx, nil))

	_, err = l.Compensate(ctx, in.Key, comp)
	requireIs(t, err, ledger.ErrBadTransition)
	_, err = l.Reopen(ctx, in.Key, comp.RunID)
	requireIs(t, err, ledger.ErrBadTransition)

	hist, err := l.History(ctx, in.Key)
	requireNoErr(t, err)
	var ops []string
	for _, h := range hist {
		ops = append(ops, string(h.Op)+":"+string(h.To))
	}
	want := "intent:intent attempt:intent finalize:committed compensate:compensating compensate:compensating settle:compensated"
	requireEqual(t, joinWords(ops), want, "history")

	// A row put in a compensation state by hand, without its key, is named.
	db := rawDB(t, l.Path())
	_, err = db.Exec(`UPDATE entries SET compensation = '' WHERE key = ?`, in.Key)
	requireNoErr(t, err)
	fields := map[string]bool{}
	for _, ve := range verifyErrors(t, l.Verify(ctx, nil)) {
		fields[ve.Field] = true
	}
	if !fields["compensation"] {
		t.Fatalf("verify does not name the compensation column: %v", fields)
	}
}

// TestCompensationFailedRetries: an undo the site did not confirm leaves
// compensation_failed with its error; compensating again uses the same key
// and may then succeed. Only committed entries can be compensated.
func TestCompensationFailedRetries(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, ledgerPath(t))
	in := committedEntry(t, l)
	comp := ledger.Compensation{Key: "compensate:k", RunID: "01JRUN0000000000000000000B", Reason: "requested"}
	_, err := l.Compensate(ctx, in.Key, comp)
	requireNoErr(t, err)
	_, err = l.SettleCompensation(ctx, in.Key, true, ledger.Outcome{Error: "both"})
	requireIs(t, err, ledger.ErrInvalid)
	e, err := l.SettleCompensation(ctx, in.Key, false, ledger.Outcome{Error: "the cancel page did not confirm"})
	requireNoErr(t, err)
	requireEqual(t, e.State, ledger.StateCompensationFailed, "state")
	requireEqual(t, e.Compensation.Error, "the cancel page did not confirm", "error")
	e, err = l.Compensate(ctx, in.Key, comp)
	requireNoErr(t, err)
	requireEqual(t, e.Compensation.Attempts, 2, "attempts")
	requireEqual(t, e.Compensation.Error, "", "error cleared by the retry")
	_, err = l.SettleCompensation(ctx, in.Key, true, ledger.Outcome{})
	requireNoErr(t, err)
	requireNoErr(t, l.Verify(ctx, nil))

	failed := purchase(t, "pro", 3)
	_, _, err = l.Intent(ctx, failed)
	requireNoErr(t, err)
	_, err = l.Compensate(ctx, failed.Key, comp)
	requireIs(t, err, ledger.ErrBadTransition)
	_, err = l.Finalize(ctx, failed.Key, ledger.Outcome{State: ledger.StateFailed, Error: "refused"})
	requireNoErr(t, err)
	_, err = l.Compensate(ctx, failed.Key, comp)
	requireIs(t, err, ledger.ErrBadTransition)
}

// TestSchemaVersion2 reads a version 2 file (no compensation column, the
// old state check) read-only, and migrates it when opened for writing:
// rows and chain unchanged, then compensation works.
func TestSchemaVersion2(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	l := openLedger(t, path)
	in := committedEntry(t, l)
	requireNoErr(t, l.Close())
	db := rawDB(t, path)
	_, err := db.Exec(`ALTER TABLE entries DROP COLUMN compensation; PRAGMA user_version = 2`)
	requireNoErr(t, err)
	requireNoErr(t, db.Close())

	ro, err := ledger.OpenReadOnly(ctx, path)
	requireNoErr(t, err)
	requireNoErr(t, ro.Verify(ctx, nil))
	requireNoErr(t, ro.Close())

	rw := openLedger(t, path)
	requireNoErr(t, rw.Verify(ctx, nil))
	_, err = rw.Compensate(ctx, in.Key, ledger.Compensation{Key: "compensate:k", RunID: "01JRUN0000000000000000000B", Reason: "requested"})
	requireNoErr(t, err)
	requireNoErr(t, rw.Verify(ctx, nil))
	var version int
	requireNoErr(t, rawDB(t, path).QueryRow(`PRAGMA user_version`).Scan(&version))
	requireEqual(t, version, ledger.SchemaVersion, "schema version after a writing open")
}

func joinWords(ws []string) string {
	out := ""
	for i, w := range ws {
		if i > 0 {
			out += " "
		}
		out += w
	}
	return out
}
