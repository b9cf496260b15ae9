package eventlog

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// Verify recomputes the hash chain of runID from its first event and
// returns nil if every event is intact, or a [*CorruptionError] (matching
// [ErrCorrupt]) for the first event that is not: a hash mismatch (edited
// content), a broken prev link (edited prev_hash, reordered events), a gap
// in seq (deleted or duplicated events), a non-canonical payload, a row that
// cannot be decoded. It also checks the run summary the log maintains beside
// the chain (head, first and last time, last kind), which catches a tail
// removed without updating it.
//
// Events removed from the end of the chain together with the summary cannot
// be detected here: a prefix of a valid chain is a valid chain. Compare
// [Log.Head] against a head recorded elsewhere for that.
//
// A run with no events returns an error matching [ErrRunNotFound]. Verify
// may run while events are being appended; it checks the chain as of the
// moment it starts reading.
func (l *Log) Verify(ctx context.Context, runID string) error {
	if err := l.checkOpen("verify"); err != nil {
		return err
	}
	// Read the summary first: appends only extend the chain, so the events
	// read afterwards reach at least the summary's head.
	var sum summary
	err := l.db.QueryRowContext(ctx, `SELECT head_seq, head_hash, first_time, first_key, last_time, last_kind FROM runs WHERE run_id = ?`, runID).
		Scan(&sum.seq, &sum.hash, &sum.firstTime, &sum.firstKey, &sum.lastTime, &sum.lastKind)
	haveSummary := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("eventlog: verify run %s: %w", runID, err)
	}

	rows, err := l.db.QueryContext(ctx, `SELECT `+eventColumns+` FROM events WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return fmt.Errorf("eventlog: verify run %s: %w", runID, err)
	}
	defer rows.Close()
	c := newChain(runID)
	var first, atSummary Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			var re *rowError
			if errors.As(err, &re) {
				return &CorruptionError{RunID: runID, Seq: c.n + 1, Want: "decodable row", Got: re.err.Error(), Reason: ReasonUnreadable}
			}
			return fmt.Errorf("eventlog: verify run %s: %w", runID, err)
		}
		if err := c.next(&e); err != nil {
			return err
		}
		if e.Seq == 1 {
			first = e
		}
		if e.Seq == sum.seq {
			atSummary = e
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("eventlog: verify run %s: %w", runID, err)
	}
	if !haveSummary {
		if c.n == 0 {
			return fmt.Errorf("%w: %s", ErrRunNotFound, runID)
		}
		// The run's first events may have been committed between the two
		// reads; only a summary that is still missing is a defect.
		var one int
		err := l.db.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE run_id = ?`, runID).Scan(&one)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return &CorruptionError{RunID: runID, Seq: c.n, Want: "a run summary", Got: "none", Reason: ReasonSummaryMismatch}
		case err != nil:
			return fmt.Errorf("eventlog: verify run %s: %w", runID, err)
		}
		return nil
	}
	if sum.seq > c.n {
		return &CorruptionError{RunID: runID, Seq: sum.seq, Want: "event " + strconv.FormatInt(sum.seq, 10) + " " + sum.hash,
			Got: "chain ends at event " + strconv.FormatInt(c.n, 10), Reason: ReasonSummaryMismatch}
	}
	return sum.check(runID, &first, &atSummary)
}

// summary is a run's row in the runs table.
type summary struct {
	seq                                           int64
	hash, firstTime, firstKey, lastTime, lastKind string
}

// check compares the summary with the run's first event and the event at
// the summary's head: every column must be what Append wrote.
func (s *summary) check(runID string, first, head *Event) error {
	bad := func(seq int64, col, want, got string) error {
		return &CorruptionError{RunID: runID, Seq: seq, Want: col + " " + want, Got: col + " " + got, Reason: ReasonSummaryMismatch}
	}
	switch {
	case head.Hash != s.hash:
		return &CorruptionError{RunID: runID, Seq: s.seq, Want: s.hash, Got: head.Hash, Reason: ReasonSummaryMismatch}
	case head.Kind != s.lastKind:
		return bad(s.seq, "last_kind", head.Kind, s.lastKind)
	case formatTime(head.Time) != s.lastTime:
		return bad(s.seq, "last_time", formatTime(head.Time), s.lastTime)
	case formatTime(first.Time) != s.firstTime:
		return bad(1, "first_time", formatTime(first.Time), s.firstTime)
	case first.Time.Format(sortableTimeLayout) != s.firstKey:
		return bad(1, "first_key", first.Time.Format(sortableTimeLayout), s.firstKey)
	}
	return nil
}

// VerifyChain applies the chain checks of [Log.Verify] to an in-memory list
// of events of runID, which must start at Seq 1, for example the
// events.jsonl of a bundle. It returns nil for an intact chain (including an
// empty one) and a [*CorruptionError] for the first bad event. As with
// Verify, a list missing its last events is still a valid chain.
func VerifyChain(runID string, es []Event) error {
	c := newChain(runID)
	for i := range es {
		if err := c.next(&es[i]); err != nil {
			return err
		}
	}
	return nil
}

// chain checks events one by one against the running head of a run.
type chain struct {
	runID string
	n     int64  // events accepted so far
	prev  string // hash of the last accepted event, or the genesis hash
}

func newChain(runID string) *chain { return &chain{runID: runID, prev: Genesis(runID)} }

// next checks that e is the next event of the chain and accepts it.
func (c *chain) next(e *Event) error {
	seq := c.n + 1
	bad := func(reason, want, got string) error {
		return &CorruptionError{RunID: c.runID, Seq: seq, Want: want, Got: got, Reason: reason}
	}
	if e.RunID != c.runID {
		return bad(ReasonRunMismatch, c.runID, e.RunID)
	}
	if e.Seq != seq {
		return bad(ReasonSeqGap, strconv.FormatInt(seq, 10), strconv.FormatInt(e.Seq, 10))
	}
	if e.PrevHash != c.prev {
		return bad(ReasonBrokenLink, c.prev, e.PrevHash)
	}
	payload, err := CanonicalPayload(e.Payload)
	if err != nil {
		return bad(ReasonPayloadForm, "a JSON value", clip(e.Payload))
	}
	canonical, err := encodeCanonical(e, payload)
	if err != nil {
		return bad(ReasonHashMismatch, "an encodable event", err.Error())
	}
	if h := chainHash(e.PrevHash, canonical); h != e.Hash {
		return bad(ReasonHashMismatch, h, e.Hash)
	}
	if !bytes.Equal(payload, e.Payload) {
		return bad(ReasonPayloadForm, clip(payload), clip(e.Payload))
	}
	c.n, c.prev = seq, e.Hash
	return nil
}

// clip shortens a payload for an error message.
func clip(b []byte) string {
	const max = 120
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
