package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/bus"
)

// TestPresenceClaimsObjects: a working client announces itself, claims
// each delivery it starts, and artifacts round-trip through the object
// store with their digest checked.
func TestPresenceClaimsObjects(t *testing.T) {
	srv, err := bus.StartEmbedded(context.Background(), bus.ServerConfig{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	orch, err := bus.Connect(ctx, srv.ClientURL(), bus.WithName("orch"))
	if err != nil {
		t.Fatal(err)
	}
	defer orch.Close()
	wk, err := bus.Connect(ctx, srv.ClientURL(), bus.WithName("w1"))
	if err != nil {
		t.Fatal(err)
	}
	defer wk.Close()
	watch, err := orch.WatchWorkers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	claims, err := orch.Claims(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go wk.Work(wctx, bus.WorkerConfig{Slots: 3}, func(ctx context.Context, j bus.Job) ([]byte, error) { return []byte("ok"), nil })
	for n, slots := watch.Live(); n != 1 || slots != 3; n, slots = watch.Live() {
		select {
		case <-ctx.Done():
			t.Fatalf("worker never announced itself (%d workers, %d slots)", n, slots)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := orch.PublishJob(ctx, "run1", "b1", []byte("{}"), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-claims:
		if c.BranchID != "b1" || c.Attempt != 1 || c.Worker != "w1" {
			t.Fatalf("claim = %+v", c)
		}
	case <-ctx.Done():
		t.Fatal("no claim")
	}
	obj, err := orch.Objects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := obj.Put(ctx, []byte("artifact bytes"))
	if err != nil || d != artifacts.Sum([]byte("artifact bytes")) {
		t.Fatalf("put = %s, %v", d, err)
	}
	b, err := obj.Get(ctx, d)
	if err != nil || string(b) != "artifact bytes" {
		t.Fatalf("get = %q, %v", b, err)
	}
	if _, err := obj.Get(ctx, artifacts.Sum([]byte("absent"))); err == nil {
		t.Fatal("absent artifact found")
	}
}
