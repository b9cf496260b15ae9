package gym

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// TestPatternsAreFair: a person can solve every pattern family. For
// GYM_SEEDS seeds each (it runs only when that is set, as make bench
// does), the family's intended solution, done with explicit
// actions in real Chromium (no planner), ends on the success verdict,
// and its wrong attempt, where it has one, ends on the failure verdict.
func TestPatternsAreFair(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	if os.Getenv("GYM_SEEDS") == "" {
		t.Skip("solves every pattern family in Chromium: set GYM_SEEDS (make bench does) to run it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	rt, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	defer rt.Close()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	store, err := artifacts.OpenFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	seeds := int64(1)
	if v := os.Getenv("GYM_SEEDS"); v != "" {
		fmt.Sscan(v, &seeds)
	}
	for _, f := range slices.Sorted(maps.Keys(patterns)) {
		t.Run(f, func(t *testing.T) {
			for seed := int64(1); seed <= seeds; seed++ {
				e, err := New(f, seed)
				if err != nil {
					t.Fatal(err)
				}
				if len(e.solve) == 0 {
					t.Fatalf("seed %d: no solution", seed)
				}
				got, err := act(ctx, rt, store, srv.URL, e, e.solve)
				if err != nil || got != "success" {
					t.Errorf("seed %d %q: the solution ended %q, %v", seed, e.Goal, got, err)
				}
				if e.wrong == nil {
					continue
				}
				got, err = act(ctx, rt, store, srv.URL, e, e.wrong)
				if err != nil || got != "failure" {
					t.Errorf("seed %d %q: the wrong attempt ended %q, %v", seed, e.Goal, got, err)
				}
			}
		})
	}
}

// act opens the episode's page in a fresh session, does the steps and
// returns the verdict the page shows ("success", "failure" or "").
func act(ctx context.Context, rt *browser.Runtime, store *artifacts.FS, base string, e Episode, steps []step) (string, error) {
	s, err := rt.NewSession(ctx, browser.SessionOptions{Env: browser.Env{ActionTimeout: 3 * time.Second},
		RunSeed: uint64(e.Seed), Origin: base, Store: store})
	if err != nil {
		return "", err
	}
	defer s.Close()
	noInputs := func(string) (string, error) { return "", errors.New("no inputs") }
	do := func(a branch.Action) error {
		r, err := s.Do(ctx, a, noInputs)
		if err != nil {
			return err
		}
		if r.Status == branch.StatusFailed {
			return fmt.Errorf("%s: %s %s", a.Describe(), r.Code, r.Error)
		}
		return nil
	}
	if err := do(branch.Action{Kind: branch.KindNavigate, URL: base + e.Path}); err != nil {
		return "", err
	}
	for i, st := range steps {
		a := branch.Action{Kind: st.kind, Value: st.value}
		if st.css != "" {
			a.Target = &branch.Target{CSS: st.css}
		}
		if err := do(a); err != nil {
			return "", fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	probes := []scoring.Probe{
		{Kind: scoring.ProbeElement, Selector: SuccessSelector},
		{Kind: scoring.ProbeElement, Selector: FailureSelector},
	}
	for try := 0; try < 5; try++ {
		snap, err := s.Observe(ctx, browser.ObserveSpec{Probes: probes})
		if err != nil {
			return "", err
		}
		switch {
		case snap.Answers[probes[0]].Found:
			return "success", nil
		case snap.Answers[probes[1]].Found:
			return "failure", nil
		}
		if err := do(branch.Action{Kind: branch.KindWaitFor, Value: "200ms"}); err != nil {
			return "", err
		}
	}
	return "", nil
}
