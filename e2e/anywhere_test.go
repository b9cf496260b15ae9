package e2e_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	work, cache := t.TempDir(), t.TempDir()
	run := binary(t, work, "XDG_CACHE_HOME="+cache)

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

// binary builds the orchestrator into a temporary directory and returns
// a function running it in dir with the environment less the driver's
// variables and XDG_CACHE_HOME, plus extra.
// built is the orchestrator binary, built once for the whole test
// binary (linking it is the slow part of these tests); TestMain removes
// its directory.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func orchestratorBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "multiverse-e2e-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "orchestrator")
		if out, err := exec.Command("go", "build", "-o", built.bin, "../cmd/orchestrator").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatalf("build: %v", built.err)
	}
	return built.bin
}

func binary(t *testing.T, dir string, extra ...string) func(args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := orchestratorBinary(t)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLAYWRIGHT_") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, "MULTIVERSE_CHROMIUM=") {
			env = append(env, kv)
		}
	}
	env = append(env, extra...)
	return func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
}

// TestDoctor: `orchestrator doctor`, run outside the source tree, reports
// every part with its path and version, and with Chromium, the driver or
// Node.js missing in turn, names the missing part and the command that
// installs it and exits 5.
func TestDoctor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	drv, err := browser.FindDriver("")
	if err != nil {
		t.Skip(err)
	}
	withDriver, empty := t.TempDir(), t.TempDir()
	user := filepath.Join(withDriver, "multiverse", "playwright-driver", browser.DriverVersion)
	os.MkdirAll(filepath.Dir(user), 0o755)
	if err := os.Symlink(drv.Dir, user); err != nil {
		t.Fatal(err)
	}
	// A driver without a node next to it, for a PATH without node.
	noNode := t.TempDir()
	os.MkdirAll(filepath.Join(noNode, "package"), 0o755)
	os.WriteFile(filepath.Join(noNode, "package", "cli.js"), []byte("//"), 0o644)
	os.WriteFile(filepath.Join(noNode, "package", "package.json"), []byte(`{"version": "`+browser.DriverVersion+`"}`), 0o644)

	work := t.TempDir()
	for _, tc := range []struct {
		name    string
		env     []string
		args    []string
		code    int
		want    []string
		missing string
	}{
		{"all there", []string{"XDG_CACHE_HOME=" + withDriver}, nil, 0,
			[]string{"ok       Chromium ", "ok       Node.js ", "ok       Playwright driver        " + browser.DriverVersion + "  (" + user + ")"}, ""},
		{"no Chromium", []string{"XDG_CACHE_HOME=" + withDriver}, []string{"--chromium", "/no/such/chromium"}, 5,
			[]string{"MISSING  Chromium", "install with: sudo apt-get install chromium", "ok       Playwright driver"}, "Chromium"},
		{"no driver", []string{"XDG_CACHE_HOME=" + empty}, nil, 5,
			[]string{"MISSING  Playwright driver", "install with: orchestrator install", "ok       Chromium "}, "Playwright driver"},
		{"no Node.js", []string{"XDG_CACHE_HOME=" + empty, "PATH=" + empty}, []string{"--driver", noNode}, 5,
			[]string{"MISSING  Node.js", "install with: sudo apt-get install nodejs npm", "ok       Playwright driver"}, "Node.js"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := binary(t, work, tc.env...)(append([]string{"doctor"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if n := strings.Count(out, "MISSING"); (tc.missing == "") != (n == 0) || n > 1 {
				t.Errorf("%d parts reported missing, want only %q:\n%s", n, tc.missing, out)
			}
		})
	}
}
