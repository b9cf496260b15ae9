package bus_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

func TestStartEmbeddedInvalidConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  bus.ServerConfig
	}{
		{"no store dir", bus.ServerConfig{}},
		{"negative port", bus.ServerConfig{StoreDir: t.TempDir(), Port: -1}},
		{"port too large", bus.ServerConfig{StoreDir: t.TempDir(), Port: 70000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bus.StartEmbedded(context.Background(), tc.cfg)
			requireErrIs(t, err, bus.ErrInvalidConfig)
		})
	}
}

func TestStartEmbeddedPortTaken(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	requireNoErr(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err = bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: t.TempDir(), Port: port})
	requireErrIs(t, err, bus.ErrServerStart)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failure reported after %s; want it reported promptly", d)
	}
}

func TestStartEmbeddedFixedPort(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	requireNoErr(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: t.TempDir(), Port: port, Name: "fixed"})
	if err != nil {
		t.Skipf("port %d was taken again before the server bound it: %v", port, err)
	}
	defer s.Shutdown()
	if !strings.HasSuffix(s.ClientURL(), ":"+strconv.Itoa(port)) {
		t.Fatalf("ClientURL %s does not use port %d", s.ClientURL(), port)
	}
	connect(t, s.ClientURL())
}

// TestRestartKeepsQueuedJob publishes a job, shuts the server down, starts it
// again on the same store and checks the job is still delivered.
func TestRestartKeepsQueuedJob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	first, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: dir})
	requireNoErr(t, err)
	c1, err := bus.Connect(ctx, first.ClientURL())
	requireNoErr(t, err)
	requireNoErr(t, c1.PublishJob(ctx, "run-restart", "b1", []byte("survives"), nil))
	requireNoErr(t, c1.Close())
	first.Shutdown()

	second := startServerIn(t, dir)
	c2 := connect(t, second.ClientURL())
	requireEqual(t, pending(t, c2, "run-restart"), uint64(1), "pending after restart")
	got := make(chan bus.Job, 1)
	work(t, c2, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		got <- job
		return nil, nil
	})
	select {
	case j := <-got:
		requireEqual(t, j.BranchID, "b1", "branch")
		requireEqual(t, string(j.Data), "survives", "data")
	case <-time.After(5 * time.Second):
		t.Fatal("queued job not delivered after restart")
	}
}

// TestServerIsSilent checks that the embedded server writes nothing to
// stdout or stderr without a logger, and logs through the logger when one is
// given. It swaps os.Stdout and os.Stderr, so it must not run in parallel.
func TestServerIsSilent(t *testing.T) {
	stdout, stderr := os.Stdout, os.Stderr
	r, w, err := os.Pipe()
	requireNoErr(t, err)
	var captured bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(&captured, r) })
	os.Stdout, os.Stderr = w, w
	func() {
		defer func() { os.Stdout, os.Stderr = stdout, stderr }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: t.TempDir()})
		requireNoErr(t, err)
		c, err := bus.Connect(ctx, s.ClientURL())
		requireNoErr(t, err)
		requireNoErr(t, c.PublishJob(ctx, "run-quiet", "b1", nil, nil))
		requireNoErr(t, c.Close())
		s.Shutdown()
	}()
	w.Close()
	wg.Wait()
	if captured.Len() > 0 {
		t.Fatalf("server wrote to stdout/stderr:\n%s", captured.String())
	}

	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: t.TempDir(), Logger: logger})
	requireNoErr(t, err)
	s.Shutdown()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "nats-server") {
		t.Fatalf("logger received no server lines: %q", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestReconnectAfterServerRestart keeps a worker and a results reader running
// while the server restarts on the same port and store: both carry on.
func TestReconnectAfterServerRestart(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	requireNoErr(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := bus.ServerConfig{StoreDir: dir, Port: port}
	srv, err := bus.StartEmbedded(ctx, cfg)
	if err != nil {
		t.Skipf("port %d was taken again before the server bound it: %v", port, err)
	}
	c := connect(t, srv.ClientURL())
	work(t, c, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		return job.Data, nil
	})
	res := results(t, c, "run-reconnect")
	publish(t, c, "run-reconnect", "before", "1")
	requireEqual(t, nextResult(t, res, 5*time.Second).BranchID, "before", "result before restart")

	srv.Shutdown()
	srv, err = bus.StartEmbedded(ctx, cfg)
	requireNoErr(t, err)
	t.Cleanup(srv.Shutdown)
	waitFor(t, 5*time.Second, "client reconnected", c.Conn().IsConnected)

	// Publishing may race the JetStream recovery right after a restart.
	waitFor(t, 5*time.Second, "job published after restart", func() bool {
		pctx, pcancel := context.WithTimeout(context.Background(), time.Second)
		defer pcancel()
		return c.PublishJob(pctx, "run-reconnect", "after", []byte("2"), nil) == nil
	})
	// The worker pulls again as soon as it reconnects, not after its old pull
	// request times out (about 10 s).
	requireEqual(t, nextResult(t, res, 3*time.Second).BranchID, "after", "result after restart")
}

// TestPublishRetryWaitsOutARestart: with WithPublishRetry one PublishJob
// call outlasts a server that goes away and comes back (the caller does
// not loop); without it the same call fails while the server is away.
func TestPublishRetryWaitsOutARestart(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	requireNoErr(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := bus.ServerConfig{StoreDir: t.TempDir(), Port: port}
	srv, err := bus.StartEmbedded(ctx, cfg)
	if err != nil {
		t.Skipf("port %d was taken again before the server bound it: %v", port, err)
	}
	patient := connect(t, srv.ClientURL(), bus.WithPublishRetry(20, 300*time.Millisecond, 50*time.Millisecond))
	once := connect(t, srv.ClientURL())
	srv.Shutdown()

	// (Its run is apart: the client's reconnect buffer may still deliver
	// the publish it reported failed, which the job's message id makes
	// harmless.)
	short, scancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = once.PublishJob(short, "run-once", "impatient", []byte("x"), nil)
	scancel()
	if err == nil {
		t.Fatal("a single attempt succeeded with the server down")
	}
	done := make(chan error, 1)
	go func() { done <- patient.PublishJob(ctx, "run-retry", "patient", []byte("y"), nil) }()
	time.Sleep(700 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("PublishJob returned while the server was down: %v", err)
	default:
	}
	srv, err = bus.StartEmbedded(ctx, cfg)
	requireNoErr(t, err)
	t.Cleanup(srv.Shutdown)
	select {
	case err := <-done:
		requireNoErr(t, err)
	case <-ctx.Done():
		t.Fatal("PublishJob did not return after the server came back")
	}
	requireEqual(t, pending(t, patient, "run-retry"), uint64(1), "jobs queued")
}
