package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// reconnectWait is the pause between reconnect attempts; reconnects never
	// stop while the Client is open.
	reconnectWait = 250 * time.Millisecond
	// defaultConnectTimeout bounds Connect when ctx has no deadline.
	defaultConnectTimeout = 30 * time.Second
	// cancelMemory is how long a Client remembers a cancelled run, so that a
	// job of that run delivered late is terminated instead of run. It matches
	// the streams' duplicate window.
	cancelMemory = dupWindow
)

// Client is a connection to the bus: the core NATS connection, its JetStream
// context and handles on the three streams. It is safe for concurrent use.
type Client struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	opts options
	log  *slog.Logger

	jobs    jetstream.Stream
	results jetstream.Stream
	dead    jetstream.Stream

	closed    chan struct{} // closed by the connection's closed handler
	closeOnce sync.Once
	closeErr  error

	mu        sync.Mutex
	cancelled map[string]time.Time              // run id -> when it was cancelled
	running   map[string]map[*inflight]struct{} // run id -> jobs its handlers run
}

// Connect connects to the NATS servers in urls (comma separated) and creates
// or updates the MV_JOBS, MV_RESULTS and MV_DEAD streams. While the servers
// are unreachable it keeps retrying until ctx ends (30s when ctx has no
// deadline). Once connected, the client reconnects forever with a short wait;
// calls made while it is disconnected fail or time out, they are not queued
// beyond the client's reconnect buffer.
//
// Stream setup is idempotent and safe when several processes connect at once:
// a stream that already exists with the same configuration is left alone, one
// whose configuration differs is updated. A stream whose configuration cannot
// be updated in place (for example different retention) is an error.
// Options that fail validation return an error wrapping [ErrInvalidOption].
func Connect(ctx context.Context, urls string, opts ...Option) (*Client, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("%w: nil option", ErrInvalidOption)
		}
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(urls) == "" {
		return nil, fmt.Errorf("%w: no server url", ErrInvalidConfig)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultConnectTimeout)
		defer cancel()
	}

	c := &Client{
		opts:      o,
		log:       o.logger.With("component", "bus"),
		closed:    make(chan struct{}),
		cancelled: make(map[string]time.Time),
	}
	nc, err := nats.Connect(urls,
		nats.Name(o.name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.RetryOnFailedConnect(true),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				c.log.Warn("bus: disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			c.log.Info("bus: reconnected", "url", nc.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subj := ""
			if sub != nil {
				subj = sub.Subject
			}
			c.log.Error("bus: async error", "subject", subj, "err", err)
		}),
		nats.ClosedHandler(func(*nats.Conn) { close(c.closed) }),
	)
	if err != nil {
		return nil, fmt.Errorf("bus: connect %s: %w", urls, err)
	}
	c.nc = nc
	if err := waitConnected(ctx, nc); err != nil {
		nc.Close()
		return nil, fmt.Errorf("bus: connect %s: %w", urls, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("bus: jetstream: %w", err)
	}
	c.js = js
	if err := c.ensureStreams(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// waitConnected blocks until nc is connected or ctx ends.
func waitConnected(ctx context.Context, nc *nats.Conn) error {
	ch := nc.StatusChanged(nats.CONNECTED, nats.CLOSED)
	defer nc.RemoveStatusListener(ch)
	for !nc.IsConnected() {
		if nc.IsClosed() {
			return nats.ErrConnectionClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("no server reachable: %w", ctx.Err())
		}
	}
	return nil
}

// Close drains the connection: subscriptions stop receiving, messages already
// received are processed, pending publishes are flushed, then the connection
// closes. Call it after Work and the Results readers have returned. It waits
// for the drain to finish and is safe to call more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		if err := c.nc.Drain(); err != nil {
			// Reconnecting or already closed: nothing to drain.
			c.nc.Close()
			if !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrConnectionReconnecting) {
				c.closeErr = fmt.Errorf("bus: close: %w", err)
			}
		}
		<-c.closed
	})
	return c.closeErr
}

// Conn returns the underlying core NATS connection, for callers that need
// plain NATS (for example an object store or extra subscriptions). Do not
// close it; use [Client.Close].
func (c *Client) Conn() *nats.Conn { return c.nc }

// JetStream returns the JetStream context of the client.
func (c *Client) JetStream() jetstream.JetStream { return c.js }

// markCancelled remembers that runID was cancelled and forgets runs
// cancelled longer than cancelMemory ago.
func (c *Client) markCancelled(runID string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, at := range c.cancelled {
		if now.Sub(at) > cancelMemory {
			delete(c.cancelled, id)
		}
	}
	c.cancelled[runID] = now
}

// isCancelledLocked reports whether runID was cancelled recently. c.mu must be held.
func (c *Client) isCancelledLocked(runID string) bool {
	at, ok := c.cancelled[runID]
	return ok && time.Since(at) <= cancelMemory
}
