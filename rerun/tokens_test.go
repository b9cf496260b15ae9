package rerun_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/rerun"
	"github.com/multiverse-orchestrator/multiverse/sites/patterns"
)

// TestRerunFormTokens: a full rerun of a run on a site that writes a
// fresh form token into each page it renders (sites/patterns /wizard)
// reproduces the run's decisions, whether its branches continued their
// parents' contexts or each replayed its prefix in a context of its own
// (Cold): a branch recorded in a context of its own is served that
// context's answers, never continued from its parent's, whose pages
// hold other tokens.
func TestRerunFormTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv := httptest.NewServer(patterns.New(patterns.Options{}))
	defer srv.Close()
	tk, err := patterns.Task("wizard.yaml", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, cold := range []bool{false, true} {
		sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2, NoScreenshots: true, NoCache: true, Cold: cold})
		if err != nil {
			t.Fatal(err)
		}
		src, key := sourceOf(t, dir, sum.RunID)
		rep, err := rerun.Run(ctx, rerun.Options{Source: src, RunID: sum.RunID, Mode: rerun.ModeFull, Task: tk, ScrubKey: key, Workers: 2, OutDir: t.TempDir()})
		if err != nil || !rep.Compared.Same || len(rep.Misses) > 0 {
			t.Fatalf("cold %v: full rerun: %v, %d misses\n%s", cold, err, len(rep.Misses), report(rep))
		}
	}
}
