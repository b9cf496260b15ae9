package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// GenesisHash is the PrevHash of the first transition of every ledger:
// hex(sha256("multiverse/ledger/v1")).
const GenesisHash = "f61e436aa1ecfbf0d62573c83d63226d469e568ceb703b24d203f436af0b07d8"

// genesisSeed is the string GenesisHash is the sha256 of.
const genesisSeed = "multiverse/ledger/v1"

// Transition is one row of the hash-chained transitions table: a state
// change of one entry, with a full snapshot of the entry after the change.
type Transition struct {
	Seq      int64           `json:"seq"`      // 1, 2, 3... across the whole ledger, no gaps
	EntryID  string          `json:"entry_id"` // the entry changed
	Key      string          `json:"key"`      // its idempotency key
	Op       Op              `json:"op"`       // intent, attempt, finalize or reopen
	From     State           `json:"from"`     // "" for the creating transition
	To       State           `json:"to"`
	At       time.Time       `json:"at"`        // UTC
	Data     json.RawMessage `json:"data"`      // canonical snapshot of the entry after the change
	PrevHash string          `json:"prev_hash"` // Hash of transition Seq-1, GenesisHash for Seq 1
	Hash     string          `json:"hash"`      // see doc.go
}

// transitionRow is a transitions row as stored, before any parsing, so that
// Verify can hash exactly what is on disk.
type transitionRow struct {
	seq                                  int64
	entryID, key, op, from, to, at, data string
	prevHash, hash                       string
}

const transitionSelect = `SELECT seq, entry_id, key, op, from_state, to_state, at, data, prev_hash, hash FROM transitions`

func scanTransitionRow(s scanner) (transitionRow, error) {
	var r transitionRow
	err := s.Scan(&r.seq, &r.entryID, &r.key, &r.op, &r.from, &r.to, &r.at, &r.data, &r.prevHash, &r.hash)
	return r, err
}

func (r *transitionRow) transition() (Transition, error) {
	at, err := parseTime(r.at)
	if err != nil {
		return Transition{}, fmt.Errorf("ledger: transition %d: at: %w", r.seq, err)
	}
	return Transition{
		Seq: r.seq, EntryID: r.entryID, Key: r.key, Op: Op(r.op),
		From: State(r.from), To: State(r.to), At: at, Data: json.RawMessage(r.data),
		PrevHash: r.prevHash, Hash: r.hash,
	}, nil
}

// canonicalJSON returns the canonical JSON of the transition without its
// hash: the members at, data, entry_id, from, key, op, prev_hash, seq, to in
// that (sorted) order, data embedded as stored (it is canonical JSON when
// written by the ledger).
func (r *transitionRow) canonicalJSON() []byte {
	var b strings.Builder
	b.WriteString(`{"at":`)
	b.WriteString(quote(r.at))
	b.WriteString(`,"data":`)
	b.WriteString(r.data)
	b.WriteString(`,"entry_id":`)
	b.WriteString(quote(r.entryID))
	b.WriteString(`,"from":`)
	b.WriteString(quote(r.from))
	b.WriteString(`,"key":`)
	b.WriteString(quote(r.key))
	b.WriteString(`,"op":`)
	b.WriteString(quote(r.op))
	b.WriteString(`,"prev_hash":`)
	b.WriteString(quote(r.prevHash))
	b.WriteString(`,"seq":`)
	b.WriteString(strconv.FormatInt(r.seq, 10))
	b.WriteString(`,"to":`)
	b.WriteString(quote(r.to))
	b.WriteString(`}`)
	return []byte(b.String())
}

// computeHash returns hex(sha256(prev_hash + "\n" + canonical JSON)).
func (r *transitionRow) computeHash() string {
	h := sha256.New()
	h.Write([]byte(r.prevHash))
	h.Write([]byte{'\n'})
	h.Write(r.canonicalJSON())
	return hex.EncodeToString(h.Sum(nil))
}

// head returns the last transition's seq and hash (0 and GenesisHash when
// the table is empty).
func head(ctx context.Context, q querier) (int64, string, error) {
	var (
		seq  int64
		hash string
	)
	err := q.QueryRowContext(ctx, "SELECT seq, hash FROM transitions ORDER BY seq DESC LIMIT 1").Scan(&seq, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, GenesisHash, nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("ledger: read chain head: %w", err)
	}
	return seq, hash, nil
}

// appendTransition chains a transition recording e's change from "from" by
// op, within tx. The caller has already written e's row.
func appendTransition(ctx context.Context, tx *sql.Tx, op Op, from State, e *Entry, now time.Time) error {
	seq, prev, err := head(ctx, tx)
	if err != nil {
		return err
	}
	snap := snapshotOf(e)
	data, err := snap.canonical()
	if err != nil {
		return err
	}
	r := transitionRow{
		seq: seq + 1, entryID: e.ID, key: e.Key, op: string(op),
		from: string(from), to: string(e.State), at: formatTime(now), data: string(data),
		prevHash: prev,
	}
	r.hash = r.computeHash()
	if _, err := tx.ExecContext(ctx, `INSERT INTO transitions
		(seq, entry_id, key, op, from_state, to_state, at, data, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.seq, r.entryID, r.key, r.op, r.from, r.to, r.at, r.data, r.prevHash, r.hash); err != nil {
		return fmt.Errorf("ledger: append transition %d for %q: %w", r.seq, e.Key, err)
	}
	return nil
}
