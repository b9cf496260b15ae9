package ledger_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// fixture is a small ledger with an entry in each state:
// committed (key 0), failed (1), aborted then reopened and committed (2),
// still in intent (3).
type fixture struct {
	path string
	l    *ledger.Ledger
	keys []string
	ids  []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{path: ledgerPath(t)}
	f.l = openLedger(t, f.path, ledger.WithClock(newStepClock().Now))
	for i := range 4 {
		in := purchase(t, "team", i+1)
		e, _, err := f.l.Intent(ctx, in)
		requireNoErr(t, err)
		f.keys = append(f.keys, in.Key)
		f.ids = append(f.ids, e.ID)
		if i < 3 {
			_, err = f.l.Attempt(ctx, in.Key)
			requireNoErr(t, err)
		}
	}
	must := func(_ ledger.Entry, err error) { t.Helper(); requireNoErr(t, err) }
	must(f.l.Finalize(ctx, f.keys[0], ledger.Outcome{
		State: ledger.StateCommitted, OrderID: "ORD-1",
		Confirmation: json.RawMessage(`{"order_id":"ORD-1","total":"19.00"}`),
		Artifacts:    map[string]string{"invoice_pdf": "sha256:01", "pre_submit_dom": "sha256:02"},
	}))
	must(f.l.Finalize(ctx, f.keys[1], ledger.Outcome{State: ledger.StateFailed, Error: "HTTP 502, upstream \"busy\""}))
	must(f.l.Finalize(ctx, f.keys[2], ledger.Outcome{State: ledger.StateAborted, Error: "total changed"}))
	must(f.l.Reopen(ctx, f.keys[2], "01JRUN0000000000000000000E"))
	must(f.l.Attempt(ctx, f.keys[2]))
	must(f.l.Finalize(ctx, f.keys[2], ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-3"}))
	return f
}

func (f *fixture) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	res, err := rawDB(t, f.path).Exec(q, args...)
	requireNoErr(t, err)
	n, err := res.RowsAffected()
	requireNoErr(t, err)
	if n != 1 {
		t.Fatalf("tamper %q changed %d rows, want 1", q, n)
	}
}

// lastSeq returns the seq of the last transition of the entry with key.
func (f *fixture) lastSeq(t *testing.T, key string) int64 {
	t.Helper()
	h, err := f.l.History(context.Background(), key)
	requireNoErr(t, err)
	return h[len(h)-1].Seq
}

func TestVerifyGoodLedger(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var checked []string
	err := f.l.Verify(ctx, func(e ledger.Entry) error {
		checked = append(checked, e.ID)
		return nil
	})
	requireNoErr(t, err)
	want := slices.Clone(f.ids)
	slices.Sort(want)
	if !slices.Equal(checked, want) {
		t.Fatalf("check called for %v, want every entry in id order %v", checked, want)
	}
}

func TestVerifyDetectsTampering(t *testing.T) {
	ctx := context.Background()
	type want struct {
		table, field string
		seq          int64 // transitions rows
		entry        int   // entries rows: index into fixture ids; -1 for none
		wantV, gotV  string
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, f *fixture) []want
	}{
		{"entry order_id flipped", func(t *testing.T, f *fixture) []want {
			f.exec(t, `UPDATE entries SET order_id = 'ORD-FORGED' WHERE key = ?`, f.keys[0])
			return []want{{table: "entries", field: "order_id", entry: 0, wantV: "ORD-1", gotV: "ORD-FORGED"}}
		}},
		{"entry state flipped", func(t *testing.T, f *fixture) []want {
			f.exec(t, `UPDATE entries SET state = 'committed' WHERE key = ?`, f.keys[1])
			return []want{
				{table: "entries", field: "state", entry: 1, wantV: "failed", gotV: "committed"},
				{table: "entries", field: "order_id", entry: 1, wantV: "an order id on a committed entry"},
			}
		}},
		{"entry attempts and artifacts edited", func(t *testing.T, f *fixture) []want {
			f.exec(t, `UPDATE entries SET attempts = 0, artifacts = '{"invoice_pdf":"sha256:ff"}' WHERE key = ?`, f.keys[0])
			return []want{
				{table: "entries", field: "attempts", entry: 0, wantV: "1", gotV: "0"},
				{table: "entries", field: "artifacts", entry: 0, wantV: `{"invoice_pdf":"sha256:01","pre_submit_dom":"sha256:02"}`, gotV: `{"invoice_pdf":"sha256:ff"}`},
			}
		}},
		{"entry confirmation removed", func(t *testing.T, f *fixture) []want {
			f.exec(t, `UPDATE entries SET confirmation = NULL WHERE key = ?`, f.keys[0])
			return []want{{table: "entries", field: "confirmation", entry: 0, wantV: `{"order_id":"ORD-1","total":"19.00"}`, gotV: "NULL"}}
		}},
		{"committed order id blanked", func(t *testing.T, f *fixture) []want {
			f.exec(t, `UPDATE entries SET order_id = '' WHERE key = ?`, f.keys[2])
			return []want{
				{table: "entries", field: "order_id", entry: 2, wantV: "ORD-3", gotV: ""},
				{table: "entries", field: "order_id", entry: 2, wantV: "an order id on a committed entry"},
			}
		}},
		{"entry row deleted", func(t *testing.T, f *fixture) []want {
			f.exec(t, `DELETE FROM entries WHERE key = ?`, f.keys[3])
			return []want{{table: "entries", field: "id", entry: 3, wantV: f.ids[3], gotV: "no row"}}
		}},
		{"transition data edited", func(t *testing.T, f *fixture) []want {
			seq := f.lastSeq(t, f.keys[0])
			f.exec(t, `UPDATE transitions SET data = replace(data, 'ORD-1', 'ORD-9') WHERE seq = ?`, seq)
			return []want{
				{table: "transitions", field: "hash", seq: seq, entry: -1},
				{table: "entries", field: "order_id", entry: 0, wantV: "ORD-9", gotV: "ORD-1"},
				{table: "entries", field: "confirmation", entry: 0},
			}
		}},
		{"transition to_state edited", func(t *testing.T, f *fixture) []want {
			seq := f.lastSeq(t, f.keys[1])
			f.exec(t, `UPDATE transitions SET to_state = 'aborted' WHERE seq = ?`, seq)
			return []want{{table: "transitions", field: "hash", seq: seq, entry: -1}}
		}},
		{"transition edited and rehashed", func(t *testing.T, f *fixture) []want {
			seq := f.lastSeq(t, f.keys[1])
			f.exec(t, `UPDATE transitions SET data = replace(data, 'HTTP 502', 'HTTP 200') WHERE seq = ?`, seq)
			rehash(t, f, seq)
			return []want{
				{table: "transitions", field: "prev_hash", seq: seq + 1, entry: -1},
				{table: "entries", field: "error", entry: 1},
			}
		}},
		{"transition deleted", func(t *testing.T, f *fixture) []want {
			seq := f.lastSeq(t, f.keys[1]) // a transition in the middle of the chain
			f.exec(t, `DELETE FROM transitions WHERE seq = ?`, seq)
			return []want{
				{table: "transitions", field: "seq", seq: seq + 1, entry: -1, wantV: fmt.Sprint(seq), gotV: fmt.Sprint(seq + 1)},
				{table: "entries", field: "state", entry: 1, wantV: "intent", gotV: "failed"},
				{table: "entries", field: "error", entry: 1},
				{table: "entries", field: "updated_at", entry: 1},
			}
		}},
		{"last transition deleted", func(t *testing.T, f *fixture) []want {
			seq := headSeq(t, f.l) // finalize of key 2: the chain is still a valid prefix
			f.exec(t, `DELETE FROM transitions WHERE seq = ?`, seq)
			return []want{
				{table: "entries", field: "state", entry: 2, wantV: "intent", gotV: "committed"},
				{table: "entries", field: "order_id", entry: 2, wantV: "", gotV: "ORD-3"},
				{table: "entries", field: "updated_at", entry: 2},
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			wants := tc.tamper(t, f)
			err := f.l.Verify(ctx, nil)
			t.Logf("Verify: %v", err)
			requireIs(t, err, ledger.ErrVerify)
			got := verifyErrors(t, err)
			if len(got) != len(wants) {
				t.Fatalf("Verify found %d problems, want %d:\n%v", len(got), len(wants), err)
			}
			for i, w := range wants {
				g := got[i]
				ok := g.Table == w.table && g.Field == w.field
				if w.table == "transitions" {
					ok = ok && g.Seq == w.seq
				} else {
					ok = ok && g.ID == f.ids[w.entry] && g.Key == f.keys[w.entry]
				}
				if w.wantV != "" || w.gotV != "" {
					ok = ok && g.Want == w.wantV && g.Got == w.gotV
				}
				if !ok {
					t.Fatalf("problem %d = %+v, want %+v\nall: %v", i, g, w, err)
				}
			}
			// Deterministic: the same report twice.
			again := f.l.Verify(ctx, nil)
			requireEqual(t, again.Error(), err.Error(), "second report")
		})
	}
}

// rehash recomputes the hash of transition seq the way doc.go specifies, as
// a forger who knows the format would.
func rehash(t *testing.T, f *fixture, seq int64) {
	t.Helper()
	db := rawDB(t, f.path)
	var entryID, key, op, from, to, at, data, prev string
	requireNoErr(t, db.QueryRow(`SELECT entry_id, key, op, from_state, to_state, at, data, prev_hash FROM transitions WHERE seq = ?`, seq).
		Scan(&entryID, &key, &op, &from, &to, &at, &data, &prev))
	f.exec(t, `UPDATE transitions SET hash = ? WHERE seq = ?`, docHash(t, seq, entryID, key, op, from, to, at, json.RawMessage(data), prev), seq)
}

// docHash is the transition hash exactly as doc.go defines it, written
// independently of the package's own encoder.
func docHash(t *testing.T, seq int64, entryID, key, op, from, to, at string, data json.RawMessage, prev string) string {
	t.Helper()
	obj, err := json.Marshal(map[string]any{
		"seq": seq, "entry_id": entryID, "key": key, "op": op, "from": from, "to": to,
		"at": at, "data": data, "prev_hash": prev,
	})
	requireNoErr(t, err)
	canon, err := ledger.Canonical(obj)
	requireNoErr(t, err)
	sum := sha256.Sum256([]byte(prev + "\n" + string(canon)))
	return hex.EncodeToString(sum[:])
}

func TestTransitionHashFormat(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	sum := sha256.Sum256([]byte("multiverse/ledger/v1"))
	requireEqual(t, ledger.GenesisHash, hex.EncodeToString(sum[:]), "GenesisHash")

	prev := ledger.GenesisHash
	var seq int64
	rows, err := rawDB(t, f.path).Query(`SELECT seq, entry_id, key, op, from_state, to_state, at, data, prev_hash, hash FROM transitions ORDER BY seq`)
	requireNoErr(t, err)
	defer rows.Close()
	for rows.Next() {
		var entryID, key, op, from, to, at, data, prevHash, hash string
		requireNoErr(t, rows.Scan(&seq, &entryID, &key, &op, &from, &to, &at, &data, &prevHash, &hash))
		requireEqual(t, prevHash, prev, fmt.Sprintf("prev_hash of %d", seq))
		requireEqual(t, hash, docHash(t, seq, entryID, key, op, from, to, at, json.RawMessage(data), prevHash), fmt.Sprintf("hash of %d", seq))
		// The snapshot has exactly the entries columns.
		var snap map[string]json.RawMessage
		requireNoErr(t, json.Unmarshal([]byte(data), &snap))
		cols := slices.Sorted(maps.Keys(snap))
		requireEqual(t, strings.Join(cols, ","), "artifacts,attempts,branch_id,confirmation,created_at,error,flow,id,key,order_id,payload,payload_sha256,plan_digest,run_id,site,state,updated_at", "snapshot members")
		prev = hash
	}
	requireNoErr(t, rows.Err())
	s, h, err := f.l.Head(ctx)
	requireNoErr(t, err)
	requireEqual(t, s, seq, "head seq")
	requireEqual(t, h, prev, "head hash")
}

func TestVerifyCallsCheck(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	errMissing := errors.New("artifact missing from store")
	err := f.l.Verify(ctx, func(e ledger.Entry) error {
		if e.Artifacts["invoice_pdf"] == "sha256:01" {
			return fmt.Errorf("invoice_pdf %s: %w", e.Artifacts["invoice_pdf"], errMissing)
		}
		return nil
	})
	requireIs(t, err, ledger.ErrVerify)
	requireIs(t, err, errMissing)
	got := verifyErrors(t, err)
	if len(got) != 1 || got[0].Field != "check" || got[0].ID != f.ids[0] || got[0].Key != f.keys[0] {
		t.Fatalf("Verify = %v, want one check problem on entry %s", err, f.ids[0])
	}
}

func TestVerifyEmptyLedger(t *testing.T) {
	l := openLedger(t, ledgerPath(t))
	requireNoErr(t, l.Verify(context.Background(), func(ledger.Entry) error {
		return errors.New("no entries, so never called")
	}))
}
