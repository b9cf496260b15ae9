package main

import (
	"context"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// branchBySuffix finds the branch of a run whose id ends with id (the
// short form events print, "…" included or not). No such branch, or more
// than one, is bad input. The caller has verified the run's log (auditRun).
func branchBySuffix(ctx context.Context, l *eventlog.Log, runID, id string) (string, error) {
	all, err := l.Events(ctx, runID, eventlog.Query{})
	if err != nil {
		return "", err
	}
	suffix := strings.TrimPrefix(id, "…")
	seen := map[string]bool{}
	var found []string
	for _, e := range all {
		if e.BranchID != "" && !seen[e.BranchID] && suffix != "" && strings.HasSuffix(e.BranchID, suffix) {
			seen[e.BranchID] = true
			found = append(found, e.BranchID)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	if len(found) > 1 {
		sort.Strings(found)
		return "", badInput("run %s has %d branches ending in %s: %s", runID, len(found), suffix, strings.Join(found, ", "))
	}
	return "", badInput("run %s has no branch %s (orchestrator events %s names its branches)", runID, id, runID)
}
