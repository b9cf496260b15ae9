package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// trail watches a run's audit trail for the committer: the event log's
// appends, the scrubbing key written to the data dir, and every artifact
// the run's in-process workers and mirror store. Its first failure sticks;
// the committer performs no side effect after one.
type trail struct {
	rec *recorder
	mu  sync.Mutex
	err error
}

var _ commit.Trail = (*trail)(nil)

// fail records a failure of the trail outside the event log.
func (t *trail) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
}

// Err implements commit.Trail.
func (t *trail) Err() error {
	if err := t.rec.failed(); err != nil {
		return fmt.Errorf("appending to the event log failed: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// store wraps the run's artifact store: a Put that fails, unless its
// caller gave up (a cancelled branch), breaks the trail.
func (t *trail) store(fs *artifacts.FS) browser.Putter { return trailStore{fs: fs, trail: t} }

type trailStore struct {
	fs    *artifacts.FS
	trail *trail
}

// Put stores data and reports a failure to the trail.
func (s trailStore) Put(ctx context.Context, data []byte) (artifacts.Digest, error) {
	d, err := s.fs.Put(ctx, data)
	if err != nil && ctx.Err() == nil {
		s.trail.fail(fmt.Errorf("an artifact was not stored: %w", err))
	}
	return d, err
}

// writeKey keeps the run's scrubbing key in DATA_DIR/keys: without it the
// run's tokens cannot be checked, so a failure breaks the trail.
func writeKey(dd, runID string, key []byte) error {
	if err := os.MkdirAll(filepath.Dir(scrub.KeyPath(dd, runID)), 0o700); err != nil {
		return fmt.Errorf("the scrubbing key was not written: %w", err)
	}
	if err := os.WriteFile(scrub.KeyPath(dd, runID), key, 0o600); err != nil {
		return fmt.Errorf("the scrubbing key was not written: %w", err)
	}
	return nil
}
