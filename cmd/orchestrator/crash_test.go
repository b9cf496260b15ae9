package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/failpoint"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestHelperProcess is not a test: the crash tests re-execute the test
// binary with MV_HELPER=1 to run the orchestrator CLI in a process of its
// own, which a failpoint can kill -9.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("MV_HELPER") != "1" {
		t.Skip("helper process only")
	}
	args := strings.Split(os.Getenv("MV_HELPER_ARGS"), "\x1f")
	os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
}

// cli runs the orchestrator CLI in a child process and returns its exit
// code, or -9 when it was killed by SIGKILL.
func cli(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(append(os.Environ(), "MV_HELPER=1", "MV_HELPER_ARGS="+strings.Join(args, "\x1f")), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() && st.Signal() == syscall.SIGKILL {
			return -9, string(out)
		}
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("running the CLI: %v", err)
	}
	return 0, string(out)
}

// smallTask is the short example task that starts at the checkout: the
// crash tests spend their time on the commit, not on exploring.
func smallTask(t *testing.T) string {
	t.Helper()
	return "../../examples/team-checkout.yaml"
}

// commitSmallTask runs the short checkout task through the CLI against the
// site at siteURL into dir, fails the test unless it commits, and returns
// its summary.
func commitSmallTask(t *testing.T, siteURL, dir string) orchestrator.Summary {
	t.Helper()
	code, out := cli(t, nil, "run", smallTask(t), "--start-url", siteURL+"/checkout?plan=team&billing=monthly",
		"--data-dir", dir, "--no-screenshots", "--quiet", "--json")
	if code != 0 {
		t.Fatalf("run exit %d:\n%s", code, out)
	}
	var res struct {
		Summary orchestrator.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	return res.Summary
}

type demoSite = sitetest.Site

func startDemoSite(t *testing.T) *demoSite { return sitetest.Start(t, sites.Knobs{}) }

func ledgerEntries(t *testing.T, dir string) []ledger.Entry {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	es, err := l.List(context.Background(), ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// TestCrashAtEachFailpoint kills the orchestrator with SIGKILL at each
// failpoint of the commit protocol, restarts it on the same data dir, and
// checks that the site holds exactly one order and the ledger ends
// committed with that order's id.
func TestCrashAtEachFailpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium in child processes")
	}
	taskFile := smallTask(t)
	for _, fp := range failpoint.All {
		t.Run(fp, func(t *testing.T) {
			site := startDemoSite(t)
			dir := t.TempDir()
			args := []string{"run", taskFile, "--start-url", site.URL() + "/checkout?plan=team&billing=monthly", "--data-dir", dir, "--no-screenshots", "--quiet"}
			code, out := cli(t, []string{failpoint.EnvVar + "=" + fp}, args...)
			if code != -9 {
				t.Fatalf("the failpoint did not kill the run (exit %d):\n%s", code, out)
			}
			code, out = cli(t, nil, args...)
			if code != 0 {
				t.Fatalf("restart exit %d:\n%s", code, out)
			}
			orders := site.Vendor.Orders()
			if len(orders) != 1 {
				t.Fatalf("site holds %d orders after a crash at %s, want 1", len(orders), fp)
			}
			es := ledgerEntries(t, dir)
			if len(es) != 1 || es[0].State != ledger.StateCommitted || es[0].OrderID != orders[0].ID || es[0].Key != orders[0].ClientReference {
				t.Fatalf("ledger %+v does not match the order %+v", es, orders[0])
			}
			code, out = cli(t, nil, "ledger", "verify", "--data-dir", dir)
			if code != 0 {
				t.Fatalf("ledger verify after recovery: exit %d\n%s", code, out)
			}
		})
	}
}

// TestPriceRaisedBeforeCommit: the price changes between exploration and
// commit; no candidate holds its preconditions any more, the run aborts
// with exit code 4 and reports what changed, and nothing is ordered.
func TestPriceRaisedBeforeCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startDemoSite(t)
	dir := t.TempDir()
	var raised sync.Once
	cfgHook := func() {
		raised.Do(func() {
			k := site.Vendor.Knobs()
			k.PriceFactor = 2
			if err := site.Vendor.SetKnobs(k); err != nil {
				t.Error(err)
			}
		})
	}
	tk := loadTask(t, smallTask(t), site.URL()+"/checkout?plan=team&billing=monthly")
	sum, err := orchestrator.Run(context.Background(), orchestrator.Config{Task: tk, DataDir: dir, Workers: 2,
		NoScreenshots: true, BeforeCommit: cfgHook})
	if orchestrator.ExitCode(err) != orchestrator.ExitAborted {
		t.Fatalf("exit code %d (%v), want %d", orchestrator.ExitCode(err), err, orchestrator.ExitAborted)
	}
	if n := len(site.Vendor.Orders()); n != 0 {
		t.Fatalf("the site holds %d orders at the wrong price", n)
	}
	if sum.Commit == nil || len(sum.Commit.Changes) == 0 || !strings.Contains(strings.Join(sum.Commit.Changes, ";"), "total: 178.50 -> 357.00") {
		t.Fatalf("the abort does not report the change: %+v", sum.Commit)
	}
	for _, e := range ledgerEntries(t, dir) {
		if e.State == ledger.StateCommitted {
			t.Fatalf("ledger holds a committed row: %+v", e)
		}
	}
}

// TestTwoProcessesOneOrder runs two orchestrator processes at once against
// the same site and the same data dir... they cannot share an embedded
// JetStream store, so each has its own data dir but both commit the same
// intent: the site's idempotency key semantics and the ledger keep it to
// one order, and the second reports it already happened or was refused.
func TestTwoProcessesOneOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium in child processes")
	}
	site := startDemoSite(t)
	taskFile := smallTask(t)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	outs := make([]string, 2)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			codes[i], outs[i] = cli(t, nil, "run", taskFile, "--start-url", site.URL()+"/checkout?plan=team&billing=monthly",
				"--data-dir", filepath.Join(t.TempDir(), fmt.Sprint(i)), "--no-screenshots", "--quiet", "--workers", "1")
		}(i)
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("process %d exit %d:\n%s", i, c, outs[i])
		}
	}
	if n := len(site.Vendor.Orders()); n != 1 {
		t.Fatalf("two processes placed %d orders, want 1", n)
	}
	resp, err := http.Get(site.URL() + "/api/orders")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Orders []struct {
			ID string `json:"id"`
		} `json:"orders"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if len(body.Orders) != 1 {
		t.Fatalf("orders API holds %d orders", len(body.Orders))
	}
}

func loadTask(t *testing.T, file, startURL string) *task.Task {
	t.Helper()
	tk, err := task.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.WithStartURL(startURL); err != nil {
		t.Fatal(err)
	}
	return tk
}
