package dirlock_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/internal/dirlock"
)

const helperEnv = "DIRLOCK_TEST_DIR"

// TestHelperProcess is not a test: re-executed with helperEnv set, it
// takes the lock of that data dir, prints "ready PID" and blocks until
// killed or its stdin closes.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for the cross-process tests")
	}
	if _, err := dirlock.Acquire(context.Background(), dir, "orchestrator run, task helper"); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("ready", os.Getpid())
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

func startHolder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		if l != "ready "+strconv.Itoa(cmd.Process.Pid) {
			t.Fatalf("holder said %q", l)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("holder did not report ready")
	}
	return cmd
}

func mustAcquire(t *testing.T, dir, command string) *dirlock.Lock {
	t.Helper()
	l, err := dirlock.Acquire(context.Background(), dir, command)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	t.Cleanup(func() { l.Release() })
	return l
}

// wantBusy checks err is a *BusyError naming pid and command.
func wantBusy(t *testing.T, err error, dir string, pid int, command string) {
	t.Helper()
	var be *dirlock.BusyError
	if !errors.Is(err, dirlock.ErrBusy) || !errors.As(err, &be) {
		t.Fatalf("Acquire of a held data dir: %v, want a *BusyError", err)
	}
	if be.Owner.PID != pid || be.Owner.Command != command || be.Owner.Since.IsZero() {
		t.Fatalf("BusyError owner = %+v, want PID %d, command %q and a start time", be.Owner, pid, command)
	}
	want := fmt.Sprintf("data dir %s is in use by PID %d (%s, since ", dir, pid, command)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want it to say %q", err, want)
	}
}

func TestAcquireExcludesSecond(t *testing.T) {
	dir := t.TempDir()
	first := mustAcquire(t, dir, "orchestrator run, task a")
	if first.TookOver != nil {
		t.Fatalf("a fresh data dir's lock took over %+v", first.TookOver)
	}
	_, err := dirlock.Acquire(context.Background(), dir, "orchestrator run, task b")
	wantBusy(t, err, dir, os.Getpid(), "orchestrator run, task a")

	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if err := first.Release(); err != nil { // idempotent
		t.Fatal(err)
	}
	second := mustAcquire(t, dir, "orchestrator run, task b")
	if second.TookOver != nil {
		t.Fatalf("a released lock was taken over: %+v", second.TookOver)
	}
}

// Two processes: the second is refused with the holder's PID; once the
// holder is killed (no cleanup runs), the lock is taken over and the dead
// owner reported.
func TestAcquireAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	holder := startHolder(t, dir)
	_, err := dirlock.Acquire(context.Background(), dir, "orchestrator run, task b")
	wantBusy(t, err, dir, holder.Process.Pid, "orchestrator run, task helper")

	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := dirlock.Acquire(context.Background(), dir, "orchestrator run, task b")
		if err == nil {
			defer l.Release()
			if l.TookOver == nil || l.TookOver.PID != holder.Process.Pid || l.TookOver.Command != "orchestrator run, task helper" {
				t.Fatalf("TookOver = %+v, want the killed holder %d", l.TookOver, holder.Process.Pid)
			}
			return
		}
		if !errors.Is(err, dirlock.ErrBusy) || time.Now().After(deadline) {
			t.Fatalf("Acquire after the holder was killed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A lock file naming a process that is gone (no flock held) is taken
// over at once.
func TestAcquireStaleFile(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("no true(1): %v", err)
	}
	pid := gone.Process.Pid
	stale := fmt.Sprintf(`{"pid":%d,"command":"orchestrator demo","since":"2026-01-02T03:04:05Z"}`+"\n", pid)
	if err := os.WriteFile(filepath.Join(dir, dirlock.FileName), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, dir, "orchestrator run, task a")
	if l.TookOver == nil || l.TookOver.PID != pid || l.TookOver.Command != "orchestrator demo" {
		t.Fatalf("TookOver = %+v, want PID %d", l.TookOver, pid)
	}
	b, err := os.ReadFile(l.Path())
	if err != nil || !strings.Contains(string(b), fmt.Sprintf(`"pid":%d`, os.Getpid())) {
		t.Fatalf("lock file after takeover: %q, %v", b, err)
	}
}

func TestWait(t *testing.T) {
	dir := t.TempDir()
	first := mustAcquire(t, dir, "orchestrator run, task a")

	t.Run("until released", func(t *testing.T) {
		told := make(chan *dirlock.BusyError, 1)
		got := make(chan error, 1)
		go func() {
			l, err := dirlock.Wait(context.Background(), dir, "orchestrator run, task b", func(be *dirlock.BusyError) { told <- be })
			if err == nil {
				l.Release()
			}
			got <- err
		}()
		select {
		case be := <-told:
			if be.Owner.PID != os.Getpid() {
				t.Fatalf("Wait told of %+v", be.Owner)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Wait did not say it waits")
		}
		first.Release()
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Wait did not take the released lock")
		}
	})

	t.Run("until the context ends", func(t *testing.T) {
		held := mustAcquire(t, dir, "orchestrator run, task c")
		defer held.Release()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := dirlock.Wait(ctx, dir, "orchestrator run, task d", nil)
		if !errors.Is(err, dirlock.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait past its deadline: %v", err)
		}
	})
}

func TestAcquireCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := dirlock.Acquire(ctx, t.TempDir(), "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire with a cancelled context: %v", err)
	}
}
