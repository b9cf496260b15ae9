package bus

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// cancelCommand is the payload of a cancel control message.
const cancelCommand = "cancel"

// flushTimeout bounds the flush of a control message when ctx has no deadline.
const flushTimeout = 5 * time.Second

// purgePatience bounds Cancel's purge of a run's jobs when the caller's
// context has no deadline: long enough to outlast a stream leader's
// election, short enough that a run ends when the cluster is gone.
const purgePatience = 20 * time.Second

// Cancel stops the run's jobs everywhere, now. It publishes "cancel" on
// mv.control.<run_id> (core NATS) and flushes it to the server; every worker
// subscribed through [Client.Work] cancels the contexts of the run's running
// handlers with cause [ErrRunCancelled] and terminates their jobs, and for
// the next 10 minutes terminates any job of the run it receives instead of
// running it. Then Cancel purges the
// run's jobs from MV_JOBS, so nothing queued starts. Results already stored
// stay in MV_RESULTS. Cancel is idempotent; an error means the cancel message
// or the purge may not have reached the server, and Cancel can be retried.
func (c *Client) Cancel(ctx context.Context, runID string) error {
	if err := validateID("run", runID); err != nil {
		return err
	}
	// Workers of this very client stop without waiting for the round trip.
	c.cancelRun(runID)
	if err := c.nc.Publish(controlPrefix+runID, []byte(cancelCommand)); err != nil {
		return fmt.Errorf("bus: cancel %s: %w", runID, err)
	}
	fctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(ctx, flushTimeout)
		defer cancel()
	}
	if err := c.nc.FlushWithContext(fctx); err != nil {
		return fmt.Errorf("bus: cancel %s: flush: %w", runID, err)
	}
	pctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, purgePatience)
		defer cancel()
	}
	for _, subj := range runJobSubjects(runID) {
		err := retryWhile(pctx, unanswered, func(ctx context.Context) error {
			return c.jobs.Purge(ctx, jetstream.WithPurgeSubject(subj))
		})
		if err != nil {
			return fmt.Errorf("bus: cancel %s: purge jobs: %w", runID, err)
		}
	}
	return nil
}

// decodeControl parses a control message and returns the run it cancels.
func decodeControl(subject string, data []byte) (string, error) {
	runID, ok := strings.CutPrefix(subject, controlPrefix)
	if !ok || validateID("run", runID) != nil {
		return "", &DecodeError{Kind: "control", Subject: subject, Reason: "subject is not mv.control.<run_id>"}
	}
	if string(data) != cancelCommand {
		return "", &DecodeError{Kind: "control", Subject: subject, Reason: fmt.Sprintf("unknown command %.32q", data)}
	}
	return runID, nil
}

// inflight is one job a handler of this client is running.
type inflight struct {
	runID     string
	cancel    context.CancelCauseFunc
	cancelled chan struct{} // closed when the run is cancelled
}

// track registers a running job. It returns false, registering nothing, when
// the run was already cancelled.
func (c *Client) track(f *inflight) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isCancelledLocked(f.runID) {
		return false
	}
	if c.running == nil {
		c.running = make(map[string]map[*inflight]struct{})
	}
	set := c.running[f.runID]
	if set == nil {
		set = make(map[*inflight]struct{})
		c.running[f.runID] = set
	}
	set[f] = struct{}{}
	return true
}

// untrack removes a job registered with track.
func (c *Client) untrack(f *inflight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.running[f.runID]
	delete(set, f)
	if len(set) == 0 {
		delete(c.running, f.runID)
	}
}

// cancelRun marks the run cancelled and cancels its running handlers.
func (c *Client) cancelRun(runID string) {
	c.markCancelled(runID)
	c.mu.Lock()
	defer c.mu.Unlock()
	for f := range c.running[runID] {
		f.cancel(ErrRunCancelled)
		close(f.cancelled)
	}
	delete(c.running, runID)
}
