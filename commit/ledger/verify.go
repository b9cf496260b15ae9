package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Verify audits the ledger offline (it needs no site and changes nothing),
// reading one consistent snapshot of the file:
//
//  1. It walks the transitions chain in seq order and reports the first
//     broken link: a gap in seq, a prev_hash that is not the previous hash
//     (GenesisHash for seq 1), or a hash that does not match the row. Links
//     after a break are not trusted and not reported. Up to the break it
//     also checks each transition's logic: its data is a canonical snapshot
//     of entry_id/key in state to_state, from_state is the entry's previous
//     state and op allows the move.
//  2. It checks that each entries row equals, column by column, the snapshot
//     in its last transition, and that every entry has transitions and every
//     chained entry a row. (A snapshot after a broken link is itself
//     suspect: a row that differs from it may be the genuine one, and the
//     pair then points at the same tampering as the broken link.)
//  3. It checks that every committed entry has an OrderID (compensated
//     ones too: the undo does not erase the commit), and that every entry
//     in a compensation state has its undo's key.
//  4. It calls check(e) for each entry that parses, in id order (check may
//     be nil); the caller checks evidence, e.g. that each artifact exists
//     with its recorded digest.
//
// It returns nil when all is well. Otherwise it returns all problems joined
// with errors.Join, in the order above (entries in id order, columns in
// table order); each is a *VerifyError naming the row and field and
// matching ErrVerify, and errors from check are wrapped in one with Field
// "check". Failure to read the file is returned as a plain wrapped error.
func (l *Ledger) Verify(ctx context.Context, check func(e Entry) error) error {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("ledger: verify: %w", err)
	}
	defer conn.Close()
	// One read transaction: the chain and the rows are seen at one instant.
	if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return fmt.Errorf("ledger: verify: begin: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") // read-only

	var v verifier
	if err := v.chain(ctx, conn); err != nil {
		return err
	}
	if err := v.entries(ctx, conn, l.sel, check); err != nil {
		return err
	}
	return errors.Join(v.problems...)
}

type verifier struct {
	problems []error
	last     map[string]transitionRow // entry id -> its last transition
}

func (v *verifier) add(e *VerifyError) { v.problems = append(v.problems, e) }

func (v *verifier) chain(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, transitionSelect+" ORDER BY seq")
	if err != nil {
		return fmt.Errorf("ledger: verify: read transitions: %w", err)
	}
	defer rows.Close()
	v.last = make(map[string]transitionRow)
	var (
		wantSeq  int64 = 1
		prevHash       = GenesisHash
		broken   bool
	)
	for rows.Next() {
		r, err := scanTransitionRow(rows)
		if err != nil {
			return fmt.Errorf("ledger: verify: read transitions: %w", err)
		}
		if !broken {
			link := func(field, want, got string) {
				v.add(&VerifyError{Table: "transitions", Seq: r.seq, Key: r.key, Field: field, Want: want, Got: got})
				broken = true
			}
			switch got := r.computeHash(); {
			case r.seq != wantSeq:
				link("seq", fmt.Sprint(wantSeq), fmt.Sprint(r.seq))
			case r.prevHash != prevHash:
				link("prev_hash", prevHash, r.prevHash)
			case r.hash != got:
				link("hash", got, r.hash)
			default:
				v.logic(&r)
			}
		}
		wantSeq, prevHash = r.seq+1, r.hash
		v.last[r.entryID] = r
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger: verify: read transitions: %w", err)
	}
	return nil
}

// logic checks one intact link against the state machine and the entry's
// previous transition.
func (v *verifier) logic(r *transitionRow) {
	bad := func(field, want, got string) {
		v.add(&VerifyError{Table: "transitions", Seq: r.seq, Key: r.key, Field: field, Want: want, Got: got})
	}
	prevTo := ""
	if p, ok := v.last[r.entryID]; ok {
		prevTo = p.to
	}
	if r.from != prevTo {
		bad("from_state", prevTo, r.from)
	}
	if !allowed(Op(r.op), State(r.from), State(r.to)) {
		bad("op", "an op allowed from "+quote(r.from)+" to "+quote(r.to), r.op)
	}
	canon, err := Canonical([]byte(r.data))
	if err != nil || !bytes.Equal(canon, []byte(r.data)) {
		bad("data", "canonical JSON", r.data)
		return
	}
	var s snapshot
	if err := json.Unmarshal(canon, &s); err != nil {
		bad("data", "an entry snapshot", err.Error())
		return
	}
	if s.ID != r.entryID {
		bad("data.id", r.entryID, s.ID)
	}
	if s.Key != r.key {
		bad("data.key", r.key, s.Key)
	}
	if string(s.State) != r.to {
		bad("data.state", r.to, string(s.State))
	}
}

func (v *verifier) entries(ctx context.Context, conn *sql.Conn, sel string, check func(Entry) error) error {
	rows, err := conn.QueryContext(ctx, sel+" ORDER BY id")
	if err != nil {
		return fmt.Errorf("ledger: verify: read entries: %w", err)
	}
	defer rows.Close()
	type parsed struct {
		e   Entry
		raw rawEntry
	}
	var (
		good      []parsed
		committed []*VerifyError
		checks    []*VerifyError
	)
	seen := make(map[string]bool)
	for rows.Next() {
		raw, err := scanRawEntry(rows)
		if err != nil {
			return fmt.Errorf("ledger: verify: read entries: %w", err)
		}
		id, key := raw[0].String, raw[1].String
		seen[id] = true
		mismatched := v.row(id, key, raw)
		e, err := raw.entry()
		if err != nil {
			var fe *fieldError
			if errors.As(err, &fe) && !mismatched[fe.field] {
				v.add(&VerifyError{Table: "entries", ID: id, Key: key, Field: fe.field, Want: "a parsable value", Got: fe.err.Error()})
			}
			continue
		}
		if e.State.Committed() && e.OrderID == "" {
			committed = append(committed, &VerifyError{Table: "entries", ID: id, Key: key, Field: "order_id", Want: "an order id on a committed entry", Got: ""})
		}
		if e.State.Committed() && e.State != StateCommitted && (e.Compensation == nil || e.Compensation.Key == "") {
			committed = append(committed, &VerifyError{Table: "entries", ID: id, Key: key, Field: "compensation", Want: "the undo's key on a " + string(e.State) + " entry", Got: ""})
		}
		good = append(good, parsed{e: e, raw: raw})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger: verify: read entries: %w", err)
	}
	// Transitions whose entry row is gone.
	var orphans []string
	for id := range v.last {
		if !seen[id] {
			orphans = append(orphans, id)
		}
	}
	slices.Sort(orphans)
	for _, id := range orphans {
		v.add(&VerifyError{Table: "entries", ID: id, Key: v.last[id].key, Field: "id", Want: id, Got: "no row"})
	}
	for _, p := range committed {
		v.add(p)
	}
	if check != nil {
		for _, p := range good {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("ledger: verify: %w", err)
			}
			if err := check(p.e); err != nil {
				checks = append(checks, &VerifyError{Table: "entries", ID: p.e.ID, Key: p.e.Key, Field: "check", Err: err})
			}
		}
	}
	for _, p := range checks {
		v.add(p)
	}
	return nil
}

// row compares one entries row with the snapshot in its last transition and
// returns the columns that differ.
func (v *verifier) row(id, key string, raw rawEntry) map[string]bool {
	bad := make(map[string]bool)
	t, ok := v.last[id]
	if !ok {
		v.add(&VerifyError{Table: "entries", ID: id, Key: key, Field: "transitions", Want: "at least one transition", Got: "none"})
		return bad
	}
	var s snapshot
	if err := json.Unmarshal([]byte(t.data), &s); err != nil {
		v.add(&VerifyError{Table: "entries", ID: id, Key: key, Field: "snapshot", Want: fmt.Sprintf("the snapshot of transition %d", t.seq), Got: err.Error()})
		return bad
	}
	want, err := s.fields()
	if err != nil {
		v.add(&VerifyError{Table: "entries", ID: id, Key: key, Field: "snapshot", Want: fmt.Sprintf("the snapshot of transition %d", t.seq), Got: err.Error()})
		return bad
	}
	for i, col := range entryColumns {
		if want[i] != raw[i] {
			bad[col] = true
			v.add(&VerifyError{Table: "entries", ID: id, Key: key, Field: col, Want: nullText(want[i]), Got: nullText(raw[i])})
		}
	}
	return bad
}

// nullText shows a column value in a VerifyError: its text, or NULL.
func nullText(s sql.NullString) string {
	if !s.Valid {
		return "NULL"
	}
	return s.String
}
