package orchestrator_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// TestBrokenAuditTrailRefusesCommit: when the run's audit trail failed
// before the commit (an event log append, the scrubbing key's write, an
// artifact's Put), the committer sends nothing and says why, with exit
// code 4 (commit aborted).
func TestBrokenAuditTrailRefusesCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	for _, tc := range []struct {
		name string
		// before runs before the run starts; explore once the first wave
		// was folded; commit when the winners are named.
		before, explore, commit func(t *testing.T, dir string)
		want                    string
	}{
		{name: "event log append", commit: failEventAppends, want: "appending to the event log failed"},
		{name: "scrub key write", before: blockKeys, want: "the scrubbing key was not written"},
		{name: "artifact put", explore: breakArtifacts, commit: repairArtifacts, want: "an artifact was not stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSite(t, sites.Knobs{})
			dir := t.TempDir()
			if tc.before != nil {
				tc.before(t, dir)
			}
			var explored sync.Once
			cfg := orchestrator.Config{Task: checkoutTaskFrom(t, s.URL(), nil), DataDir: dir, Workers: 2, NoScreenshots: true}
			if tc.explore != nil {
				cfg.Progress = func(p orchestrator.Progress) {
					if p.Phase == "explore" && p.Executed > 0 {
						explored.Do(func() { tc.explore(t, dir) })
					}
				}
			}
			if tc.commit != nil {
				cfg.BeforeCommit = func() { tc.commit(t, dir) }
			}
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			sum, err := orchestrator.Run(ctx, cfg)
			if !errors.Is(err, commit.ErrAuditTrail) || orchestrator.ExitCode(err) != orchestrator.ExitAborted {
				t.Fatalf("err = %v (exit %d), want the audit trail refusal with exit %d", err, orchestrator.ExitCode(err), orchestrator.ExitAborted)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was sent") {
				t.Fatalf("error %q does not say why (%q) and that nothing was sent", err, tc.want)
			}
			if n := len(s.Vendor.Orders()); n != 0 {
				t.Fatalf("the site holds %d orders after a refused commit", n)
			}
			if sum == nil || sum.Status != "aborted" {
				t.Fatalf("summary = %+v, want status aborted", sum)
			}
			l, err := ledger.Open(context.Background(), filepath.Join(dir, "ledger.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			es, err := l.List(context.Background(), ledger.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.State == ledger.StateCommitted || e.State == ledger.StateIntent || e.Attempts > 0 {
					t.Fatalf("ledger row %+v: a refused commit leaves no attempt", e)
				}
			}
		})
	}
}

// failEventAppends makes every later append to the event log fail, as a
// full disk would, through the database's own machinery.
func failEventAppends(t *testing.T, dir string) {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "events.db")+"?_busy_timeout=5000")
	if err != nil {
		t.Error(err)
		return
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER test_fail_appends BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END`); err != nil {
		t.Error(err)
	}
}

// blockKeys puts a file where the data dir's keys directory goes.
func blockKeys(t *testing.T, dir string) {
	if err := os.WriteFile(filepath.Join(dir, "keys"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// breakArtifacts puts a file where the artifact store keeps its objects
// (every Put fails); repairArtifacts puts the objects back before the
// commit, so only the failures during exploration are left to notice.
func breakArtifacts(t *testing.T, dir string) {
	objs := filepath.Join(dir, "artifacts", "sha256")
	if err := os.Rename(objs, objs+".away"); err != nil {
		t.Error(err)
		return
	}
	if err := os.WriteFile(objs, nil, 0o600); err != nil {
		t.Error(err)
	}
}

func repairArtifacts(t *testing.T, dir string) {
	objs := filepath.Join(dir, "artifacts", "sha256")
	if err := os.Remove(objs); err != nil {
		t.Error(err)
		return
	}
	if err := os.Rename(objs+".away", objs); err != nil {
		t.Error(err)
	}
}
