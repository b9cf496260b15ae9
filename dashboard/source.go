package dashboard

import (
	"context"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// Stores are the records the dashboard shows: a data dir's stores, opened
// read-only by the caller (who closes them), or one bundle. The zero
// value shows nothing.
type Stores struct {
	// Events is the data dir's event log. Required unless Bundle is set.
	Events *eventlog.Log
	// Ledger is the commit ledger, nil when the data dir has none.
	Ledger *ledger.Ledger
	// Artifacts is the artifact store, nil when the data dir has none.
	Artifacts *artifacts.FS
	// DataDir is where the evidence key lives (ledger verification
	// decrypts sealed evidence with it when it is there).
	DataDir string
	// Bundle, when set, is shown instead of a data dir: its run with the
	// branches it holds, its files as artifacts.
	Bundle *bundle.Bundle
}

// records is the part of an event log the dashboard reads; *eventlog.Log
// and bundleRecords have it.
type records interface {
	Runs(ctx context.Context) ([]eventlog.RunInfo, error)
	Events(ctx context.Context, runID string, q eventlog.Query) ([]eventlog.Event, error)
}

// artifactGetter returns an artifact's bytes; *artifacts.FS and
// bundleFiles have it.
type artifactGetter interface {
	Get(ctx context.Context, d artifacts.Digest) ([]byte, error)
}

var (
	_ records        = (*eventlog.Log)(nil)
	_ records        = bundleRecords{}
	_ artifactGetter = (*artifacts.FS)(nil)
	_ artifactGetter = bundleFiles{}
)

// bundleRecords serves a bundle's events as a one-run log.
type bundleRecords struct{ b *bundle.Bundle }

func (r bundleRecords) Runs(context.Context) ([]eventlog.RunInfo, error) {
	es := r.b.Events
	if len(es) == 0 {
		return []eventlog.RunInfo{}, nil
	}
	last := es[len(es)-1]
	return []eventlog.RunInfo{{RunID: r.b.Manifest.RunID, Events: int64(len(es)), First: es[0].Time, Last: last.Time, LastKind: last.Kind}}, nil
}

func (r bundleRecords) Events(_ context.Context, runID string, q eventlog.Query) ([]eventlog.Event, error) {
	if runID != r.b.Manifest.RunID {
		return nil, fmt.Errorf("%w: %s", eventlog.ErrRunNotFound, runID)
	}
	kinds := map[string]bool{}
	for _, k := range q.Kinds {
		kinds[k] = true
	}
	out := []eventlog.Event{}
	for _, e := range r.b.Events {
		if e.Seq <= q.AfterSeq || (q.BranchID != "" && e.BranchID != q.BranchID) || (len(kinds) > 0 && !kinds[e.Kind]) {
			continue
		}
		if out = append(out, e); q.Limit > 0 && len(out) == q.Limit {
			break
		}
	}
	return out, nil
}

// bundleFiles serves a bundle's files by their sha256.
type bundleFiles map[artifacts.Digest][]byte

func newBundleFiles(b *bundle.Bundle) bundleFiles {
	m := bundleFiles{}
	for _, data := range b.Files {
		m[artifacts.Sum(data)] = data
	}
	return m
}

func (f bundleFiles) Get(_ context.Context, d artifacts.Digest) ([]byte, error) {
	data, ok := f[d]
	if !ok {
		return nil, fmt.Errorf("%w: %s", artifacts.ErrNotFound, d)
	}
	return data, nil
}
