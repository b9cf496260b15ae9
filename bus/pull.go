package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// A pull request cannot be withdrawn: the server delivers to it until it
// is filled or expires, and a job delivered to a request its worker gave
// up on is only redelivered after AckWait. So a Work call keeps one inbox
// subscription for all its pull requests while it runs, asks for no more
// jobs than it has free slots, and takes every job that arrives: one for
// which no slot is free any more (a routed job took it) waits in the
// worker, heartbeated, for the next free slot; when Work ends, jobs not
// started are released at once.

// pullRequest is the body of a JetStream pull request.
type pullRequest struct {
	Batch   int           `json:"batch"`
	Expires time.Duration `json:"expires,omitempty"`
	NoWait  bool          `json:"no_wait,omitempty"`
}

// pull is a pull request the server may still answer.
type pull struct {
	seq    int
	routed bool
	left   int       // jobs it may still deliver
	until  time.Time // forgotten after this if the server never ends it
}

// pullGrace is how long past its expiry an unanswered pull is awaited.
const pullGrace = 2 * time.Second

// dispatcher pulls the jobs of one Work call and hands them to its slots.
type dispatcher struct {
	w     *worker
	jobs  chan<- *delivery // buffered to the slot count: handing never blocks
	inbox string           // pull requests reply to inbox.<n>
	msgs  chan *nats.Msg
	seq   int
	pulls map[string]*pull

	idle       int         // slots with nothing to run
	shared     int         // jobs the shared pulls may still deliver
	routedOut  bool        // a pull of routed jobs is out: shared pulls wait for it
	lookRouted bool        // a slot freed or the doorbell rang since the last routed pull
	rang       bool        // the doorbell rang: wait briefly for the job to be stored
	held       []*delivery // delivered with no free slot
	retryAt    time.Time   // no pull before this, after a failed one
	retry      time.Duration
}

// dispatch pulls jobs for the slots until ctx ends, then releases the jobs
// no slot started. It returns an error when it cannot subscribe or the
// connection is closed.
func (w *worker) dispatch(ctx context.Context, jobs chan<- *delivery, freed <-chan struct{}) error {
	d := &dispatcher{w: w, jobs: jobs, inbox: w.c.nc.NewInbox(), msgs: make(chan *nats.Msg, 64),
		pulls: map[string]*pull{}, idle: w.cfg.Slots, lookRouted: true, retry: 100 * time.Millisecond}
	stopped := make(chan struct{})
	sub, err := w.c.nc.Subscribe(d.inbox+".*", func(m *nats.Msg) {
		select {
		case d.msgs <- m:
		case <-stopped:
			d.release(m)
		}
	})
	if err != nil {
		return fmt.Errorf("subscribe pull inbox: %w", err)
	}
	defer d.stop(sub, stopped)
	_, ackWait, _ := w.consumer()
	tick := time.NewTicker(min(ackWait/3, time.Second))
	defer tick.Stop()
	for {
		for d.idle > 0 && len(d.held) > 0 {
			d.hand(d.held[0])
			d.held = d.held[1:]
		}
		if ctx.Err() != nil {
			return nil
		}
		if w.c.nc.IsClosed() {
			return nats.ErrConnectionClosed
		}
		d.ask()
		bell, epoch := w.bell.current(), w.epoch.current()
		select {
		case <-ctx.Done():
		case <-freed:
			d.idle++
			d.lookRouted = true
		case <-bell.Done():
			d.lookRouted, d.rang = true, true
		case <-epoch.Done():
			// Reconnected: the server may have lost the pulls. Pull
			// again; a job still delivered to an old one is held.
			clear(d.pulls)
			d.shared, d.routedOut, d.lookRouted = 0, false, true
		case m := <-d.msgs:
			d.receive(ctx, m)
		case <-tick.C:
			d.tick()
		}
	}
}

// ask sends the pull requests the free slots call for: jobs routed here
// first, then shared ones for the slots no pull covers yet.
func (d *dispatcher) ask() {
	if time.Now().Before(d.retryAt) || d.routedOut {
		return
	}
	if d.idle > 0 && d.lookRouted {
		req := pullRequest{Batch: d.idle, NoWait: true}
		if d.rang {
			// The doorbell can ring before the stream stored the job.
			req = pullRequest{Batch: d.idle, Expires: routedWait}
		}
		if d.request("mv-route-"+d.w.cfg.Route, req, true) {
			d.routedOut, d.lookRouted, d.rang = true, false, false
		}
		return
	}
	if n := d.idle - d.shared; n > 0 {
		if d.request(d.w.cfg.Consumer, pullRequest{Batch: n, Expires: fetchWait}, false) {
			d.shared += n
		}
	}
}

func (d *dispatcher) request(consumer string, req pullRequest, routed bool) bool {
	d.seq++
	reply := d.inbox + "." + strconv.Itoa(d.seq)
	body, _ := json.Marshal(req)
	subject := "$JS.API.CONSUMER.MSG.NEXT." + JobsStream + "." + consumer
	if err := d.w.c.nc.PublishRequest(subject, reply, body); err != nil {
		d.w.log.Warn("bus: pulling jobs", "err", err)
		d.backOff()
		return false
	}
	d.pulls[reply] = &pull{seq: d.seq, routed: routed, left: req.Batch, until: time.Now().Add(req.Expires + pullGrace)}
	d.w.log.Debug("bus: pull", "consumer", consumer, "reply", reply, "batch", req.Batch, "expires", req.Expires, "idle", d.idle, "shared", d.shared)
	return true
}

// receive takes a job or a status that ends a pull.
func (d *dispatcher) receive(ctx context.Context, m *nats.Msg) {
	p := d.pulls[m.Subject]
	if m.Reply == "" { // a status, not a job
		status := m.Header.Get("Status")
		d.w.log.Debug("bus: pull status", "reply", m.Subject, "status", status, "desc", m.Header.Get("Description"), "known", p != nil)
		if p == nil || status == "100" { // idle heartbeat
			return
		}
		d.end(m.Subject, p)
		// Look at the routed jobs again before the next shared pull
		// when a routed pull failed, and when a shared one expired: so
		// an idle worker's route consumer sees a pull every fetchWait
		// and stays alive.
		switch status {
		case "404", "408": // no job, or the pull expired
			d.retry = 100 * time.Millisecond
			d.lookRouted = d.lookRouted || !p.routed
			return
		}
		d.lookRouted = d.lookRouted || p.routed
		desc := m.Header.Get("Description")
		d.w.log.Warn("bus: pulling jobs", "status", status, "description", desc)
		if status == "503" || strings.Contains(desc, "Consumer Deleted") {
			d.recreate(ctx, p.routed)
		}
		d.backOff()
		return
	}
	// A job comes on its own subject: it counts against the oldest pull
	// of its consumer, as the server serves pulls in order.
	routed := strings.Contains(m.Reply, ".mv-route-"+d.w.cfg.Route+".")
	if reply, p := d.oldest(routed); p != nil {
		p.left--
		if !routed {
			d.shared--
		}
		if p.left == 0 {
			d.end(reply, p)
		}
	}
	job := &delivery{msg: m, nc: d.w.c.nc, beat: time.Now()}
	d.w.log.Debug("bus: job delivered", "reply", m.Subject, "ack", m.Reply, "idle", d.idle)
	if d.idle > 0 {
		d.hand(job)
		return
	}
	d.held = append(d.held, job)
}

// oldest returns the oldest pull of routed or shared jobs.
func (d *dispatcher) oldest(routed bool) (string, *pull) {
	var reply string
	var first *pull
	for r, p := range d.pulls {
		if p.routed == routed && (first == nil || p.seq < first.seq) {
			reply, first = r, p
		}
	}
	return reply, first
}

// end forgets a pull the server will not answer any more.
func (d *dispatcher) end(reply string, p *pull) {
	delete(d.pulls, reply)
	if p.routed {
		d.routedOut = false
		return
	}
	d.shared -= p.left
}

func (d *dispatcher) hand(job *delivery) {
	d.jobs <- job
	d.idle--
}

// tick forgets pulls the server never ended and heartbeats held jobs.
func (d *dispatcher) tick() {
	now := time.Now()
	for reply, p := range d.pulls {
		if now.After(p.until) {
			d.end(reply, p)
		}
	}
	_, ackWait, _ := d.w.consumer()
	for _, job := range d.held {
		if now.Sub(job.beat) >= ackWait/3 {
			_ = job.InProgress()
			job.beat = now
		}
	}
}

func (d *dispatcher) backOff() {
	d.retryAt = time.Now().Add(d.retry)
	d.retry = min(2*d.retry, maxRetryWait)
}

// recreate sets up a consumer the server lost.
func (d *dispatcher) recreate(ctx context.Context, routed bool) {
	var err error
	if routed {
		_, err = d.w.routeConsumer(ctx)
	} else {
		err = d.w.ensureConsumer(ctx)
	}
	if err != nil {
		d.w.log.Error("bus: recreating consumer", "err", err)
	}
}

// stop releases the held jobs and every job still delivered to a pull of
// this Work call, until the server has seen its interest go.
func (d *dispatcher) stop(sub *nats.Subscription, stopped chan struct{}) {
	close(stopped)
	for _, job := range d.held {
		_ = job.Nak()
	}
	closed := sub.StatusChanged(nats.SubscriptionClosed)
	if sub.Drain() == nil {
		select {
		case <-closed:
		case <-time.After(finishTimeout):
		}
	}
	for {
		select {
		case m := <-d.msgs:
			d.release(m)
		default:
			return
		}
	}
}

// release hands a job no slot will run back to the server at once.
func (d *dispatcher) release(m *nats.Msg) {
	if m.Reply != "" {
		job := &delivery{msg: m, nc: d.w.c.nc}
		_ = job.Nak()
	}
}
