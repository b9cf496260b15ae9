package orchestrator_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestUncertainCommitResolvedAtNextStart: the site turns slow once the
// intent row exists (the order is placed, its confirmation page does not
// load within the action timeout) and its orders API is down, so the
// outcome cannot be known. The run exits 4 with the row still intent; the
// next run resolves it through the confirm probe at its start, finds the
// commit in the ledger and sends nothing: the site holds one order and
// the row names it.
func TestUncertainCommitResolvedAtNextStart(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{})
	dir := t.TempDir()
	tk := checkoutTaskFrom(t, s.URL(), nil)
	tk.Budgets.ActionTimeout = task.Duration(3 * time.Second)
	tk.Commit.Confirm.Timeout = task.Duration(2 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	slowOnceIntent := func() {
		go func() {
			l, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
			if err != nil {
				t.Error(err)
				return
			}
			defer l.Close()
			for ctx.Err() == nil {
				if p, err := l.Pending(ctx); err == nil && len(p) > 0 {
					s.Vendor.SetKnobs(sites.Knobs{Latency: 2 * time.Second, FailStatus: map[string]int{"/api/orders": 503}})
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	first, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2, NoScreenshots: true, BeforeCommit: slowOnceIntent})
	if !errors.Is(err, commit.ErrUncertain) || orchestrator.ExitCode(err) != orchestrator.ExitAborted {
		t.Fatalf("first run: %v (exit %d), want the uncertain outcome with exit %d", err, orchestrator.ExitCode(err), orchestrator.ExitAborted)
	}
	if !strings.Contains(err.Error(), "the next start asks the probe first") {
		t.Errorf("the exit-4 text does not say what the next start does: %v", err)
	}
	orders := s.Vendor.Orders()
	if len(orders) != 1 {
		t.Fatalf("the site holds %d orders after the slow commit, want 1", len(orders))
	}
	if first.Commit == nil || first.Commit.State != string(ledger.StateIntent) || first.Commit.Key != orders[0].ClientReference {
		t.Fatalf("first run's commit = %+v, want the row left intent under %s", first.Commit, orders[0].ClientReference)
	}

	if err := s.Vendor.SetKnobs(sites.Knobs{}); err != nil {
		t.Fatal(err)
	}
	second, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2, NoScreenshots: true})
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if n := len(s.Vendor.Orders()); n != 1 {
		t.Fatalf("the site holds %d orders after the second run, want 1", n)
	}
	if !second.Commit.Existing || second.Commit.State != string(ledger.StateCommitted) || second.Commit.OrderID != orders[0].ID {
		t.Fatalf("second run's commit = %+v, want the row committed as %s by the probe at start", second.Commit, orders[0].ID)
	}
	resolved := false
	for _, e := range events(t, dir, second.RunID) {
		if e.Kind == "recovery" && payload(t, e)["resolved"] == true && payload(t, e)["order_id"] == orders[0].ID {
			resolved = true
		}
	}
	if !resolved {
		t.Fatal("the second run did not resolve the intent through the probe at its start")
	}
	// The run that finalized the row writes its commit bundle.
	if second.Paths.Bundle == "" {
		t.Fatal("the run that recovered the commit wrote no commit bundle")
	}
	b, err := bundle.ReadFile(second.Paths.Bundle, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if c := b.Manifest.Commit; c == nil || c.OrderID != orders[0].ID || c.Key != orders[0].ClientReference {
		t.Fatalf("the recovered commit's bundle names %+v, want order %s", b.Manifest.Commit, orders[0].ID)
	}
}
