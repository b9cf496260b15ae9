package worker

import (
	"context"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/job"
)

// BusHandler adapts an executor of job deliveries (Executor.Handle, or
// one without a browser) to the bus: each bus job is handed over as a
// job.Delivery sharing the message's data and headers.
func BusHandler(handle func(context.Context, job.Delivery) ([]byte, error)) bus.Handler {
	return func(ctx context.Context, j bus.Job) ([]byte, error) {
		return handle(ctx, job.Delivery{RunID: j.RunID, BranchID: j.BranchID, Attempt: j.Attempt, Data: j.Data,
			Header: j.Header, Route: j.Route})
	}
}
