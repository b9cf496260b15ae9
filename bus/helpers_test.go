package bus_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

// startServer starts an embedded server on a fresh store dir and shuts it
// down at the end of the test.
func startServer(t testing.TB) (*bus.Server, string) {
	t.Helper()
	dir := t.TempDir()
	return startServerIn(t, dir), dir
}

func startServerIn(t testing.TB, dir string) *bus.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: dir})
	requireNoErr(t, err)
	t.Cleanup(s.Shutdown)
	return s
}

// connect connects a client with short retry settings for tests.
func connect(t testing.TB, url string, opts ...bus.Option) *bus.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	base := []bus.Option{bus.WithBackoff(10 * time.Millisecond)}
	c, err := bus.Connect(ctx, url, append(base, opts...)...)
	requireNoErr(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// work runs c.Work in the background until the test ends; the cleanup waits
// for Work to return and fails the test if it returned an error.
func work(t testing.TB, c *bus.Client, cfg bus.WorkerConfig, h bus.Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Work(ctx, cfg, h) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("Work returned %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("Work did not return after its context ended")
		}
	})
}

// results subscribes to a run's results until the test ends.
func results(t testing.TB, c *bus.Client, runID string) <-chan bus.Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := c.Results(ctx, runID)
	requireNoErr(t, err)
	return ch
}

func publish(t testing.TB, c *bus.Client, runID, branchID string, data string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	requireNoErr(t, c.PublishJob(ctx, runID, branchID, []byte(data), nil))
}

// nextResult waits for one result.
func nextResult(t testing.TB, ch <-chan bus.Result, within time.Duration) bus.Result {
	t.Helper()
	select {
	case r, ok := <-ch:
		if !ok {
			t.Fatalf("results channel closed")
		}
		return r
	case <-time.After(within):
		t.Fatalf("no result within %s", within)
	}
	return bus.Result{}
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func pending(t testing.TB, c *bus.Client, runID string) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := c.Pending(ctx, runID)
	requireNoErr(t, err)
	return n
}

func requireNoErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func requireErrIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("got error %v, want one wrapping %v", err, target)
	}
}

func requireEqual[T comparable](t testing.TB, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// counter counts calls per key, safely.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int)
	}
	c.n[k]++
	return c.n[k]
}

func (c *counter) get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[k]
}

func (c *counter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.n))
	for k, v := range c.n {
		out[k] = v
	}
	return out
}
