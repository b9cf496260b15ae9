package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// Deep links name runs and branches as the CLI does: a full id, or a
// unique prefix of it in either case; a branch also by a prefix of the
// random part after its ULID's time (the branches of one run share that
// time) or by a suffix (the short form …9NGHT4DK).

// runParam resolves the run a request's path names.
func (s *Server) runParam(ctx context.Context, r *http.Request) (string, error) {
	id := r.PathValue("id")
	infos, err := s.events.Runs(ctx)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.RunID
	}
	return pick("run", id, ids, idMatchers[:1])
}

// branchParam resolves the branch of runID a request's path names.
func (s *Server) branchParam(ctx context.Context, r *http.Request, runID string) (string, error) {
	forks, err := s.events.Events(ctx, runID, eventlog.Query{Kinds: []string{eventlog.KindBranchFork}})
	if err != nil {
		return "", err
	}
	ids := make([]string, len(forks))
	for i, e := range forks {
		ids[i] = e.BranchID
	}
	return pick("branch", r.PathValue("bid"), ids, idMatchers)
}

// branchParams resolves the run and the branch a request's path names.
func (s *Server) branchParams(r *http.Request) (string, string, error) {
	runID, err := s.runParam(r.Context(), r)
	if err != nil {
		return "", "", err
	}
	branchID, err := s.branchParam(r.Context(), r, runID)
	return runID, branchID, err
}

// idMatchers are the ways a short id names a full one, tried in order: a
// prefix, a prefix of a ULID's random part, a suffix.
var idMatchers = []func(full, id string) bool{
	func(full, id string) bool { return hasPrefixFold(full, id) },
	func(full, id string) bool { return len(full) == 26 && hasPrefixFold(full[10:], id) },
	func(full, id string) bool {
		id = strings.TrimPrefix(id, "…")
		return len(full) >= len(id) && strings.EqualFold(full[len(full)-len(id):], id)
	},
}

// pick returns the id of ids that id names: itself when it is there,
// else the only match of the first matcher that matches any; none or
// several is ErrNotFound naming them.
func pick(what, id string, ids []string, matchers []func(full, id string) bool) (string, error) {
	if id == "" {
		return "", fmt.Errorf("%w: no %s id", ErrNotFound, what)
	}
	if slices.Contains(ids, id) {
		return id, nil
	}
	for _, match := range matchers {
		var hits []string
		for _, full := range ids {
			if match(full, id) {
				hits = append(hits, full)
			}
		}
		switch {
		case len(hits) == 1:
			return hits[0], nil
		case len(hits) > 5:
			hits = append(hits[:5], "…")
			fallthrough
		case len(hits) > 1:
			return "", fmt.Errorf("%w: %s %s names several: %s", ErrNotFound, what, id, strings.Join(hits, ", "))
		}
	}
	return "", fmt.Errorf("%w: no %s %s", ErrNotFound, what, id)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
