package simweb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/simweb"
)

var _ orchestrator.Executor = (*simweb.Executor)(nil)

// TestOrchestratorRun runs a whole exploration through the real
// orchestrator and an embedded NATS server, with the simulated web as the
// workers' executor.
func TestOrchestratorRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded NATS server")
	}
	site := simweb.Generate(11, simweb.DefaultConfig())
	tk, err := site.Task()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: t.TempDir(), Workers: 2,
		Executor: simweb.NewExecutor(site), ExploreOnly: true})
	if err != nil {
		t.Fatalf("run: %v (summary %+v)", err, sum)
	}
	if sum.Status != "explored" || sum.Winner == nil || len(sum.Winner.Steps) < 4 {
		t.Fatalf("summary %+v", sum)
	}
	last := sum.Winner.Steps[len(sum.Winner.Steps)-1]
	if !strings.HasPrefix(last, "click button") {
		t.Fatalf("the winner ends with %q, not the submit of the checkout", last)
	}
}
