package ledger_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

const (
	helperEnv     = "LEDGER_TEST_HELPER" // "lock" or "intent"
	helperPathEnv = "LEDGER_TEST_PATH"
)

// TestHelperProcess is not a test: re-executed by tests with helperEnv set,
// it opens the ledger at helperPathEnv, does what helperEnv says, prints
// "ready <detail>" and blocks until killed or its stdin closes.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for lock and crash tests")
	}
	ctx := context.Background()
	l, err := ledger.Open(ctx, os.Getenv(helperPathEnv))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	switch mode {
	case "lock":
		if _, err := l.Lock(ctx); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("ready", os.Getpid())
	case "intent":
		e, _, err := l.Intent(ctx, purchase(t, "enterprise", 250))
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if _, err := l.Attempt(ctx, e.Key); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("ready", e.ID)
	}
	io.Copy(io.Discard, os.Stdin) // block until the parent goes
	os.Exit(0)
}

// startHelper runs TestHelperProcess in a child process and returns it once
// it reported ready, with the detail it printed.
func startHelper(t *testing.T, mode, path string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperPathEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	requireNoErr(t, err)
	stdout, err := cmd.StdoutPipe()
	requireNoErr(t, err)
	cmd.Stderr = os.Stderr
	requireNoErr(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill() // may be dead already
		cmd.Wait()         // killed
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case line := <-lines:
		detail, ok := strings.CutPrefix(line, "ready ")
		if !ok {
			t.Fatalf("helper %s: %q", mode, line)
		}
		return cmd, detail
	case <-time.After(20 * time.Second):
		t.Fatalf("helper %s did not report ready", mode)
		return nil, ""
	}
}

func killHelper(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	requireNoErr(t, cmd.Process.Signal(os.Kill)) // SIGKILL: no cleanup runs
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("helper did not die by signal: %v", err)
	}
}

func TestLockExcludesSecondHolder(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	first := openLedger(t, path)
	other := openLedger(t, path)
	tests := []struct {
		name   string
		second *ledger.Ledger
	}{
		{"same handle", first},
		{"other handle", other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unlock, err := first.Lock(ctx)
			requireNoErr(t, err)
			_, err = tc.second.Lock(ctx)
			requireIs(t, err, ledger.ErrLocked)
			var le *ledger.LockError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *LockError", err)
			}
			requireEqual(t, le.PID, os.Getpid(), "holder pid")
			requireEqual(t, le.Path, path+".lock", "lock path")
			if !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
				t.Fatalf("error %q does not name the holder pid", err)
			}
			requireNoErr(t, unlock())
			requireNoErr(t, unlock()) // idempotent

			unlock2, err := tc.second.Lock(ctx)
			requireNoErr(t, err)
			requireNoErr(t, unlock2())
		})
	}

	t.Run("close releases", func(t *testing.T) {
		l, err := ledger.Open(ctx, path)
		requireNoErr(t, err)
		unlock, err := l.Lock(ctx)
		requireNoErr(t, err)
		requireNoErr(t, l.Close())
		requireNoErr(t, unlock()) // already released by Close
		u, err := other.Lock(ctx)
		requireNoErr(t, err)
		requireNoErr(t, u())
	})

	t.Run("cancelled context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := first.Lock(cctx)
		requireIs(t, err, context.Canceled)
	})
}

func TestLockHeldByKilledProcess(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	l := openLedger(t, path)
	cmd, detail := startHelper(t, "lock", path)
	requireEqual(t, detail, strconv.Itoa(cmd.Process.Pid), "helper pid")

	_, err := l.Lock(ctx)
	requireIs(t, err, ledger.ErrLocked)
	var le *ledger.LockError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Fatalf("Lock error = %v, want one naming pid %d", err, cmd.Process.Pid)
	}
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("error %q does not name the holder pid", err)
	}

	killHelper(t, cmd)
	// The kernel drops the flock with the process; poll rather than assume.
	deadline := time.Now().Add(5 * time.Second)
	for {
		unlock, err := l.Lock(ctx)
		if err == nil {
			requireNoErr(t, unlock())
			break
		}
		if !errors.Is(err, ledger.ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("Lock after the holder was killed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An intent acknowledged before a SIGKILL is on disk and pending afterwards.
func TestIntentSurvivesKill(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	cmd, id := startHelper(t, "intent", path)
	killHelper(t, cmd)

	l := openLedger(t, path)
	pending, err := l.Pending(ctx)
	requireNoErr(t, err)
	if len(pending) != 1 || pending[0].ID != id || pending[0].Attempts != 1 {
		t.Fatalf("Pending after kill = %+v, want entry %s with 1 attempt", pending, id)
	}
	requireNoErr(t, l.Verify(ctx, nil))
	// Recovery: the confirmation probe found the order; finalize it.
	_, err = l.Finalize(ctx, pending[0].Key, ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-REC"})
	requireNoErr(t, err)
}
