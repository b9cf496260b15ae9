package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// How ids typed on the command line are found: a run, branch or ledger
// entry is named by its full id or by any prefix of it that names no
// other (as git names commits), in either case, with or without the "…"
// tables print after a cut id; a branch also by the short form events
// print ("…" and its last characters), tried when no prefix matches. A
// prefix that names several is an *idError listing them, one that names
// none an *idError saying where the ids are listed; both are bad input
// (exit 2).

// maxListed is how many matches an ambiguous id lists.
const maxListed = 10

// idError reports an id that names no record, or more than one.
type idError struct {
	What    string   // "run", "branch", "ledger entry"
	ID      string   // as typed
	In      string   // where it was looked for: "run X", a file
	Matches []string // the ids it names, when more than one (at most maxListed)
	More    bool     // more than maxListed matched
	Next    string   // where the ids are listed: "`orchestrator runs` lists the runs"
}

func (e *idError) Error() string {
	if len(e.Matches) == 0 {
		return fmt.Sprintf("no %s %s in %s: %s", e.What, e.ID, e.In, e.Next)
	}
	more := ""
	if e.More {
		more = " and more"
	}
	return fmt.Sprintf("%s %s is ambiguous in %s: it names %s%s (give more of the id)", e.What, e.ID, e.In, strings.Join(e.Matches, ", "), more)
}

// Unwrap makes every idError bad input (exit 2).
func (e *idError) Unwrap() error { return orchestrator.ErrBadInput }

// matchesOf returns the id error for found (nil when it holds exactly one).
func matchesOf(e *idError, found []string) error {
	switch {
	case len(found) == 1:
		return nil
	case len(found) > maxListed:
		e.Matches, e.More = found[:maxListed], true
	default:
		e.Matches = found
	}
	return e
}

// resolveRun returns the run id that id names in the event log.
func resolveRun(ctx context.Context, l *eventlog.Log, id string) (string, error) {
	found, err := l.RunIDs(ctx, cutID(id), maxListed+1)
	if err != nil {
		return "", err
	}
	if err := matchesOf(&idError{What: "run", ID: id, In: l.Path(), Next: "`orchestrator runs` lists the runs"}, found); err != nil {
		return "", err
	}
	return found[0], nil
}

// resolveBranch returns the branch id names: in run, or in any run when
// run is "". A prefix is tried first, then (in a run) a prefix of the
// random part after the id's time, then a suffix ("…" forces a suffix),
// so the short form events print names its branch.
func resolveBranch(ctx context.Context, l *eventlog.Log, run, id string) (eventlog.BranchRef, error) {
	e := &idError{What: "branch", ID: id, In: "run " + run, Next: "`orchestrator events " + run + "` lists its branches"}
	if run == "" {
		e.In, e.Next = "any run of "+l.Path(), "`orchestrator events RUN` lists a run's branches"
	}
	var refs []eventlog.BranchRef
	var err error
	suffix, isShort := strings.CutPrefix(id, "…")
	if !isShort {
		if refs, err = l.BranchIDs(ctx, run, id, maxListed+1); err != nil {
			return eventlog.BranchRef{}, err
		}
	}
	if len(refs) == 0 && !isShort && run != "" {
		// Within a run the ids share their time: the random part after
		// it tells them apart.
		if refs, err = l.BranchIDsRandom(ctx, run, id, maxListed+1); err != nil {
			return eventlog.BranchRef{}, err
		}
	}
	if len(refs) == 0 {
		if refs, err = l.BranchIDsEnding(ctx, run, suffix, maxListed+1); err != nil {
			return eventlog.BranchRef{}, err
		}
	}
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.BranchID
		if run == "" {
			names[i] = r.BranchID + " (run " + r.RunID + ")"
		}
	}
	if len(names) == 0 && run == "" {
		// A run id where a branch was wanted: say so.
		if runs, err := l.RunIDs(ctx, cutID(id), 2); err == nil && len(runs) == 1 {
			e.Next = fmt.Sprintf("%s is a run: `orchestrator events %s` lists its branches", id, runs[0])
		}
	}
	if err := matchesOf(e, names); err != nil {
		return eventlog.BranchRef{}, err
	}
	return refs[0], nil
}

// resolveEntry returns the ledger entry id names: its full id or key, a
// prefix of its id, or a prefix of the run that made it.
func resolveEntry(ctx context.Context, l *ledger.Ledger, id string) (ledger.Entry, error) {
	if e, err := l.GetByID(ctx, id); err == nil {
		return e, nil
	}
	if e, err := l.Get(ctx, id); err == nil {
		return e, nil
	}
	all, err := l.List(ctx, ledger.Filter{})
	if err != nil {
		return ledger.Entry{}, err
	}
	id = cutID(id)
	up := strings.ToUpper(id)
	var hits []ledger.Entry
	var names []string
	for _, e := range all {
		if id != "" && (hasPrefixFold(e.ID, id, up) || hasPrefixFold(e.RunID, id, up)) {
			hits = append(hits, e)
			names = append(names, e.ID)
		}
	}
	if err := matchesOf(&idError{What: "ledger entry", ID: id, In: l.Path(), Next: "`orchestrator ledger list` lists the entries"}, names); err != nil {
		return ledger.Entry{}, err
	}
	return hits[0], nil
}

// hasPrefixFold: s starts with p as typed or upper-cased (up).
func hasPrefixFold(s, p, up string) bool {
	return strings.HasPrefix(s, p) || strings.HasPrefix(s, up)
}

// cutID is the prefix an id cut as tables print it names
// ("01M8A3QGCH0Y…" names the runs starting with 01M8A3QGCH0Y).
func cutID(id string) string { return strings.TrimSuffix(id, "…") }
