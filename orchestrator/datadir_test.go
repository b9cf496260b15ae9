package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/internal/dirlock"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// A run on a data dir another run holds is refused at once (exit 2),
// naming the holder's PID, command and start, before it touches the
// stores or starts a NATS server in the dir; with WaitLock it waits that
// long, saying so once.
func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	held, err := dirlock.Acquire(context.Background(), dir, "orchestrator run, task other")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	cfg := orchestrator.Config{Task: demoTask(t, "http://127.0.0.1:1/"), DataDir: dir, Workers: 1, Executor: noExecutor{}, ExploreOnly: true}
	want := fmt.Sprintf("data dir %s is in use by PID %d (orchestrator run, task other, since ", dir, os.Getpid())

	start := time.Now()
	_, err = orchestrator.Run(context.Background(), cfg)
	if !errors.Is(err, dirlock.ErrBusy) || orchestrator.ExitCode(err) != orchestrator.ExitBadInput || !strings.Contains(err.Error(), want) {
		t.Fatalf("Run on a held data dir: %v (exit %d), want exit %d saying %q", err, orchestrator.ExitCode(err), orchestrator.ExitBadInput, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("refused after %s, want at once", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "events.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused run touched the stores: %v", err)
	}

	var notes []string
	cfg.WaitLock = 300 * time.Millisecond
	cfg.Notice = func(m string) { notes = append(notes, m) }
	_, err = orchestrator.Run(context.Background(), cfg)
	if !errors.Is(err, dirlock.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) || orchestrator.ExitCode(err) != orchestrator.ExitBadInput {
		t.Fatalf("Run waiting 300ms on a held data dir: %v", err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], want) || !strings.Contains(notes[0], "waiting up to 300ms") {
		t.Fatalf("notices %q, want one saying it waits for %q", notes, want)
	}
}

// A lock left by a run that is gone is taken over with a notice naming
// it, and released when the run ends: the next run takes it without one.
func TestDataDirStaleLock(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("no true(1): %v", err)
	}
	stale := fmt.Sprintf(`{"pid":%d,"command":"orchestrator demo","since":"2026-01-02T03:04:05Z"}`+"\n", gone.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, dirlock.FileName), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		notes []string
	)
	cfg := orchestrator.Config{Task: chainTask(t, srv.URL, 2), DataDir: dir, Workers: 1, Executor: chainExecutor{Depth: 2}, ExploreOnly: true,
		Notice: func(m string) { mu.Lock(); notes = append(notes, m); mu.Unlock() }}
	if _, err := orchestrator.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("took over the lock of PID %d (orchestrator demo, since ", gone.Process.Pid)
	if len(notes) != 1 || !strings.Contains(notes[0], want) {
		t.Fatalf("notices %q, want one saying %q", notes, want)
	}
	notes = nil
	if _, err := orchestrator.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Fatalf("the second run found a lock to take over: %q", notes)
	}
}
