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

type failingExecutor struct{}

func (failingExecutor) Handle(context.Context, job.Delivery) ([]byte, error) {
	return nil, errors.New("browser: new context: viewport too large for card 4111111111111111")
}

// TestFailedDeliveriesSayWhy: a job whose every delivery fails in an
// in-process worker fails its branch with the worker's last error
// (scrubbed), in the run's error and in the event log, instead of pointing
// at logs nobody wrote.
func TestFailedDeliveriesSayWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a job's redeliveries")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: demoTask(t, "http://127.0.0.1:9"), DataDir: dir, Workers: 1,
		Executor: failingExecutor{}, ExploreOnly: true})
	if err == nil || !strings.Contains(err.Error(), "deliveries; the last: browser: new context: viewport too large for card") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "in its logs") || strings.Contains(err.Error(), "4111111111111111") {
		t.Fatalf("err = %v", err)
	}
	found := false
	for _, e := range events(t, dir, sum.RunID) {
		if e.Kind == "error" && strings.Contains(string(e.Payload), "exhausted_deliveries") {
			found = strings.Contains(string(e.Payload), "viewport too large")
		}
	}
	if !found {
		t.Fatal("no dispatch error event with the worker's last error")
	}
}

// TestTooManyWorkers: more in-process worker slots than one process can
// pull with is bad input at once, not a run whose workers never start.
func TestTooManyWorkers(t *testing.T) {
	start := time.Now()
	_, err := orchestrator.Run(context.Background(), orchestrator.Config{Task: demoTask(t, "http://127.0.0.1:9"), DataDir: t.TempDir(), Workers: 257})
	if !errors.Is(err, orchestrator.ErrBadInput) || orchestrator.ExitCode(err) != orchestrator.ExitBadInput || !strings.Contains(err.Error(), "at most 256") {
		t.Fatalf("err = %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("refused after %s", el)
	}
}
