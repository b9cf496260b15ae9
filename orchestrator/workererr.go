package orchestrator

import (
	"context"
	"sync"

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
			r.workerErrs.put(job.BranchID, r.sc.Text(err.Error()))
		}
		return out, err
	}
}

// lastWorkerError says why a job failed its deliveries: its last error
// when an in-process worker ran it, else where remote workers say it.
func (r *run) lastWorkerError(branchID string) string {
	if msg := r.workerErrs.last(branchID); msg != "" {
		return "the last: " + msg
	}
	return "remote workers log each failure on their stderr when started with -v"
}

// workerErrors keeps the last error of each job the in-process workers
// ran, scrubbed, by branch id. Safe for concurrent use: the workers'
// goroutines write it, the run's reads it.
type workerErrors struct {
	mu   sync.Mutex
	errs map[string]string
}

func (w *workerErrors) put(branchID, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.errs == nil {
		w.errs = map[string]string{}
	}
	w.errs[branchID] = msg
}

func (w *workerErrors) last(branchID string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errs[branchID]
}
