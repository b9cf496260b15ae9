package commit

import (
	"context"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// Anchorer gives the head of the committing run's event log: the seq and
// hash of its last event, with every event recorded so far durable. The
// committer records it in the ledger row it finalizes, so an audit can
// check each store against the other (the event log's commit_end records
// the ledger's head in turn).
type Anchorer interface {
	Anchor(ctx context.Context) (ledger.Anchor, error)
}

// finalize records the outcome of the intent with key, anchored to the
// event log when the committer has an Anchorer. A head that cannot be read
// does not stop the finalization (the side effect already happened and
// the row must say so); the row then has no anchor, which an audit
// reports, and the error is recorded as an event.
func (c *Committer) finalize(ctx context.Context, key string, out ledger.Outcome) (ledger.Entry, error) {
	if c.Anchor != nil {
		a, err := c.Anchor.Anchor(ctx)
		if err != nil {
			c.Events.Record(ctx, eventlog.KindError, "", map[string]any{"where": "commit", "error": "reading the event log head to anchor the ledger row: " + err.Error()})
		} else {
			out.Anchor = &a
		}
	}
	return c.Ledger.Finalize(ctx, key, out)
}
