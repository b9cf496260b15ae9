package bus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/oklog/ulid/v2"
)

// QueueSubjects is the filter of the shared consumer: the jobs any worker
// may run, one subject token after the prefix (mv.jobs.<run_id>). Jobs
// routed to one worker carry a second token (mv.jobs.<run_id>.<route>), so
// the shared consumer and the per-worker route consumers never overlap, as
// a work-queue stream requires.
const QueueSubjects = jobsPrefix + "*"

// routeInactive is how long a route consumer outlives its worker: a
// worker that is gone for good leaves nothing behind for longer.
const routeInactive = 5 * time.Minute

// routedWait is how long a pull woken by the doorbell waits for the
// routed job: the core NATS doorbell can arrive before the stream stored
// the job.
const routedWait = 250 * time.Millisecond

// NewRoute returns a fresh route: a subject token that names one Work
// call.
func NewRoute() string { return strings.ToLower(ulid.Make().String()) }

// RouteMsgID is the Nats-Msg-Id of a job routed to one worker. It differs
// from [JobMsgID], so the same branch can still be queued for any worker
// when its route is withdrawn.
func RouteMsgID(runID, branchID string) string { return "route." + runID + "." + branchID }

// PublishRouted queues the job of one branch for the worker whose Work call
// has the given route (mv.jobs.<run_id>.<route>) and returns its stream
// sequence. Only that worker runs it; it takes the job as soon as a slot is
// free. Use it when the worker holds something that makes the job cheaper
// there (the parent branch's live browser context), and withdraw it with
// [Client.Unroute] if the worker does not claim it in time. Headers and ids
// are as for [Client.PublishJob].
func (c *Client) PublishRouted(ctx context.Context, runID, branchID, route string, data []byte, hdr nats.Header) (uint64, error) {
	if route == "" {
		return 0, fmt.Errorf("%w: empty route", ErrInvalidID)
	}
	return c.publishJob(ctx, runID, branchID, route, data, hdr)
}

// Unroute withdraws a routed job. It reports whether the job was still in
// the stream; false means its worker finished it. A job its worker is
// running is withdrawn too (its result still arrives), so callers withdraw
// only jobs no worker has claimed; a job claimed between the caller's last
// look and Unroute may run twice if the caller then queues it for any
// worker: results are de-duplicated by branch id.
func (c *Client) Unroute(ctx context.Context, seq uint64) (bool, error) {
	err := deleteMsg(ctx, c.jobs, seq)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrMsgNotFound), errors.Is(err, jetstream.ErrMsgDeleteUnsuccessful):
		return false, nil
	}
	return false, fmt.Errorf("bus: unroute job %d: %w", seq, err)
}

// routeConsumer creates or updates the durable consumer of the jobs routed
// to this Work call.
func (w *worker) routeConsumer(ctx context.Context) (jetstream.Consumer, error) {
	var cons jetstream.Consumer
	err := retryAPI(ctx, func(ctx context.Context) (err error) {
		cons, err = w.c.js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{
			Durable:           "mv-route-" + w.cfg.Route,
			Description:       "Multiverse jobs routed to one worker",
			FilterSubject:     jobsPrefix + "*." + w.cfg.Route,
			DeliverPolicy:     jetstream.DeliverAllPolicy,
			AckPolicy:         jetstream.AckExplicitPolicy,
			AckWait:           w.c.opts.ackWait,
			MaxDeliver:        w.c.opts.maxDeliver,
			InactiveThreshold: routeInactive,
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bus: work: route consumer %s: %w", w.cfg.Route, err)
	}
	return cons, nil
}

// signal is a context that ends, and is replaced by a fresh one, each
// time an event fires: a waiter takes the current one and stops waiting
// when it ends. The zero value is ready; stop ends the current one for
// good.
type signal struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
}

func (s *signal) fire() {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.ctx, s.cancel = ctx, cancel
}

func (s *signal) current() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		s.ctx, s.cancel = context.WithCancel(context.Background())
	}
	return s.ctx
}

func (s *signal) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}
