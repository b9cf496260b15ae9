package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// DefaultConsumer is the durable consumer name workers share.
	DefaultConsumer = "mv-workers"

	// fetchWait is how long one pull request for shared jobs waits.
	fetchWait = 20 * time.Second
	// finishTimeout bounds publishing the result and acking the job, which
	// happen even after Work's ctx ended.
	finishTimeout = 10 * time.Second
	// maxSlots bounds WorkerConfig.Slots.
	maxSlots = 256
	// maxRetryWait caps the pause between failed pulls.
	maxRetryWait = 2 * time.Second
)

// Handler runs one job and returns its result. It must honour ctx: ctx is
// cancelled when Work's ctx ends and, with cause [ErrRunCancelled], when the
// job's run is cancelled. A nil error means success and the returned bytes
// are published as the result (nil is a valid, empty result). A non-nil error
// means the job is redelivered after the backoff delay, up to MaxDeliver
// deliveries. A panic is recovered and treated as an error.
type Handler func(ctx context.Context, job Job) (result []byte, err error)

// WorkerConfig says how [Client.Work] pulls jobs. The zero value works: one
// job at a time from the shared durable consumer over every run's jobs.
type WorkerConfig struct {
	// Slots is how many jobs run at once (default 1, at most 256). Jobs
	// are pulled only for free slots, so a busy worker does not hold jobs
	// another worker could run; the exception is a shared job delivered
	// just as a routed job took its slot, which waits (heartbeated) for
	// this worker's next free slot rather than being delivered again.
	Slots int
	// Consumer is the durable consumer name (default "mv-workers"). Workers
	// that share it share the jobs; MV_JOBS is a work queue, so consumers
	// with overlapping subjects are refused by the server.
	Consumer string
	// Subject filters the jobs (default "mv.jobs.*", every run's shared
	// jobs). Every worker of one consumer must use the same Subject: the
	// last to start sets the consumer's filter. It must not overlap the
	// routed subjects mv.jobs.<run_id>.<route>.
	Subject string
	// Route names this Work call for jobs routed to it (see
	// [Client.PublishRouted]); default a fresh [NewRoute]. Each job's
	// [Job.Route] carries it, so a handler can tell the publisher where
	// to route follow-up jobs.
	Route string
}

// Work pulls jobs and runs h for each, up to cfg.Slots at once, until ctx
// ends; then it stops pulling, cancels the contexts of running handlers, waits
// for them to return and returns nil. It creates or updates the durable
// consumer (AckWait, MaxDeliver from the client options) and subscribes to
// control messages.
//
// For each job: while h runs, an in-progress heartbeat goes to the server
// every AckWait/3, so a long branch is not redelivered. When h succeeds, the
// result is published to mv.results.<run_id>, its store ack awaited, and only
// then the job acked, waiting for the server's confirmation (double ack); if
// the publish fails the job is redelivered. When h fails, the job is naked
// with the backoff delay (immediately on its last delivery, so the server
// reports it dead at once). When the run is cancelled, h's ctx is cancelled,
// the job is terminated at once and h's outcome is discarded. A job that
// cannot be decoded is terminated without running h.
//
// Work returns an error when the consumer cannot be set up, when cfg is
// invalid (wrapping [ErrInvalidConfig]) or when the client is closed under it.
// Transient failures (server restarts, timeouts) are logged and retried.
func (c *Client) Work(ctx context.Context, cfg WorkerConfig, h Handler) error {
	if h == nil {
		return fmt.Errorf("%w: nil handler", ErrInvalidConfig)
	}
	if cfg.Slots < 0 || cfg.Slots > maxSlots {
		return fmt.Errorf("%w: slots %d not in 0..%d", ErrInvalidConfig, cfg.Slots, maxSlots)
	}
	if cfg.Slots == 0 {
		cfg.Slots = 1
	}
	if cfg.Consumer == "" {
		cfg.Consumer = DefaultConsumer
	}
	if cfg.Subject == "" {
		cfg.Subject = QueueSubjects
	}
	if cfg.Route == "" {
		cfg.Route = NewRoute()
	}
	if err := validateID("route", cfg.Route); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	w := &worker{c: c, cfg: cfg, h: h, log: c.log.With("consumer", cfg.Consumer, "route", cfg.Route)}
	if err := w.ensureConsumer(ctx); err != nil {
		return err
	}
	if _, err := w.routeConsumer(ctx); err != nil {
		return err
	}
	bell, err := c.nc.Subscribe(jobsPrefix+"*."+cfg.Route, func(*nats.Msg) { w.bell.fire() })
	if err != nil {
		return fmt.Errorf("bus: work: subscribe route: %w", err)
	}
	defer func() { _ = bell.Unsubscribe() }()
	sub, err := c.nc.Subscribe(ControlSubjects, func(m *nats.Msg) {
		runID, err := decodeControl(m.Subject, m.Data)
		if err != nil {
			w.log.Warn("bus: ignoring control message", "err", err)
			return
		}
		w.log.Info("bus: run cancelled", "run_id", runID)
		c.cancelRun(runID)
	})
	if err != nil {
		return fmt.Errorf("bus: work: subscribe control: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()

	// Pull requests live on the server: after a reconnect (the server may
	// have restarted) they may be gone, so the dispatcher pulls again at
	// once instead of waiting for them to expire.
	defer w.epoch.stop()
	status := c.nc.StatusChanged(nats.CONNECTED)
	defer c.nc.RemoveStatusListener(status)
	go func() {
		for range status {
			w.epoch.fire()
		}
	}()

	// Announce this worker while it works, so an orchestrator with no
	// in-process workers knows someone is there.
	stopAnnounce := make(chan struct{})
	defer close(stopAnnounce)
	go c.announce(cfg.Slots, func() int { return int(w.busy.Load()) }, stopAnnounce)

	jobs := make(chan *delivery, cfg.Slots)
	freed := make(chan struct{}, cfg.Slots)
	var wg sync.WaitGroup
	for range cfg.Slots {
		wg.Go(func() {
			for job := range jobs {
				if ctx.Err() != nil {
					_ = job.Nak() // stopping: another worker runs it now
					continue
				}
				w.run(ctx, job)
				freed <- struct{}{}
			}
		})
	}
	err = w.dispatch(ctx, jobs, freed)
	close(jobs)
	wg.Wait()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("bus: work: %w", err)
	}
	return nil
}

// worker is the state of one Work call.
type worker struct {
	c   *Client
	cfg WorkerConfig
	h   Handler
	log *slog.Logger

	busy atomic.Int64 // jobs running now

	mu         sync.Mutex
	cons       jetstream.Consumer
	ackWait    time.Duration
	maxDeliver int

	epoch signal // fires when the connection is re-established
	bell  signal // fires when a job is routed here
}

// ensureConsumer creates or updates the durable consumer and records the
// AckWait and MaxDeliver the server actually uses.
func (w *worker) ensureConsumer(ctx context.Context) error {
	var cons jetstream.Consumer
	err := retryAPI(ctx, func(ctx context.Context) (err error) {
		cons, err = w.c.js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{
			Durable:       w.cfg.Consumer,
			Description:   "Multiverse workers",
			FilterSubject: w.cfg.Subject,
			DeliverPolicy: jetstream.DeliverAllPolicy,
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       w.c.opts.ackWait,
			MaxDeliver:    w.c.opts.maxDeliver,
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("bus: work: consumer %s: %w", w.cfg.Consumer, err)
	}
	info := cons.CachedInfo()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cons = cons
	w.ackWait = info.Config.AckWait
	if w.ackWait <= 0 || w.ackWait > w.c.opts.ackWait {
		w.ackWait = w.c.opts.ackWait
	}
	w.maxDeliver = info.Config.MaxDeliver
	return nil
}

func (w *worker) consumer() (jetstream.Consumer, time.Duration, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cons, w.ackWait, w.maxDeliver
}

// run executes one delivered job and settles it with the server.
func (w *worker) run(ctx context.Context, msg *delivery) {
	_, ackWait, maxDeliver := w.consumer()
	delivered, _ := msg.NumDelivered()
	job, err := decodeJob(msg.Subject(), msg.Headers(), msg.Data(), delivered)
	if err != nil {
		w.log.Error("bus: terminating malformed job", "err", err)
		_ = msg.TermWithReason("malformed job")
		return
	}
	job.Route = w.cfg.Route
	log := w.log.With("run_id", job.RunID, "branch_id", job.BranchID, "attempt", job.Attempt)
	w.c.claim(job)
	w.busy.Add(1)
	defer w.busy.Add(-1)

	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	f := &inflight{runID: job.RunID, cancel: cancel, cancelled: make(chan struct{})}
	if !w.c.track(f) {
		log.Info("bus: terminating job of cancelled run")
		_ = msg.TermWithReason("run cancelled")
		return
	}
	defer w.c.untrack(f)

	stop := make(chan struct{})
	done := make(chan struct{})
	go heartbeat(msg, ackWait/3, stop, f.cancelled, done, log)
	result, herr := callHandler(hctx, w.h, job)
	close(stop)
	<-done

	if errors.Is(context.Cause(hctx), ErrRunCancelled) {
		// Usually terminated by heartbeat already; this covers the race
		// where the handler returned first.
		if err := msg.TermWithReason("run cancelled"); err != nil && !errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			log.Warn("bus: terminating cancelled job", "err", err)
		}
		log.Info("bus: job of cancelled run stopped")
		return
	}
	// Settling uses its own deadline: it must happen even when ctx ended.
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer scancel()
	if herr != nil {
		switch {
		case ctx.Err() != nil:
			log.Info("bus: job interrupted by shutdown, releasing it", "err", herr)
			err = msg.Nak()
		case maxDeliver > 0 && job.Attempt >= maxDeliver:
			log.Warn("bus: job failed its last delivery", "err", herr)
			err = msg.Nak()
		default:
			delay := w.c.opts.backoffFor(job.Attempt)
			log.Warn("bus: job failed, will be redelivered", "err", herr, "delay", delay)
			err = msg.NakWithDelay(delay)
		}
		if err != nil {
			log.Warn("bus: nak", "err", err)
		}
		return
	}
	// The result is computed: keep trying to store it through a server
	// restart or a cluster election (heartbeating the job meanwhile) rather
	// than running the whole branch again.
	out := &nats.Msg{Subject: resultsPrefix + job.RunID, Data: result, Header: resultHeader(job)}
	if err := w.publishResult(ctx, msg, out, ackWait, log); err != nil {
		log.Error("bus: publishing result failed, job will be redelivered", "err", err)
		_ = msg.NakWithDelay(w.c.opts.backoffFor(job.Attempt))
		return
	}
	if err := msg.DoubleAck(sctx); err != nil {
		// The result is stored; the job may run again and the orchestrator
		// de-duplicates by branch id.
		log.Warn("bus: ack after result", "err", err)
	}
}

// resultPatience bounds how long a computed result is retried.
const resultPatience = 45 * time.Second

func (w *worker) publishResult(ctx context.Context, msg *delivery, out *nats.Msg, ackWait time.Duration, log *slog.Logger) error {
	deadline := time.Now().Add(resultPatience)
	wait := 200 * time.Millisecond
	lastBeat := time.Now()
	for {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		err := w.c.store(pctx, func(ctx context.Context) error {
			_, err := w.c.js.PublishMsg(ctx, out, jetstream.WithExpectStream(ResultsStream))
			return err
		})
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || w.c.nc.IsClosed() || errors.Is(err, ErrStorageFull) {
			return err
		}
		log.Warn("bus: storing the result, retrying", "err", err)
		if time.Since(lastBeat) > ackWait/3 {
			_ = msg.InProgress()
			lastBeat = time.Now()
		}
		time.Sleep(wait)
		wait = min(2*wait, 2*time.Second)
	}
}

// heartbeat tells the server the job is in progress every interval until
// stop is closed; when the run is cancelled it terminates the job at once.
func heartbeat(msg *delivery, interval time.Duration, stop, cancelled <-chan struct{}, done chan<- struct{}, log *slog.Logger) {
	defer close(done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-cancelled:
			if err := msg.TermWithReason("run cancelled"); err != nil {
				log.Warn("bus: terminating cancelled job", "err", err)
			}
			return
		case <-t.C:
			if err := msg.InProgress(); err != nil {
				log.Warn("bus: heartbeat", "err", err)
			}
		}
	}
}

// callHandler runs h and turns a panic into an error.
func callHandler(ctx context.Context, h Handler, job Job) (result []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bus: handler panicked: %v", r)
		}
	}()
	return h(ctx, job)
}
