package bus_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

func TestConnectInvalidOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opt  bus.Option
	}{
		{"empty name", bus.WithName("")},
		{"ack wait too short", bus.WithAckWait(time.Millisecond)},
		{"zero max deliver", bus.WithMaxDeliver(0)},
		{"no backoff", bus.WithBackoff()},
		{"negative backoff", bus.WithBackoff(time.Second, -time.Second)},
		{"zero replicas", bus.WithReplicas(0)},
		{"six replicas", bus.WithReplicas(6)},
		{"nil logger", bus.WithLogger(nil)},
		{"no publish attempt", bus.WithPublishRetry(0, time.Second, time.Second)},
		{"no publish timeout", bus.WithPublishRetry(3, 0, time.Second)},
		{"negative publish backoff", bus.WithPublishRetry(3, time.Second, -time.Second)},
		{"nil option", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Options are validated before any network I/O: no server needed.
			_, err := bus.Connect(context.Background(), "nats://127.0.0.1:1", tc.opt)
			requireErrIs(t, err, bus.ErrInvalidOption)
		})
	}
}

func TestConnectNoServer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := bus.Connect(ctx, "nats://127.0.0.1:1")
	if err == nil {
		t.Fatal("Connect to a closed port succeeded")
	}
	_, err = bus.Connect(context.Background(), " ")
	requireErrIs(t, err, bus.ErrInvalidConfig)
}

// TestConnectConcurrently starts several clients at once on a fresh server:
// the stream creation race must be harmless.
func TestConnectConcurrently(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	clients := make([]*bus.Client, n)
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			clients[i], errs[i] = bus.Connect(ctx, srv.ClientURL(), bus.WithLogger(slog.New(slog.DiscardHandler)))
		})
	}
	wg.Wait()
	for i, err := range errs {
		requireNoErr(t, err)
		t.Cleanup(func() { _ = clients[i].Close() })
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	js := clients[0].JetStream()
	tests := []struct {
		stream    string
		subject   string
		retention jetstream.RetentionPolicy
		maxAge    time.Duration
	}{
		{bus.JobsStream, bus.JobsSubjects, jetstream.WorkQueuePolicy, 0},
		{bus.ResultsStream, bus.ResultsSubjects, jetstream.LimitsPolicy, 7 * 24 * time.Hour},
		{bus.DeadStream, bus.DeadSubjects, jetstream.LimitsPolicy, 7 * 24 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.stream, func(t *testing.T) {
			s, err := js.Stream(ctx, tc.stream)
			requireNoErr(t, err)
			cfg := s.CachedInfo().Config
			requireEqual(t, len(cfg.Subjects), 1, "subject count")
			requireEqual(t, cfg.Subjects[0], tc.subject, "subject")
			requireEqual(t, cfg.Retention, tc.retention, "retention")
			requireEqual(t, cfg.Storage, jetstream.FileStorage, "storage")
			requireEqual(t, cfg.MaxAge, tc.maxAge, "max age")
			requireEqual(t, cfg.Duplicates, 10*time.Minute, "duplicate window")
		})
	}
}

// TestConnectRestoresStreamConfig changes a stream behind the package's back
// and checks the next Connect puts the configuration back.
func TestConnectRestoresStreamConfig(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := c.JetStream().Stream(ctx, bus.ResultsStream)
	requireNoErr(t, err)
	cfg := s.CachedInfo().Config
	cfg.MaxAge = time.Hour
	_, err = c.JetStream().UpdateStream(ctx, cfg)
	requireNoErr(t, err)

	connect(t, srv.ClientURL())
	s, err = c.JetStream().Stream(ctx, bus.ResultsStream)
	requireNoErr(t, err)
	requireEqual(t, s.CachedInfo().Config.MaxAge, 7*24*time.Hour, "max age after reconnect")
}

func TestCloseIsIdempotent(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := bus.Connect(ctx, srv.ClientURL())
	requireNoErr(t, err)
	requireNoErr(t, c.Close())
	requireNoErr(t, c.Close())
	if !c.Conn().IsClosed() {
		t.Fatal("connection still open after Close")
	}
}
