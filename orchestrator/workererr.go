package orchestrator

import (
	"context"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/worker"
)

// handle wraps the in-process workers' handler to keep each job's last
// error: a job that fails every delivery is reported with it.
func (r *run) handle(h Executor) bus.Handler {
	handle := worker.BusHandler(h.Handle)
	return func(ctx context.Context, job bus.Job) ([]byte, error) {
		out, err := handle(ctx, job)
		if err != nil && ctx.Err() == nil {
			r.workerErrsMu.Lock()
			if r.workerErrs == nil {
				r.workerErrs = map[string]string{}
			}
			r.workerErrs[job.BranchID] = r.sc.Text(err.Error())
			r.workerErrsMu.Unlock()
		}
		return out, err
	}
}

// lastWorkerError says why a job failed its deliveries: its last error
// when an in-process worker ran it, else where remote workers say it.
func (r *run) lastWorkerError(branchID string) string {
	r.workerErrsMu.Lock()
	defer r.workerErrsMu.Unlock()
	if msg := r.workerErrs[branchID]; msg != "" {
		return "the last: " + msg
	}
	return "remote workers log each failure on their stderr when started with -v"
}
