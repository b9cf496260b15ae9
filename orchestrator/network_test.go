package orchestrator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestNetworkRefusesLiveParts: a run whose pages come from a recorded
// network (Config.Network) refuses, before it explores, whatever would
// still speak to the site: a committer, a scripted login, a custom
// executor that ignores Network. No site listens at the task's address:
// nothing may need it.
func TestNetworkRefusesLiveParts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded NATS server")
	}
	const nowhere = "http://127.0.0.1:1"
	served := 0
	network := func(context.Context, *job.Job) (string, func(), error) {
		served++
		return "", nil, errors.New("no session expected")
	}
	for _, c := range []struct {
		name string
		cfg  orchestrator.Config
		want string
	}{
		{"a commit", orchestrator.Config{Task: demoTask(t, nowhere)}, "explores only"},
		{"a scripted login", orchestrator.Config{Task: loginTask(t, nowhere, "pw"), ExploreOnly: true}, "cannot log in"},
		{"a custom executor", orchestrator.Config{Task: demoTask(t, nowhere), ExploreOnly: true, Executor: noExecutor{}}, "browser executor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cfg := c.cfg
			cfg.DataDir, cfg.Workers, cfg.Network = t.TempDir(), 1, network
			_, err := orchestrator.Run(ctx, cfg)
			if !errors.Is(err, orchestrator.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Run = %v, want ErrBadInput saying %q", err, c.want)
			}
		})
	}
	if served != 0 {
		t.Fatalf("a refused run asked the network for %d session(s)", served)
	}
}

type noExecutor struct{}

func (noExecutor) Handle(context.Context, job.Delivery) ([]byte, error) {
	return nil, errors.New("not expected")
}
