package eventlog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// BranchRef names one branch of one run.
type BranchRef struct {
	RunID    string
	BranchID string
}

// RunIDs returns the run ids that start with prefix, sorted, at most limit
// of them (all when limit <= 0). Ids are matched as given and upper-cased,
// so a ULID prefix typed in lower case finds its run. An empty prefix
// matches nothing. Each form is one range scan of the runs table's
// primary key.
func (l *Log) RunIDs(ctx context.Context, prefix string, limit int) ([]string, error) {
	if err := l.checkOpen("run ids"); err != nil {
		return nil, err
	}
	found := newIDSet(limit)
	for _, p := range prefixForms(prefix) {
		lo, hi := prefixRange(p)
		q := `SELECT run_id FROM runs WHERE run_id >= ?`
		args := []any{lo}
		if hi != "" {
			q += ` AND run_id < ?`
			args = append(args, hi)
		}
		if err := l.collect(ctx, found, q+` ORDER BY run_id`+limitClause(limit), args, nil); err != nil {
			return nil, fmt.Errorf("eventlog: run ids %q: %w", prefix, err)
		}
	}
	return found.runs(), nil
}

// BranchIDs returns the branches whose id starts with prefix, sorted by
// run then branch, at most limit of them (all when limit <= 0): of runID,
// or of every run when runID is "". Ids are matched as given and
// upper-cased, as RunIDs does. Each run costs one range scan of the
// events_by_branch index, whatever the size of its log.
func (l *Log) BranchIDs(ctx context.Context, runID, prefix string, limit int) ([]BranchRef, error) {
	runs, err := l.runsToSearch(ctx, runID)
	if err != nil {
		return nil, err
	}
	found := newIDSet(limit)
	for _, run := range runs {
		for _, p := range prefixForms(prefix) {
			lo, hi := prefixRange(p)
			q := `SELECT DISTINCT branch_id FROM events WHERE run_id = ? AND branch_id >= ?`
			args := []any{run, lo}
			if hi != "" {
				q += ` AND branch_id < ?`
				args = append(args, hi)
			}
			q += ` AND branch_id != '' ORDER BY branch_id` + limitClause(limit)
			if err := l.collect(ctx, found, q, args, &run); err != nil {
				return nil, fmt.Errorf("eventlog: branch ids %q of run %s: %w", prefix, run, err)
			}
		}
		if found.full() {
			break
		}
	}
	return found.branches(), nil
}

// allRunIDs lists every run id, sorted.
func (l *Log) allRunIDs(ctx context.Context) ([]string, error) {
	found := newIDSet(0)
	if err := l.collect(ctx, found, `SELECT run_id FROM runs ORDER BY run_id`, nil, nil); err != nil {
		return nil, fmt.Errorf("eventlog: run ids: %w", err)
	}
	return found.runs(), nil
}

// collect adds the ids q selects to found: run ids when run is nil, else
// branch ids of *run.
func (l *Log) collect(ctx context.Context, found *idSet, q string, args []any, run *string) error {
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() && !found.full() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		if run == nil {
			found.add(BranchRef{RunID: id})
		} else {
			found.add(BranchRef{RunID: *run, BranchID: id})
		}
	}
	return rows.Err()
}

// prefixForms are the forms of prefix looked up: as given and, when it
// differs, upper-cased (ULIDs are upper case; people type them in both).
func prefixForms(prefix string) []string {
	if prefix == "" {
		return nil
	}
	if up := strings.ToUpper(prefix); up != prefix {
		return []string{prefix, up}
	}
	return []string{prefix}
}

// prefixRange returns the half-open range [lo, hi) of the strings that
// start with p in SQLite's binary order; hi is "" when there is no upper
// bound (p is all 0xff bytes).
func prefixRange(p string) (lo, hi string) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return p, string(b[:i+1])
		}
	}
	return p, ""
}

func limitClause(limit int) string {
	if limit <= 0 {
		return ""
	}
	return fmt.Sprintf(" LIMIT %d", limit)
}

// idSet collects distinct refs in the order found, up to a limit.
type idSet struct {
	limit int
	seen  map[BranchRef]bool
	list  []BranchRef
}

func newIDSet(limit int) *idSet { return &idSet{limit: limit, seen: map[BranchRef]bool{}} }

func (s *idSet) full() bool { return s.limit > 0 && len(s.list) >= s.limit }

func (s *idSet) add(r BranchRef) {
	if !s.seen[r] && !s.full() {
		s.seen[r] = true
		s.list = append(s.list, r)
	}
}

func (s *idSet) runs() []string {
	out := make([]string, len(s.list))
	for i, r := range s.list {
		out[i] = r.RunID
	}
	slices.Sort(out)
	return out
}

func (s *idSet) branches() []BranchRef {
	out := slices.Clone(s.list)
	slices.SortFunc(out, func(a, b BranchRef) int {
		return cmp.Or(cmp.Compare(a.RunID, b.RunID), cmp.Compare(a.BranchID, b.BranchID))
	})
	return out
}

// BranchIDsEnding returns the branches whose id ends with suffix, as
// BranchIDs does for a prefix: the short form "…" + last characters that
// the CLI prints. It reads each run's part of the events_by_branch index.
func (l *Log) BranchIDsEnding(ctx context.Context, runID, suffix string, limit int) ([]BranchRef, error) {
	runs, err := l.runsToSearch(ctx, runID)
	if err != nil {
		return nil, err
	}
	found := newIDSet(limit)
	for _, run := range runs {
		for _, s := range prefixForms(suffix) {
			q := `SELECT DISTINCT branch_id FROM events WHERE run_id = ? AND branch_id != '' AND substr(branch_id, -?) = ? ORDER BY branch_id` + limitClause(limit)
			if err := l.collect(ctx, found, q, []any{run, utf8.RuneCountInString(s), s}, &run); err != nil {
				return nil, fmt.Errorf("eventlog: branch ids ending in %q of run %s: %w", suffix, run, err)
			}
		}
		if found.full() {
			break
		}
	}
	return found.branches(), nil
}

// BranchIDsRandom returns the ids of branches whose random part (the 16
// characters after a ULID's 10-character time) starts with part: the ids
// of one run share their time prefix, so the random part is what tells
// them apart. runID and limit are as for BranchIDs.
func (l *Log) BranchIDsRandom(ctx context.Context, runID, part string, limit int) ([]BranchRef, error) {
	runs, err := l.runsToSearch(ctx, runID)
	if err != nil {
		return nil, err
	}
	found := newIDSet(limit)
	for _, run := range runs {
		for _, p := range prefixForms(part) {
			q := `SELECT DISTINCT branch_id FROM events WHERE run_id = ? AND length(branch_id) = 26 AND substr(branch_id, 11, ?) = ? ORDER BY branch_id` + limitClause(limit)
			if err := l.collect(ctx, found, q, []any{run, utf8.RuneCountInString(p), p}, &run); err != nil {
				return nil, fmt.Errorf("eventlog: branch ids with random part %q of run %s: %w", part, run, err)
			}
		}
		if found.full() {
			break
		}
	}
	return found.branches(), nil
}

// runsToSearch is runID alone, or every run when it is "".
func (l *Log) runsToSearch(ctx context.Context, runID string) ([]string, error) {
	if err := l.checkOpen("branch ids"); err != nil {
		return nil, err
	}
	if runID != "" {
		return []string{runID}, nil
	}
	return l.allRunIDs(ctx)
}
