package bus_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

// An orchestrator and an in-process worker on an embedded server: one job
// goes out, one result comes back.
func Example() {
	dir, err := os.MkdirTemp("", "mv-bus-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown()
	c, err := bus.Connect(ctx, srv.ClientURL())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	// The worker: runs each branch job and returns its result.
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	done := make(chan error, 1)
	go func() {
		done <- c.Work(wctx, bus.WorkerConfig{Slots: 2}, func(ctx context.Context, job bus.Job) ([]byte, error) {
			return []byte(strings.ToUpper(string(job.Data))), nil
		})
	}()

	// The orchestrator: publishes a job and reads the run's results.
	results, err := c.Results(ctx, "01JRUN")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.PublishJob(ctx, "01JRUN", "01JBRANCH", []byte("navigate /pricing"), nil); err != nil {
		fmt.Println(err)
		return
	}
	r := <-results
	fmt.Printf("%s %s attempt %d: %s\n", r.RunID, r.BranchID, r.Attempt, r.Data)

	stopWorker()
	fmt.Println("worker stopped:", <-done)
	// Output:
	// 01JRUN 01JBRANCH attempt 1: NAVIGATE /PRICING
	// worker stopped: <nil>
}
