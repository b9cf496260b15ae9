package commit

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// Trail reports whether a run's audit trail still holds: Err is nil while
// every event, the scrubbing key and every artifact the run produced were
// kept, and otherwise names the first that was lost. A commit must not
// outlive its audit trail: the committer sends nothing once Err is set.
type Trail interface {
	Err() error
}

// keptStore is the artifact store the committer's sessions write to. It
// remembers the first Put that failed, so evidence that was not kept
// stops the commit before its side effect.
type keptStore struct {
	store browser.Putter
	mu    sync.Mutex
	err   error
}

var _ browser.Putter = (*keptStore)(nil)

// Put stores data in the underlying store.
func (s *keptStore) Put(ctx context.Context, data []byte) (artifacts.Digest, error) {
	if s.store == nil {
		return "", errors.New("commit: no artifact store")
	}
	d, err := s.store.Put(ctx, data)
	if err != nil && ctx.Err() == nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
	}
	return d, err
}

func (s *keptStore) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// trailErr is the reason to refuse the side effect, if any: the run's
// trail failed, or an artifact of this commit was not kept.
func (c *Committer) trailErr(kept *keptStore) error {
	if c.Trail != nil {
		if err := c.Trail.Err(); err != nil {
			return fmt.Errorf("%w (nothing was sent): %w", ErrAuditTrail, err)
		}
	}
	if err := kept.failed(); err != nil {
		return fmt.Errorf("%w (nothing was sent): an artifact of the commit was not stored: %w", ErrAuditTrail, err)
	}
	return nil
}
