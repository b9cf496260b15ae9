package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

// busConn is the run's connection to the bus.
type busConn struct {
	client *bus.Client
	url    string
	watch  *bus.Workers
	// closers close what connectBus opened, last opened first.
	closers []func()
}

func (c *busConn) close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
}

// connectBus starts the embedded NATS server, or joins the configured
// server or cluster, connects, and watches the workers' presence. On
// error it has closed what it opened.
func (r *run) connectBus(ctx context.Context) (_ *busConn, err error) {
	conn := &busConn{url: r.cfg.NATSURL}
	defer func() {
		if err != nil {
			conn.close()
		}
	}()
	if p := r.cfg.Parts; conn.url == "" && p != nil && p.NATS != nil {
		conn.url, r.nats = p.NATS.ClientURL(), p.NATS
		r.sum.Paths.NATS = p.NATS.StoreDir()
	} else if conn.url == "" {
		srv, err := r.startEmbedded(ctx)
		if err != nil {
			return nil, err
		}
		conn.closers = append(conn.closers, srv.Shutdown)
		conn.url, r.nats = srv.ClientURL(), srv
		r.sum.Paths.NATS = filepath.Join(r.dd, "nats")
	}
	busOpts := []bus.Option{bus.WithName("multiverse-orchestrator " + r.runID), bus.WithLogger(r.log),
		bus.WithPublishRetry(publishAttempts, publishTimeout, publishBackoff)}
	if r.cfg.Replicas > 0 {
		busOpts = append(busOpts, bus.WithReplicas(r.cfg.Replicas))
	}
	if r.nats != nil {
		busOpts = append(busOpts, bus.WithServer(r.nats))
	}
	if conn.client, err = bus.Connect(ctx, conn.url, busOpts...); err != nil {
		return nil, fmt.Errorf("orchestrator: connecting to NATS at %s: %w", conn.url, err)
	}
	conn.closers = append(conn.closers, func() { conn.client.Close() })
	if r.cfg.NATSURL == "" {
		// The embedded server is ours: jobs left by an earlier run that
		// died are not worth running.
		if st, err := conn.client.JetStream().Stream(ctx, bus.JobsStream); err == nil {
			st.Purge(ctx)
		}
	}
	if conn.watch, err = conn.client.WatchWorkers(ctx); err != nil {
		return nil, err
	}
	conn.closers = append(conn.closers, func() { conn.watch.Close() })
	if objs, err := conn.client.Objects(ctx); err == nil {
		r.objects = objs
	} else {
		r.log.Warn("no artifact object store; remote workers' artifacts will not be mirrored", "error", err)
	}
	return conn, nil
}

// startEmbedded starts the run's own NATS server in the data dir.
func (r *run) startEmbedded(ctx context.Context) (*bus.Server, error) {
	host, port := "127.0.0.1", 0
	if r.cfg.NATSListen != "" {
		var err error
		if host, port, err = ParseListen(r.cfg.NATSListen); err != nil {
			return nil, err
		}
	}
	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: filepath.Join(r.dd, "nats"), Host: host, Port: port})
	if errors.Is(err, bus.ErrListen) {
		return nil, fmt.Errorf("%w: --nats-listen %q: %w", ErrBadInput, r.cfg.NATSListen, err)
	}
	if err != nil {
		return nil, fmt.Errorf("orchestrator: starting the embedded NATS server: %w", err)
	}
	return srv, nil
}

// ParseListen reads a --nats-listen address, HOST:PORT with a port in
// 0..65535; anything else is an error wrapping ErrBadInput that names the
// flag.
func ParseListen(addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%w: --nats-listen %q is not HOST:PORT: %v", ErrBadInput, addr, err)
	}
	if port, err = strconv.Atoi(p); err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%w: --nats-listen %q: port %q is not a number in 0..65535", ErrBadInput, addr, p)
	}
	return host, port, nil
}
