package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Presence and claims are core NATS messages (not persisted): they say
// what is happening now, and missing one is harmless.
const (
	// presenceSubject carries worker heartbeats.
	presenceSubject = "mv.presence"
	// claimsPrefix carries delivery claims: mv.claims.<run_id>.
	claimsPrefix = "mv.claims."
	// PresenceInterval is how often a working client announces itself.
	PresenceInterval = 2 * time.Second
)

// Presence is a worker's heartbeat.
type Presence struct {
	Worker string    `json:"worker"`
	Slots  int       `json:"slots"`
	Busy   int       `json:"busy"`
	At     time.Time `json:"at"`
}

// Claim says a worker started a delivery of a branch job. A result whose
// attempt is lower than a later claim of the same branch is stale: its job
// was redelivered (the worker stalled past AckWait) and another worker owns
// it now.
type Claim struct {
	RunID    string `json:"run_id"`
	BranchID string `json:"branch_id"`
	Attempt  int    `json:"attempt"`
	Worker   string `json:"worker"`
}

func (c *Client) announce(slots int, busy func() int, stop <-chan struct{}) {
	t := time.NewTicker(PresenceInterval)
	defer t.Stop()
	for {
		b, _ := json.Marshal(Presence{Worker: c.opts.name, Slots: slots, Busy: busy(), At: time.Now().UTC()})
		c.nc.Publish(presenceSubject, b)
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

func (c *Client) claim(job Job) {
	b, _ := json.Marshal(Claim{RunID: job.RunID, BranchID: job.BranchID, Attempt: job.Attempt, Worker: c.opts.name})
	// No flush: the claim leaves on this connection before the result it
	// precedes, and the server keeps one connection's messages in order.
	c.nc.Publish(claimsPrefix+job.RunID, b)
}

// Workers tracks the workers whose heartbeats arrived recently.
type Workers struct {
	sub *nats.Subscription
	mu  sync.Mutex
	all map[string]Presence
}

// WatchWorkers subscribes to worker heartbeats until Close.
func (c *Client) WatchWorkers(ctx context.Context) (*Workers, error) {
	w := &Workers{all: map[string]Presence{}}
	sub, err := c.nc.Subscribe(presenceSubject, func(m *nats.Msg) {
		var p Presence
		if json.Unmarshal(m.Data, &p) != nil || p.Worker == "" {
			return
		}
		p.At = time.Now() // the receiver's clock decides liveness
		w.mu.Lock()
		w.all[p.Worker] = p
		w.mu.Unlock()
	})
	if err != nil {
		return nil, fmt.Errorf("bus: watching workers: %w", err)
	}
	w.sub = sub
	return w, nil
}

// Live returns the workers heard from within three heartbeat intervals
// and their total slots.
func (w *Workers) Live() (workers, slots int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.all {
		if time.Since(p.At) <= 3*PresenceInterval {
			workers++
			slots += p.Slots
		}
	}
	return workers, slots
}

// Alive reports whether the named worker was heard from within three
// heartbeat intervals.
func (w *Workers) Alive(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.all[name]
	return ok && time.Since(p.At) <= 3*PresenceInterval
}

// Close stops watching.
func (w *Workers) Close() error { return w.sub.Unsubscribe() }

// Claims delivers the run's delivery claims until ctx ends.
func (c *Client) Claims(ctx context.Context, runID string) (<-chan Claim, error) {
	if err := validateID("run", runID); err != nil {
		return nil, err
	}
	ch := make(chan Claim, 256)
	sub, err := c.nc.Subscribe(claimsPrefix+runID, func(m *nats.Msg) {
		var cl Claim
		if json.Unmarshal(m.Data, &cl) != nil {
			return
		}
		select {
		case ch <- cl:
		default: // a slow reader loses claims, never blocks the connection
		}
	})
	if err != nil {
		return nil, fmt.Errorf("bus: claims of %s: %w", runID, err)
	}
	go func() {
		<-ctx.Done()
		sub.Unsubscribe()
	}()
	return ch, nil
}
