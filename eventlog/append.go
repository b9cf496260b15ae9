package eventlog

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxEventBytes bounds the JSON Lines form of one event, the line limit of
// [ReadJSONL]. Append refuses larger events so that everything in a log can
// be exported and read back; store large data in the artifact store and
// reference it by digest.
const MaxEventBytes = 4 << 20

// sortableTimeLayout orders lexically like the times it formats (years
// 0000–9999), unlike RFC3339Nano, which drops trailing zeros.
const sortableTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// Append adds e to the end of its run's chain and returns the event as
// stored: Seq, PrevHash and Hash assigned (values the caller set there are
// ignored), Time in UTC (the current time if e.Time is zero), the payload
// canonicalized and an empty Artifacts list as nil. It runs in one IMMEDIATE
// transaction that reads the run's head, so concurrent appenders, in this
// process or others, never fork the chain; the event is durable when Append
// returns nil. Invalid events return an error matching [ErrInvalidEvent];
// after Close, [ErrClosed]. On any error nothing is stored.
func (l *Log) Append(ctx context.Context, e Event) (Event, error) {
	out, err := l.AppendBatch(ctx, []Event{e})
	if err != nil {
		return Event{}, err
	}
	return out[0], nil
}

// AppendBatch appends es in order in a single transaction, with the same
// rules as [Log.Append] for each event; events may belong to several runs,
// each continuing its own chain. Either all events are stored or, on error,
// none. An invalid event fails the whole batch, and the error names its
// index. An empty batch does nothing.
func (l *Log) AppendBatch(ctx context.Context, es []Event) ([]Event, error) {
	if err := l.checkOpen("append"); err != nil {
		return nil, err
	}
	if err := l.checkWritable(); err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, nil
	}
	now := time.Now()
	out := make([]Event, len(es))
	for i := range es {
		e, err := prepare(es[i], now)
		if err != nil {
			return nil, batchErr(len(es), i, err)
		}
		out[i] = e
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkOpen("append"); err != nil {
		return nil, err
	}
	tx, err := l.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE via _txlock
	if err != nil {
		return nil, fmt.Errorf("eventlog: append: begin: %w", err)
	}
	defer tx.Rollback()
	a, err := newAppender(ctx, tx)
	if err != nil {
		return nil, err
	}
	defer a.close()
	for i := range out {
		if err := a.append(ctx, &out[i]); err != nil {
			return nil, batchErr(len(out), i, err)
		}
	}
	if err := a.updateSummaries(ctx); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("eventlog: append: commit: %w", err)
	}
	return out, nil
}

func batchErr(n, i int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("%w (event %d of batch)", err, i)
}

// prepare validates and normalizes a caller's event before sequencing.
func prepare(e Event, now time.Time) (Event, error) {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidEvent, fmt.Sprintf(format, args...))
	}
	if e.RunID == "" {
		return Event{}, invalid("empty run_id")
	}
	if e.Kind == "" {
		return Event{}, invalid("empty kind")
	}
	for _, f := range []struct{ name, v string }{
		{"run_id", e.RunID}, {"kind", e.Kind}, {"branch_id", e.BranchID},
	} {
		if !utf8.ValidString(f.v) {
			return Event{}, invalid("%s is not valid UTF-8", f.name)
		}
	}
	if e.TraceID != "" && !isW3CID(e.TraceID, 32) {
		return Event{}, invalid("trace_id %q is not 32 lowercase hex digits (and not all zero)", e.TraceID)
	}
	for _, f := range []struct{ name, v string }{{"span_id", e.SpanID}, {"parent_span_id", e.ParentSpanID}} {
		if f.v != "" && !isW3CID(f.v, 16) {
			return Event{}, invalid("%s %q is not 16 lowercase hex digits (and not all zero)", f.name, f.v)
		}
	}
	if e.VirtualTime < 0 {
		return Event{}, invalid("negative virtual_time_ms %d", e.VirtualTime)
	}
	if e.Time.IsZero() {
		e.Time = now
	}
	e.Time = e.Time.UTC().Round(0)
	if y := e.Time.Year(); y < 0 || y > 9999 {
		return Event{}, invalid("time %s outside years 0-9999", e.Time)
	}
	p, err := CanonicalPayload(e.Payload)
	if err != nil {
		return Event{}, err
	}
	e.Payload = p
	if len(e.Artifacts) == 0 {
		e.Artifacts = nil
	} else {
		e.Artifacts = append([]string(nil), e.Artifacts...)
		for i, a := range e.Artifacts {
			if a == "" || !utf8.ValidString(a) {
				return Event{}, invalid("artifacts[%d] is empty or not valid UTF-8", i)
			}
		}
	}
	e.Seq, e.PrevHash, e.Hash = 0, "", ""
	return e, nil
}

// isW3CID reports whether s is n lowercase hex digits, not all zero, as W3C
// trace context requires of trace and span ids.
func isW3CID(s string, n int) bool {
	if len(s) != n {
		return false
	}
	nonZero := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
		nonZero = nonZero || c != '0'
	}
	return nonZero
}

// head is a run's last stored event as seen inside the transaction.
type head struct {
	seq  int64
	hash string
}

// appender sequences events inside one write transaction.
type appender struct {
	headQ, insert, upsrt *sql.Stmt
	heads                map[string]head
	order                []string          // runs in order of first appearance
	firsts               map[string]*Event // first event of each new run
	lasts                map[string]*Event
}

func newAppender(ctx context.Context, tx *sql.Tx) (*appender, error) {
	a := &appender{heads: map[string]head{}, firsts: map[string]*Event{}, lasts: map[string]*Event{}}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = tx.PrepareContext(ctx, q)
		return s
	}
	a.headQ = prep(`SELECT seq, hash FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1`)
	a.insert = prep(`INSERT INTO events (run_id, seq, time, virtual_time_ms, kind, branch_id, trace_id, span_id, parent_span_id, payload, artifacts, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	a.upsrt = prep(`INSERT INTO runs (run_id, first_time, first_key, last_time, last_kind, head_seq, head_hash)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET last_time = excluded.last_time, last_kind = excluded.last_kind,
			head_seq = excluded.head_seq, head_hash = excluded.head_hash`)
	if err != nil {
		a.close()
		return nil, fmt.Errorf("eventlog: append: prepare: %w", err)
	}
	return a, nil
}

func (a *appender) close() {
	for _, s := range []*sql.Stmt{a.headQ, a.insert, a.upsrt} {
		if s != nil {
			s.Close()
		}
	}
}

// append assigns e's place in its chain and inserts it.
func (a *appender) append(ctx context.Context, e *Event) error {
	h, ok := a.heads[e.RunID]
	if !ok {
		err := a.headQ.QueryRowContext(ctx, e.RunID).Scan(&h.seq, &h.hash)
		switch {
		case err == sql.ErrNoRows:
			h = head{seq: 0, hash: Genesis(e.RunID)}
		case err != nil:
			return fmt.Errorf("eventlog: append: read head of run %s: %w", e.RunID, err)
		}
		a.order = append(a.order, e.RunID)
	}
	e.Seq, e.PrevHash = h.seq+1, h.hash
	canonical, err := encodeCanonical(e, e.Payload)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidEvent, err)
	}
	if n := len(canonical) + 64; n > MaxEventBytes {
		return fmt.Errorf("%w: event is %d bytes, the limit is %d: store large data as an artifact", ErrInvalidEvent, n, MaxEventBytes)
	}
	e.Hash = chainHash(e.PrevHash, canonical)
	var artifacts any
	if e.Artifacts != nil {
		b, err := json.Marshal(e.Artifacts)
		if err != nil {
			return fmt.Errorf("%w: artifacts: %v", ErrInvalidEvent, err)
		}
		artifacts = string(b)
	}
	var payload any
	if e.Payload != nil {
		payload = string(e.Payload)
	}
	if _, err := a.insert.ExecContext(ctx, e.RunID, e.Seq, formatTime(e.Time), e.VirtualTime, e.Kind,
		e.BranchID, e.TraceID, e.SpanID, e.ParentSpanID, payload, artifacts, e.PrevHash, e.Hash); err != nil {
		return fmt.Errorf("eventlog: append: insert run %s seq %d: %w", e.RunID, e.Seq, err)
	}
	a.heads[e.RunID] = head{seq: e.Seq, hash: e.Hash}
	if e.Seq == 1 {
		a.firsts[e.RunID] = e
	}
	a.lasts[e.RunID] = e
	return nil
}

// updateSummaries writes the runs rows for every run the batch touched.
func (a *appender) updateSummaries(ctx context.Context) error {
	for _, run := range a.order {
		last := a.lasts[run]
		first := a.firsts[run]
		if first == nil {
			first = last // existing run: the first_* values are kept by ON CONFLICT
		}
		if _, err := a.upsrt.ExecContext(ctx, run, formatTime(first.Time), first.Time.Format(sortableTimeLayout),
			formatTime(last.Time), last.Kind, last.Seq, last.Hash); err != nil {
			return fmt.Errorf("eventlog: append: update summary of run %s: %w", run, err)
		}
	}
	return nil
}
