package simweb

import (
	"context"
	"fmt"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
)

// CodeNoSite is the error code of a job whose origin no simulated site
// serves.
const CodeNoSite = branch.CodePageError

// Executor executes branch jobs against simulated sites instead of a
// browser: it handles job deliveries, so it is usable as the
// orchestrator's Executor (and, through worker.BusHandler, as a bus
// handler).
// It is safe for concurrent use.
type Executor struct {
	// LatencyScale makes Handle sleep the simulated time of a job times
	// this factor (1 = as slow as the simulated site; 0 = no sleep).
	LatencyScale float64
	sites        map[string]*Site
}

// NewExecutor serves the given sites, each at its origin. A later site
// with the same origin replaces an earlier one.
func NewExecutor(sites ...*Site) *Executor {
	e := &Executor{sites: map[string]*Site{}}
	for _, s := range sites {
		e.sites[s.Origin] = s
	}
	return e
}

// Handle decodes a worker job, executes its plan on the site at the job
// spec's origin, optionally sleeps the scaled simulated latency, and
// encodes the result. Like the browser worker, a job that cannot be read
// or whose site is unknown is a failed result, not an error; the only
// error is ctx ending during the sleep, which makes the bus redeliver the
// job.
func (e *Executor) Handle(ctx context.Context, d job.Delivery) ([]byte, error) {
	j, err := job.DecodeJob(d.Data)
	if err != nil {
		r := &job.Result{RunID: d.RunID, BranchID: d.BranchID, Attempt: d.Attempt, Worker: WorkerName,
			Status: job.ResultFailed, ErrCode: branch.CodeBadJob, ErrMsg: err.Error()}
		return r.Encode()
	}
	s := e.sites[j.Spec.Origin]
	var res *job.Result
	var cost Cost
	if s == nil {
		res = &job.Result{Worker: WorkerName, Status: job.ResultFailed, ErrCode: CodeNoSite, ErrStep: 1,
			ErrMsg: fmt.Sprintf("no simulated site serves %s", j.Spec.Origin)}
	} else {
		res, cost = s.Execute(j.Plan, j.Spec)
	}
	res.RunID, res.BranchID, res.Attempt = j.RunID, j.BranchID, d.Attempt
	if d := time.Duration(float64(cost.SimMS) * e.LatencyScale * float64(time.Millisecond)); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return res.Encode()
}
