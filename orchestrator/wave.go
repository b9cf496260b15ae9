package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// wave is the dispatch state of one wave: the branches it waits for,
// their jobs, and what came back.
type wave struct {
	want    map[string]*planner.Node
	jobs    map[string]*job.Job
	ranWith map[string]int // branch -> the login version its job carried
	got     map[string]planner.Outcome
	raw     map[string]*job.Result
}

// open reports whether the wave still waits for a branch's result.
func (w *wave) open(branchID string) bool {
	_, in := w.want[branchID]
	_, done := w.got[branchID]
	return in && !done
}

func (w *wave) answered(branchID string) bool {
	_, done := w.got[branchID]
	return done
}

// runWave publishes the wave's jobs and collects their results. Results
// of other branches (late, duplicate or stale deliveries) are ignored:
// only the first result per branch of this wave counts.
func (r *run) runWave(ctx context.Context, client *bus.Client, results <-chan bus.Result, search *planner.Search, nodes []*planner.Node) (map[string]planner.Outcome, error) {
	w, outs, err := r.prepareWave(ctx, nodes)
	if err != nil {
		return nil, err
	}
	pending, err := r.disp.publish(ctx, outs)
	if err != nil {
		return nil, err
	}
	r.sum.Routed += len(pending)
	r.progress(search, len(w.want), "explore")
	if err := r.collect(ctx, client, results, search, w, pending); err != nil {
		return nil, err
	}
	for id, res := range w.raw {
		r.results[id] = res
	}
	return w.got, nil
}

// prepareWave encodes the wave's jobs. A child goes to the worker that
// kept its parent's live context: one child per parent, the first in the
// wave's order (its heir, job.Job.Heir), as a kept context continues
// once.
func (r *run) prepareWave(ctx context.Context, nodes []*planner.Node) (*wave, []outJob, error) {
	if r.reruns == nil {
		r.reruns = map[string]int{}
	}
	w := &wave{want: map[string]*planner.Node{}, jobs: map[string]*job.Job{}, ranWith: map[string]int{},
		got: map[string]planner.Outcome{}, raw: map[string]*job.Result{}}
	usedParent := map[string]bool{}
	outs := make([]outJob, 0, len(nodes))
	for _, n := range nodes {
		route := ""
		if p := r.results[n.ParentID]; p != nil && p.WarmRoute != "" && !usedParent[n.ParentID] {
			usedParent[n.ParentID] = true
			route = p.WarmRoute
		}
		j := &job.Job{RunID: r.runID, BranchID: n.ID, ParentID: n.ParentID, Heir: route != "", Plan: n.Plan, PlanDigest: n.Digest,
			Deadline: r.t.Budgets.BranchWallClock, Spec: r.specFor(n)}
		data, err := j.Encode()
		if err != nil {
			return nil, nil, fmt.Errorf("orchestrator: encoding job: %w", err)
		}
		w.jobs[n.ID], w.ranWith[n.ID] = j, r.spec.Login
		// The branch span's context travels with the job, so the worker's
		// step spans join this trace, whatever process runs it.
		hdr := nats.Header{}
		if span := r.spans[n.ID]; span != nil {
			otel.GetTextMapPropagator().Inject(trace.ContextWithSpan(ctx, span), bus.HeaderCarrier(hdr))
		}
		outs = append(outs, outJob{branchID: n.ID, data: data, hdr: hdr, route: route})
		w.want[n.ID] = n
	}
	return w, outs, nil
}

// collect waits until every branch of the wave has an outcome: its
// result, or its loss (no result in time, deliveries used up). Routed
// jobs wait for their worker only so long: one that is busy or gone hands
// the job to whoever is free.
func (r *run) collect(ctx context.Context, client *bus.Client, results <-chan bus.Result, search *planner.Search, w *wave, pending []routedJob) error {
	published := time.Now()
	var routeTick <-chan time.Time // nil (never ready) once no route is pending
	if len(pending) > 0 {
		t := time.NewTicker(r.disp.routeWait / 4)
		defer t.Stop()
		routeTick = t.C
	}
	timer := time.NewTimer(r.t.Budgets.BranchWallClock.D() + ResultGrace)
	defer timer.Stop()
	deadCheck := time.NewTicker(deadJobsCheck)
	defer deadCheck.Stop()
	for len(w.got) < len(w.want) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c := <-r.disp.claims:
			r.disp.noteClaim(c)
		case <-r.storageFull():
			return fmt.Errorf("orchestrator: exploring: %w", r.nats.StorageErr())
		case <-routeTick:
			var n int
			var err error
			if pending, n, err = r.disp.reroute(ctx, pending, w.answered, time.Since(published)); err != nil {
				return err
			}
			r.sum.Rerouted += n
			if len(pending) == 0 {
				routeTick = nil
			}
		case <-deadCheck.C:
			maps.Copy(w.got, r.disp.dead(ctx, w.open, r.lastWorkerError))
		case <-timer.C:
			var open []string
			for id := range w.want {
				if w.open(id) {
					open = append(open, id)
				}
			}
			maps.Copy(w.got, r.disp.lost(open))
		case m, ok := <-results:
			if !ok {
				return errors.New("orchestrator: the results subscription ended")
			}
			r.take(ctx, client, search, w, m)
		}
	}
	return nil
}

// take folds a delivered result into the wave, when it counts.
func (r *run) take(ctx context.Context, client *bus.Client, search *planner.Search, w *wave, m bus.Result) {
	_, inWave := w.want[m.BranchID]
	if !r.disp.counts(m, inWave, w.answered(m.BranchID), r.results[m.BranchID] != nil) {
		return
	}
	res, err := job.DecodeResult(m.Data)
	if err != nil {
		w.got[m.BranchID] = planner.Outcome{Code: "bad_result", Msg: err.Error()}
		return
	}
	if r.again(ctx, client, res, m.Attempt, w.jobs[m.BranchID], w.ranWith) {
		return
	}
	w.raw[m.BranchID] = res
	r.mirror(ctx, res)
	w.got[m.BranchID] = planner.Outcome{OK: res.Status == job.ResultOK, Code: res.ErrCode, Msg: res.ErrMsg,
		Step: res.ErrStep, Obs: res.Obs, AtBoundary: res.AtBoundary, Blocked: res.Blocked, Held: causedHeld(res), Actions: len(res.Steps), Intent: res.Intent,
		Healed: res.Healed()}
	r.progress(search, len(w.want)-len(w.got), "explore")
}

// specFor is the job spec of a branch: the run's, except that the steps of
// a cached plan before its last skip the advisory screenshot (a known path
// replayed for speed; the last step, the commit's own evidence and every
// strict hash are kept).
func (r *run) specFor(n *planner.Node) *job.Spec {
	if !r.spec.Screenshots || n.Guide == 0 || n.Depth >= n.Guide {
		return r.spec
	}
	s := *r.spec
	s.Screenshots = false
	return &s
}

// causedHeld is the request the branch's last action asked for and its
// session held, or nil.
func causedHeld(res *job.Result) *branch.Held {
	if res.ErrCode != branch.CodeSideEffect {
		return nil
	}
	for i := len(res.Held) - 1; i >= 0; i-- {
		if h := res.Held[i]; h.Caused && h.Step == res.ErrStep {
			return &h
		}
	}
	return nil
}
