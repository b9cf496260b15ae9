package eventlog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Query selects events of one run. The zero value selects all of them. Results
// are always in seq order.
type Query struct {
	// BranchID, if set, keeps only events of that branch.
	BranchID string
	// Kinds, if non-empty, keeps only events of these kinds.
	Kinds []string
	// AfterSeq keeps only events with Seq > AfterSeq, for paging and tailing.
	AfterSeq int64
	// Limit, if positive, caps the number of events returned.
	Limit int
}

// RunInfo summarizes one run in the log.
type RunInfo struct {
	RunID    string
	Events   int64     // number of events, the head's Seq
	First    time.Time // time of the run's first event
	Last     time.Time // time of the run's last event
	LastKind string    // kind of the run's last event (run_end once it finished)
}

const eventColumns = `run_id, seq, time, virtual_time_ms, kind, branch_id, trace_id, span_id, parent_span_id, payload, artifacts, prev_hash, hash`

// Events returns the events of runID selected by q, in seq order. It returns
// an error matching [ErrRunNotFound] if the run has no events at all, and an
// empty slice if the run exists but nothing matches q. Events does not
// verify the chain; use [Log.Verify] for that.
func (l *Log) Events(ctx context.Context, runID string, q Query) ([]Event, error) {
	if err := l.checkOpen("events"); err != nil {
		return nil, err
	}
	if q.Limit < 0 || q.AfterSeq < 0 {
		return nil, fmt.Errorf("eventlog: events: negative limit or after_seq in query %+v", q)
	}
	var sb strings.Builder
	sb.WriteString(`SELECT ` + eventColumns + ` FROM events WHERE run_id = ? AND seq > ?`)
	args := []any{runID, q.AfterSeq}
	if q.BranchID != "" {
		sb.WriteString(` AND branch_id = ?`)
		args = append(args, q.BranchID)
	}
	if len(q.Kinds) > 0 {
		sb.WriteString(` AND kind IN (?` + strings.Repeat(`, ?`, len(q.Kinds)-1) + `)`)
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	sb.WriteString(` ORDER BY seq`)
	if q.Limit > 0 {
		sb.WriteString(` LIMIT ?`)
		args = append(args, q.Limit)
	}
	rows, err := l.db.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("eventlog: events of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := []Event{}
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, fmt.Errorf("eventlog: events of run %s: %w", runID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventlog: events of run %s: %w", runID, err)
	}
	if len(out) == 0 {
		if ok, err := l.runExists(ctx, runID); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("%w: %s", ErrRunNotFound, runID)
		}
	}
	return out, nil
}

func (l *Log) runExists(ctx context.Context, runID string) (bool, error) {
	var one int
	err := l.db.QueryRowContext(ctx, `SELECT 1 FROM events WHERE run_id = ? LIMIT 1`, runID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("eventlog: run %s: %w", runID, err)
	}
	return true, nil
}

// Runs lists the runs in the log, newest first (by the time of their first
// event, then by run id descending, which for ULIDs is also newest first).
func (l *Log) Runs(ctx context.Context) ([]RunInfo, error) {
	if err := l.checkOpen("runs"); err != nil {
		return nil, err
	}
	rows, err := l.db.QueryContext(ctx, `SELECT run_id, head_seq, first_time, last_time, last_kind FROM runs ORDER BY first_key DESC, run_id DESC`)
	if err != nil {
		return nil, fmt.Errorf("eventlog: runs: %w", err)
	}
	defer rows.Close()
	out := []RunInfo{}
	for rows.Next() {
		var ri RunInfo
		var first, last string
		if err := rows.Scan(&ri.RunID, &ri.Events, &first, &last, &ri.LastKind); err != nil {
			return nil, fmt.Errorf("eventlog: runs: %w", err)
		}
		if ri.First, err = time.Parse(time.RFC3339Nano, first); err != nil {
			return nil, fmt.Errorf("eventlog: runs: run %s: first time: %w", ri.RunID, err)
		}
		if ri.Last, err = time.Parse(time.RFC3339Nano, last); err != nil {
			return nil, fmt.Errorf("eventlog: runs: run %s: last time: %w", ri.RunID, err)
		}
		out = append(out, ri)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventlog: runs: %w", err)
	}
	return out, nil
}

// Head returns the Seq and Hash of the last event of runID. For a run with
// no events it returns 0 and Genesis(runID), the values the first event will
// chain from, and no error.
func (l *Log) Head(ctx context.Context, runID string) (seq int64, hash string, err error) {
	if err := l.checkOpen("head"); err != nil {
		return 0, "", err
	}
	err = l.db.QueryRowContext(ctx, `SELECT seq, hash FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1`, runID).Scan(&seq, &hash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, Genesis(runID), nil
	case err != nil:
		return 0, "", fmt.Errorf("eventlog: head of run %s: %w", runID, err)
	}
	return seq, hash, nil
}

// rowError reports a stored row whose columns cannot be decoded.
type rowError struct {
	seq int64
	err error
}

func (e *rowError) Error() string { return fmt.Sprintf("seq %d: unreadable row: %v", e.seq, e.err) }
func (e *rowError) Unwrap() error { return e.err }

// scanEvent decodes one row selected with eventColumns.
func scanEvent(rows *sql.Rows) (Event, error) {
	var (
		e                  Event
		tm                 string
		payload, artifacts sql.NullString
	)
	if err := rows.Scan(&e.RunID, &e.Seq, &tm, &e.VirtualTime, &e.Kind, &e.BranchID, &e.TraceID, &e.SpanID,
		&e.ParentSpanID, &payload, &artifacts, &e.PrevHash, &e.Hash); err != nil {
		return Event{}, err
	}
	var err error
	if e.Time, err = time.Parse(time.RFC3339Nano, tm); err != nil {
		return Event{}, &rowError{seq: e.Seq, err: fmt.Errorf("time: %w", err)}
	}
	if payload.Valid && payload.String != "" {
		e.Payload = json.RawMessage(payload.String)
	}
	if artifacts.Valid && artifacts.String != "" {
		if err := json.Unmarshal([]byte(artifacts.String), &e.Artifacts); err != nil {
			return Event{}, &rowError{seq: e.Seq, err: fmt.Errorf("artifacts: %w", err)}
		}
		if len(e.Artifacts) == 0 {
			e.Artifacts = nil
		}
	}
	return e, nil
}
