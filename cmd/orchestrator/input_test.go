package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/internal/dirlock"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestUnreadableInput: a task or secret file that is a FIFO with no
// writer, a device, or an alias bomb is refused at once with exit 2 and
// one line naming the file, line and field, before any browser starts.
func TestUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(exampleAt(t, "procure-team-plan.yaml", noRequestURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	secretTask := func(name, file string) string {
		src := strings.Replace(string(good), "  email: {", "  card: {secret_file: "+file+"}\n  email: {", 1)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		file string
		want string
	}{
		{"secret FIFO", secretTask("fifo.yaml", fifo), "fifo.yaml:41: inputs.card.secret_file: secret file " + fifo + " is not a regular file (a FIFO)"},
		{"secret /dev/zero", secretTask("zero.yaml", "/dev/zero"), "zero.yaml:41: inputs.card.secret_file: secret file /dev/zero is not a regular file (a character device): a secret file must be a regular file of at most 65536 bytes"},
		{"secret /dev/urandom", secretTask("urandom.yaml", "/dev/urandom"), "urandom.yaml:41: inputs.card.secret_file: secret file /dev/urandom is not a regular file"},
		{"task FIFO", fifo, "fifo: cannot read task file: not a regular file (a FIFO)"},
		{"alias bomb", "../../task/testdata/bad-alias-bomb.yaml", "bad-alias-bomb.yaml:10: goal.success[4].all: the task file expands to more than 100000 YAML nodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := runBounded(t, "run", c.file, "--data-dir", filepath.Join(dir, "data"), "--workers", "1", "--quiet")
			wantBadInputLine(t, code, stderr, c.want)
		})
	}
	t.Run("bundle FIFO", func(t *testing.T) {
		code, stderr := runBounded(t, "validate", fifo)
		wantBadInputLine(t, code, stderr, fifo+" is not a regular file (a FIFO)")
		// replay refuses it as well, at once (its exit code is the
		// audit's: the bundle cannot be read).
		if code, stderr = runBounded(t, "replay", fifo); code == 0 || !strings.Contains(stderr, "is not a regular file (a FIFO)") {
			t.Fatalf("replay of a FIFO: exit %d, stderr %q", code, stderr)
		}
	})
}

// TestLimits: worker slots and viewport sizes beyond what a run can use
// are refused at once with exit 2, naming the flag or the file, line and
// field, and the limit.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	example := exampleAt(t, "procure-team-plan.yaml", noRequestURL(t))
	good, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	withTail := func(name, tail string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, append(append([]byte{}, good...), tail...), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines := strings.Count(string(good), "\n")
	src := strings.Replace(string(good), "workers: 4", "workers: 257", 1)
	workers := filepath.Join(dir, "workers.yaml")
	if err := os.WriteFile(workers, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	wline := 1 + strings.Count(src[:strings.Index(src, "workers: 257")], "\n")
	viewport := withTail("viewport.yaml", "environment:\n  viewport: {width: 100000000, height: 800}\n")
	tall := withTail("tall.yaml", "environment:\n  viewport:\n    width: 1280\n    height: 10000\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"--workers 257", []string{"run", example, "--workers", "257"},
			"--workers 257: at most 256 in-process worker slots"},
		{"demo --workers 257", []string{"demo", "--workers", "257"}, "--workers 257: at most 256 in-process worker slots"},
		{"search.workers 257", []string{"run", workers},
			fmt.Sprintf("workers.yaml:%d: search.workers: must be at most 256 (worker slots in one process; start worker processes for more), found 257", wline)},
		{"viewport width", []string{"run", viewport},
			fmt.Sprintf("viewport.yaml:%d: environment.viewport.width: must be at most 8192 CSS pixels, found 100000000", lines+2)},
		{"viewport height", []string{"run", tall},
			fmt.Sprintf("tall.yaml:%d: environment.viewport.height: must be at most 8192 CSS pixels, found 10000", lines+4)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := runBounded(t, append(c.args, "--data-dir", filepath.Join(dir, "data"), "--quiet")...)
			wantBadInputLine(t, code, stderr, c.want)
		})
	}
}

// runBounded runs the CLI in this process and fails the test when it
// does not end within 30 seconds (bad input is refused in milliseconds).
func runBounded(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, &out, &errb) }()
	select {
	case code := <-done:
		return code, errb.String()
	case <-time.After(30 * time.Second):
		t.Fatalf("orchestrator %s did not end within 30s", strings.Join(args, " "))
	}
	return 0, ""
}

func wantBadInputLine(t *testing.T, code int, stderr, want string) {
	t.Helper()
	if code != orchestrator.ExitBadInput {
		t.Fatalf("exit code %d, want %d; stderr: %s", code, orchestrator.ExitBadInput, stderr)
	}
	if !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("stderr = %q, want one line with %q", stderr, want)
	}
}

// TestUnreadableNewInputs: a flow file or a --swap body file that is a
// FIFO with no writer or a device is refused at once, naming the file;
// neither is read.
func TestUnreadableNewInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "flow.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"play FIFO", []string{"play", fifo, "--data-dir", data}, fifo + " is not a regular file (a FIFO)"},
		{"play /dev/zero", []string{"play", zero, "--data-dir", data}, zero + " is not a regular file (a character device)"},
		{"rerun --swap FIFO", []string{"rerun", "01RUN", "--data-dir", data, "--swap", "3:GET /api/plans=" + fifo}, fifo + " is not a regular file (a FIFO)"},
		{"rerun --swap /dev/zero", []string{"rerun", "01RUN", "--data-dir", data, "--swap", "3:GET /api/plans=/dev/zero"}, "/dev/zero is not a regular file (a character device)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := runBounded(t, c.args...)
			if c.args[0] == "rerun" { // a bad flag value: the flag package adds the usage
				if code != orchestrator.ExitBadInput || !strings.Contains(stderr, c.want) {
					t.Fatalf("exit %d, stderr %q; want exit %d saying %q", code, stderr, orchestrator.ExitBadInput, c.want)
				}
				return
			}
			wantBadInputLine(t, code, stderr, c.want)
		})
	}
}

// TestDataDirInUse: a run or a demo on a data dir another run holds is
// refused at once with exit 2 and one line naming the holder's PID;
// read-only commands still read the data dir.
func TestDataDirInUse(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the browser parts a run checks for")
	}
	if _, err := browser.FindDriver(""); err != nil {
		t.Skipf("a run checks for its browser parts before its data dir: %v", err)
	}
	if _, err := browser.FindChromium("", false); err != nil {
		t.Skipf("a run checks for its browser parts before its data dir: %v", err)
	}
	dir := t.TempDir()
	held, err := dirlock.Acquire(context.Background(), dir, "orchestrator run, task other")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	want := fmt.Sprintf("data dir %s is in use by PID %d (orchestrator run, task other, since ", dir, os.Getpid())
	for _, args := range [][]string{
		{"run", "../../examples/procure-team-plan.yaml", "--data-dir", dir, "--workers", "1", "--quiet"},
		{"demo", "--data-dir", dir, "--workers", "1", "--quiet"},
	} {
		t.Run(args[0], func(t *testing.T) {
			start := time.Now()
			code, stderr := runBounded(t, args...)
			wantBadInputLine(t, code, stderr, want)
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("refused after %s, want at once", d)
			}
		})
	}
	t.Run("runs reads", func(t *testing.T) {
		if code, stderr := runBounded(t, "runs", "--data-dir", dir); code == orchestrator.ExitBadInput && strings.Contains(stderr, "in use") {
			t.Fatalf("runs took the lock: %s", stderr)
		}
	})
}
