package commit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	pl "github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// onIntent is a Recorder that runs a hook once, when the committer
// records the intent row it is about to send under.
type onIntent struct {
	once sync.Once
	hook func()
}

func (r *onIntent) Record(_ context.Context, kind, _ string, payload any, _ ...string) {
	if l, ok := payload.(pl.Ledger); ok && kind == "ledger" && l.State == string(ledger.StateIntent) && !l.Pending {
		r.once.Do(r.hook)
	}
}

// TestSlowCommitIsNotFinalizedAsFailed: the site turns slow once the
// intent row exists, so the order is placed but its confirmation page
// does not load within the action timeout. The row must not end failed:
// when the probe cannot answer either, it stays intent and the next run
// resolves it through the probe without sending anything; when the probe
// answers at once, the same attempt finalizes it committed with the
// site's order id. Either way the site holds exactly one order.
func TestSlowCommitIsNotFinalizedAsFailed(t *testing.T) {
	for _, tc := range []struct {
		name       string
		slow       sites.Knobs
		probeFor   time.Duration // commit.confirm.timeout
		probeFinds bool
	}{
		{name: "probe unavailable", slow: sites.Knobs{Latency: 2 * time.Second, FailStatus: map[string]int{"/api/orders": 503}}, probeFor: 2 * time.Second},
		{name: "probe answers", slow: sites.Knobs{Latency: 2 * time.Second}, probeFor: 8 * time.Second, probeFinds: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			tk := *f.task
			tk.Commit.Confirm.Timeout = task.Duration(tc.probeFor)
			f.task = &tk
			c := f.committer(t, "run")
			c.Spec.Timeout = task.Duration(3 * time.Second)
			c.Events = &onIntent{hook: func() {
				if err := f.site.SetKnobs(tc.slow); err != nil {
					t.Error(err)
				}
			}}
			ctx := context.Background()
			res, err := c.Commit(ctx, []commit.Candidate{f.winner()})
			orders := f.site.Orders()
			if len(orders) != 1 {
				t.Fatalf("the site holds %d orders after the slow commit (err %v), want 1", len(orders), err)
			}
			if res == nil || res.Entry.Key != orders[0].ClientReference {
				t.Fatalf("result %+v does not name the order's key %s (err %v)", res, orders[0].ClientReference, err)
			}
			row, gerr := c.Ledger.Get(ctx, res.Entry.Key)
			if gerr != nil {
				t.Fatal(gerr)
			}
			if tc.probeFinds {
				if err != nil || !res.Recovered || row.State != ledger.StateCommitted || row.OrderID != orders[0].ID {
					t.Fatalf("commit = %v, row %s %q; want committed by the probe with order %s", err, row.State, row.OrderID, orders[0].ID)
				}
			} else {
				if !errors.Is(err, commit.ErrUncertain) || row.State != ledger.StateIntent {
					t.Fatalf("commit = %v, row %s %q; want ErrUncertain and the row left intent", err, row.State, row.OrderID)
				}
				// The site recovers; the next run's committer resolves the
				// intent through the probe instead of sending it again.
				if err := f.site.SetKnobs(sites.Knobs{}); err != nil {
					t.Fatal(err)
				}
				next := f.committer(t, "run2")
				res, err = next.Commit(ctx, []commit.Candidate{f.winner()})
				if err != nil || !res.Recovered || res.Entry.State != ledger.StateCommitted || res.Entry.OrderID != orders[0].ID {
					t.Fatalf("next run = %+v, %v; want the intent resolved by the probe as order %s", res, err, orders[0].ID)
				}
			}
			if n := len(f.site.Orders()); n != 1 {
				t.Fatalf("the site holds %d orders, want 1", n)
			}
			again, err := f.committer(t, "run3").Commit(ctx, []commit.Candidate{f.winner()})
			if err != nil || !again.Existing || again.Entry.OrderID != orders[0].ID || len(f.site.Orders()) != 1 {
				t.Fatalf("a rerun = %+v, %v with %d orders; want the existing commit and no second order", again, err, len(f.site.Orders()))
			}
		})
	}
}

// TestUnkeptEvidenceRefusesCommit: an artifact of the commit itself (the
// boundary's DOM snapshot at preflight) that cannot be stored stops the
// committer before it writes an intent or sends anything.
func TestUnkeptEvidenceRefusesCommit(t *testing.T) {
	f := setup(t)
	c := f.committer(t, "run")
	objs := filepath.Join(f.store.Root(), "sha256")
	if err := os.RemoveAll(objs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(objs, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := c.Commit(context.Background(), []commit.Candidate{f.winner()})
	if !errors.Is(err, commit.ErrAuditTrail) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("err = %v, want the audit trail refusal", err)
	}
	if n := len(f.site.Orders()); n != 0 {
		t.Fatalf("the site holds %d orders", n)
	}
	if es, err := c.Ledger.List(context.Background(), ledger.Filter{}); err != nil || len(es) != 0 {
		t.Fatalf("ledger = %+v, %v; want no row", es, err)
	}
}

// kinds records the kinds of the events a committer records.
type kinds struct {
	mu   sync.Mutex
	seen []string
}

func (k *kinds) Record(_ context.Context, kind, _ string, _ any, _ ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.seen = append(k.seen, kind)
}

func (k *kinds) has(kind string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.seen {
		if s == kind {
			return true
		}
	}
	return false
}

// TestRerunWithProbeDownSendsNothing: an attempt whose outcome was not
// seen leaves its row intent; a rerun while the confirm probe still
// cannot answer (the site up, its probe endpoint failing) must not send
// the commit again, since nobody can tell whether the first attempt
// landed. It ends uncertain, saying nothing was sent; once the probe
// answers, the next run resolves the row from it.
func TestRerunWithProbeDownSendsNothing(t *testing.T) {
	f := setup(t)
	tk := *f.task
	cm := *tk.Commit
	cm.Confirm.Timeout = task.Duration(2 * time.Second)
	tk.Commit = &cm
	f.task = &tk
	probeDown := map[string]int{"/api/orders": 503}
	c := f.committer(t, "run")
	c.Spec.Timeout = task.Duration(3 * time.Second)
	c.Events = &onIntent{hook: func() {
		if err := f.site.SetKnobs(sites.Knobs{Latency: 2 * time.Second, FailStatus: probeDown}); err != nil {
			t.Error(err)
		}
	}}
	ctx := context.Background()
	if _, err := c.Commit(ctx, []commit.Candidate{f.winner()}); !errors.Is(err, commit.ErrUncertain) {
		t.Fatalf("first attempt = %v, want ErrUncertain", err)
	}
	if err := f.site.SetKnobs(sites.Knobs{FailStatus: probeDown}); err != nil {
		t.Fatal(err)
	}
	next := f.committer(t, "run2")
	seen := &kinds{}
	next.Events = seen
	_, err := next.Commit(ctx, []commit.Candidate{f.winner()})
	if !errors.Is(err, commit.ErrUncertain) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("rerun with the probe down = %v, want ErrUncertain saying nothing was sent", err)
	}
	if seen.has("commit_action") {
		t.Fatal("the rerun performed the commit action again while the probe could not tell whether the first landed")
	}
	orders := f.site.Orders()
	if len(orders) != 1 {
		t.Fatalf("the site holds %d orders, want 1", len(orders))
	}
	if row, err := next.Ledger.Get(ctx, orders[0].ClientReference); err != nil || row.State != ledger.StateIntent {
		t.Fatalf("row = %+v, %v; want it left intent", row, err)
	}
	if err := f.site.SetKnobs(sites.Knobs{}); err != nil {
		t.Fatal(err)
	}
	last, err := f.committer(t, "run3").Commit(ctx, []commit.Candidate{f.winner()})
	if err != nil || !last.Recovered || last.Entry.OrderID != orders[0].ID || len(f.site.Orders()) != 1 {
		t.Fatalf("run with the probe back = %+v, %v; want the row resolved as order %s", last, err, orders[0].ID)
	}
}
