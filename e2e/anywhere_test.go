package e2e_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

// TestBinaryRunsFromAnywhere builds the orchestrator into a temporary
// directory and runs it from another one, outside the source tree: with
// no driver anywhere it stops with exit 5 before printing a summary and
// names `orchestrator install`; with the driver in the per-user cache
// ($XDG_CACHE_HOME/multiverse/playwright-driver/VERSION) the demo runs to
// a commit and its bundle replays.
func TestBinaryRunsFromAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives Chromium")
	}
	drv, err := browser.FindDriver("") // the source tree's, to copy into the user cache
	if err != nil {
		t.Skip(err)
	}
	bin := filepath.Join(t.TempDir(), "orchestrator")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/orchestrator").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	work, cache := t.TempDir(), t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLAYWRIGHT_") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "XDG_CACHE_HOME="+cache)
	run := func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}

	out, errOut, code := run("demo", "--data-dir", "data", "--quiet")
	if code != 5 || strings.Contains(out, "branches explored") || !strings.Contains(errOut, "orchestrator install") {
		t.Fatalf("without a driver: exit %d, want 5 and no summary, and the message naming `orchestrator install`\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(work, "data", "events.db")); err == nil {
		t.Error("the run opened its event log before finding that the driver is missing")
	}

	user := filepath.Join(cache, "multiverse", "playwright-driver", browser.DriverVersion)
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(drv.Dir, user); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run("demo", "--data-dir", "data", "--quiet", "--latency", "5ms")
	if code != 0 || !strings.Contains(out, "branches explored") {
		t.Fatalf("with the driver in the user cache: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	bundles, _ := filepath.Glob(filepath.Join(work, "data", "bundles", "*.bundle"))
	if len(bundles) != 1 {
		t.Fatalf("want one commit bundle, have %v", bundles)
	}
	if out, errOut, code = run("replay", bundles[0]); code != 0 {
		t.Fatalf("replay of the demo's bundle: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
