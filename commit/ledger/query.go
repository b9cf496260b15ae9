package ledger

import (
	"context"
	"fmt"
	"strings"
)

// Filter selects entries for List. The zero Filter selects every entry.
type Filter struct {
	State State  // only entries in this state; "" for any
	RunID string // only entries whose RunID is this; "" for any
	Limit int    // at most this many entries; 0 for no limit, negative is invalid
}

// Get returns the entry with the idempotency key, or ErrNotFound.
func (l *Ledger) Get(ctx context.Context, key string) (Entry, error) {
	return getEntry(ctx, l.db, l.sel, "key", key)
}

// GetByID returns the entry with the ULID id, or ErrNotFound.
func (l *Ledger) GetByID(ctx context.Context, id string) (Entry, error) {
	return getEntry(ctx, l.db, l.sel, "id", id)
}

// List returns the entries matching f, newest first (by CreatedAt, then ID).
// ErrInvalid for an unknown state or a negative limit.
func (l *Ledger) List(ctx context.Context, f Filter) ([]Entry, error) {
	if f.State != "" && !f.State.Valid() {
		return nil, fmt.Errorf("%w: filter state %q", ErrInvalid, f.State)
	}
	if f.Limit < 0 {
		return nil, fmt.Errorf("%w: filter limit %d", ErrInvalid, f.Limit)
	}
	var (
		where []string
		args  []any
	)
	if f.State != "" {
		where = append(where, "state = ?")
		args = append(args, string(f.State))
	}
	if f.RunID != "" {
		where = append(where, "run_id = ?")
		args = append(args, f.RunID)
	}
	q := l.sel
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created_at DESC, id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	return l.queryEntries(ctx, q, args...)
}

// Pending returns the entries still in state intent, oldest first: on start
// the committer resolves each (probe the site for a confirmation, then
// retry with the same key) before committing anything new.
func (l *Ledger) Pending(ctx context.Context) ([]Entry, error) {
	return l.queryEntries(ctx, l.sel+" WHERE state = ? ORDER BY created_at, id", string(StateIntent))
}

func (l *Ledger) queryEntries(ctx context.Context, q string, args ...any) ([]Entry, error) {
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: query entries: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("ledger: query entries: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: query entries: %w", err)
	}
	return out, nil
}

// History returns every transition of the entry with key, in order. The
// last one's Data is the entry as it is now. ErrNotFound for an unknown key.
func (l *Ledger) History(ctx context.Context, key string) ([]Transition, error) {
	rows, err := l.db.QueryContext(ctx, transitionSelect+" WHERE key = ? ORDER BY seq", key)
	if err != nil {
		return nil, fmt.Errorf("ledger: history %q: %w", key, err)
	}
	defer rows.Close()
	var out []Transition
	for rows.Next() {
		r, err := scanTransitionRow(rows)
		if err != nil {
			return nil, fmt.Errorf("ledger: history %q: %w", key, err)
		}
		t, err := r.transition()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: history %q: %w", key, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: key %q", ErrNotFound, key)
	}
	return out, nil
}

// Head returns the sequence number and hash of the last transition (0 and
// GenesisHash for an empty ledger). Recording the head elsewhere (in the
// event log at commit_end, say) anchors the chain: Verify alone cannot tell
// a tail that was cut or rewritten, with the entries rows to match, from a
// genuine shorter history.
func (l *Ledger) Head(ctx context.Context) (seq int64, hash string, err error) {
	return head(ctx, l.db)
}

// Transitions returns every transition of the ledger in seq order: the
// whole history, for audits that check it against another record (the
// anchors of finalize transitions against the event log). It does not
// verify the chain; use Verify for that.
func (l *Ledger) Transitions(ctx context.Context) ([]Transition, error) {
	return l.transitions(ctx, transitionSelect+" ORDER BY seq")
}

// TransitionAt returns the transition with sequence number seq, or
// ErrNotFound.
func (l *Ledger) TransitionAt(ctx context.Context, seq int64) (Transition, error) {
	ts, err := l.transitions(ctx, transitionSelect+" WHERE seq = ?", seq)
	if err != nil {
		return Transition{}, err
	}
	if len(ts) == 0 {
		return Transition{}, fmt.Errorf("%w: transition %d", ErrNotFound, seq)
	}
	return ts[0], nil
}

func (l *Ledger) transitions(ctx context.Context, q string, args ...any) ([]Transition, error) {
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: transitions: %w", err)
	}
	defer rows.Close()
	var out []Transition
	for rows.Next() {
		r, err := scanTransitionRow(rows)
		if err != nil {
			return nil, fmt.Errorf("ledger: transitions: %w", err)
		}
		t, err := r.transition()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: transitions: %w", err)
	}
	return out, nil
}
