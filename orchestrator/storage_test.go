package orchestrator_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// fillingExecutor fills the disk under the data dir when its first job
// runs, then explores like chainExecutor.
type fillingExecutor struct {
	chainExecutor
	once sync.Once
	disk string
}

func (f *fillingExecutor) Handle(ctx context.Context, j job.Delivery) ([]byte, error) {
	f.once.Do(func() {
		if file, err := os.Create(filepath.Join(f.disk, "filler")); err == nil {
			_, _ = file.Write(make([]byte, 64<<20))
			_ = file.Close()
		}
	})
	return f.chainExecutor.Handle(ctx, j)
}

// TestDiskFullMidRun: the disk under the data dir fills up during a run.
// The run stops promptly with full storage named in the data dir (exit
// 2), not a publish timeout a minute later. Needs root to mount a small
// tmpfs.
func TestDiskFullMidRun(t *testing.T) {
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=48M", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := filepath.Join(mnt, "data")
	t0 := time.Now()
	_, err := orchestrator.Run(context.Background(), orchestrator.Config{Task: chainTask(t, srv.URL, 6), DataDir: dir,
		Workers: 2, Executor: &fillingExecutor{chainExecutor: chainExecutor{Depth: 6}, disk: mnt}, ExploreOnly: true})
	took := time.Since(t0)
	if !errors.Is(err, bus.ErrStorageFull) || orchestrator.ExitCode(err) != orchestrator.ExitBadInput {
		t.Fatalf("run on a full disk: exit %d after %s: %v", orchestrator.ExitCode(err), took, err)
	}
	if !strings.Contains(err.Error(), filepath.Join(dir, "nats")) {
		t.Errorf("error %q does not name the store in the data dir", err)
	}
	if took > 10*time.Second {
		t.Errorf("the full disk was reported after %s", took)
	}
}
