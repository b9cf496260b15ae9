package bus_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

// fillStore publishes 64 KiB jobs until one fails and returns how long
// the failing publish took and its error.
func fillStore(t *testing.T, c *bus.Client) (time.Duration, error) {
	t.Helper()
	data := make([]byte, 64<<10)
	for i := range 1000 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		t0 := time.Now()
		err := c.PublishJob(ctx, "run1", fmt.Sprintf("b%d", i), data, nil)
		cancel()
		if err != nil {
			return time.Since(t0), err
		}
	}
	t.Fatal("1000 jobs of 64 KiB fit in a store meant to fill up")
	return 0, nil
}

// A store at its storage limit refuses a job at once, as full storage:
// the error names the store and wraps bus.ErrStorageFull, with or
// without the client knowing the server.
func TestStorageLimitReached(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: dir, MaxStore: 1 << 20})
	requireNoErr(t, err)
	defer srv.Shutdown()
	plain := connect(t, srv.ClientURL())
	took, err := fillStore(t, plain)
	requireErrIs(t, err, bus.ErrStorageFull)
	if took > time.Second {
		t.Errorf("the refusal took %s", took)
	}
	embedded := connect(t, srv.ClientURL(), bus.WithServer(srv))
	err = embedded.PublishJob(ctx, "run1", "more", []byte("x"), nil)
	requireErrIs(t, err, bus.ErrStorageFull)
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not name the store %s", err, dir)
	}
	requireErrIs(t, srv.StorageErr(), bus.ErrStorageFull)
}

// A full disk under the store: the server cannot write and never answers
// the publish; the client of the embedded server learns it at once from
// the server and reports full storage naming the store, instead of a
// publish timeout. Needs root to mount a small tmpfs.
func TestStorageDiskFull(t *testing.T) {
	t.Parallel()
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16M", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	dir := filepath.Join(mnt, "nats")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: dir})
	requireNoErr(t, err)
	defer srv.Shutdown()
	c := connect(t, srv.ClientURL(), bus.WithServer(srv))
	// Something else fills the disk after the server started.
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	requireNoErr(t, err)
	_, _ = filler.Write(make([]byte, 16<<20))
	_ = filler.Close()
	took, err := fillStore(t, c)
	requireErrIs(t, err, bus.ErrStorageFull)
	if took > 2*time.Second {
		t.Errorf("the full disk was reported after %s", took)
	}
	if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("error %q does not name the store %s and the full disk", err, dir)
	}
	// Later publishes fail at once too.
	t0 := time.Now()
	if err := c.PublishJob(ctx, "run1", "again", nil, nil); !errors.Is(err, bus.ErrStorageFull) || time.Since(t0) > time.Second {
		t.Errorf("publish on a full disk: %v after %s", err, time.Since(t0))
	}
}
