package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
)

// startSpan opens a branch's span when it is forked; it ends when the
// branch is folded after its execution, or pruned without one.
func (r *run) startSpan(n *planner.Node) {
	ctx, span := telemetry.Tracer().Start(trace.ContextWithSpan(context.Background(), r.runSpan), "branch "+r.sc.Text(n.Action().Describe()), trace.WithAttributes(
		attribute.String("multiverse.branch_id", n.ID), attribute.String("multiverse.plan_digest", n.Digest),
		attribute.Int("multiverse.depth", n.Depth), attribute.String("multiverse.action", n.Action().Kind)))
	r.spans[n.ID] = span
	_, id := telemetry.IDs(ctx)
	r.rec.setBranchSpan(n.ID, id)
}

func (r *run) endSpan(n *planner.Node) {
	span := r.spans[n.ID]
	if span == nil || n.State == planner.StatePending || n.State == planner.StateRunning {
		return
	}
	span.SetAttributes(attribute.String("multiverse.state", string(n.State)), attribute.Float64("multiverse.j", n.Score.J))
	if n.Prune != nil {
		span.SetAttributes(attribute.String("multiverse.pruned", n.Prune.Rule))
	}
	switch o := n.Outcome; {
	case n.State == planner.StateFailed && o != nil:
		span.SetStatus(codes.Error, string(o.Code)+": "+r.sc.Text(o.Msg))
	case n.State == planner.StateFailed:
		span.SetStatus(codes.Error, "the branch failed")
	case n.Prune != nil:
		// Work the search threw away: an error for the trace, with why.
		span.SetStatus(codes.Error, "pruned: "+n.Prune.Rule)
	default:
		span.SetStatus(codes.Ok, "")
	}
	span.End()
	delete(r.spans, n.ID)
}

// explore drives the search wave by wave until it has winners or cannot
// go on.
func (r *run) explore(ctx context.Context, client *bus.Client, results <-chan bus.Result) ([]*planner.Node, error) {
	ectx, cancel := context.WithTimeout(ctx, r.t.Budgets.WallClock.D())
	defer cancel()
	search, adv, err := r.newSearch(ectx)
	if err != nil {
		return nil, err
	}
	// However the search ends (a winner, none, out of time, the site
	// gone), what its branches measured is the site's: the slow runs too.
	// A run a person stopped (ctx, not the budget's ectx) says nothing of
	// whether its search would have reached the boundary.
	defer func() { r.foldLearning(search, ctx.Err() != nil) }()
	root := search.Root()
	r.logSearch(search.Drain())
	r.rec.flush(ctx)
	var decision planner.Decision
	for {
		wave := search.NextWave()
		if len(wave) == 0 {
			decision.Exhausted = "frontier empty"
			break
		}
		r.sum.Waves++
		got, err := r.runWave(ectx, client, results, search, wave)
		if err != nil {
			if ectx.Err() != nil && ctx.Err() == nil {
				return nil, r.outOfTime(ctx, search)
			}
			return nil, err
		}
		for _, n := range wave {
			search.Complete(n, got[n.ID])
		}
		if wave[0] == root {
			if err := r.afterRoot(ectx, search, wave, got); err != nil {
				return nil, err
			}
		}
		decision = r.fold(ectx, search, wave)
		if err := r.afterWave(ctx, search, decision, wave, got, adv); err != nil {
			return nil, err
		}
		if len(decision.Winners) > 0 || decision.Exhausted != "" {
			break
		}
	}
	r.countBranches(search)
	if len(decision.Winners) == 0 {
		return nil, r.noWinner(decision, search)
	}
	r.recordWinners(ctx, decision.Winners)
	r.minimize(ectx, client, results, search, decision.Winners[0])
	r.countBranches(search)
	r.rec.flush(ctx)
	return decision.Winners, nil
}

// newSearch makes the run's search: its proposer, the cached plan it
// follows, the substitutions a rerun asks for, and the model advisor
// (nil without one).
func (r *run) newSearch(ectx context.Context) (*planner.Search, *modelAdvisor, error) {
	prop, err := planner.NewProposer(r.t)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	search := planner.NewSearch(r.t, prop, func() string { return ulid.Make().String() })
	r.learnInto(search)
	r.followCache(ectx, search)
	for _, sub := range r.cfg.Substitutions {
		search.Substitute(sub.Plan, sub.With)
	}
	adv, err := r.newAdvisor()
	if err != nil {
		return nil, nil, err
	}
	if adv != nil {
		search.SetAdvisor(adv)
	}
	return search, adv, nil
}

// afterRoot pins the site's assignment of this visitor (the start page's
// cookies) for every branch, and ends the run when the start page
// itself failed: a site that cannot be opened is a site error.
func (r *run) afterRoot(ctx context.Context, search *planner.Search, wave []*planner.Node, got map[string]planner.Outcome) error {
	root := wave[0]
	if res := r.results[root.ID]; res != nil && len(res.Cookies) > 0 {
		spec := *r.spec
		spec.Cookies = res.Cookies
		r.spec = &spec
	}
	if len(wave) != 1 || got[root.ID].OK {
		return nil
	}
	o := got[root.ID]
	r.fold(ctx, search, wave)
	r.countBranches(search)
	switch o.Code {
	case branch.CodePageError, branch.CodeHTTPError, branch.CodeNavigationTimeout, branch.CodeTimeout:
		return &SiteError{URL: r.sc.URL(r.t.StartURL), Reason: fmt.Sprintf("opening it failed: %s: %s", o.Code, o.Msg)}
	}
	return fmt.Errorf("orchestrator: the start page branch failed: %s: %s", o.Code, o.Msg)
}

// afterWave ends the run after the search decided on a wave when the
// model failed for good or when every branch of the wave failed to reach
// the site (or some did before the search ran out) and the site is gone.
func (r *run) afterWave(ctx context.Context, search *planner.Search, decision planner.Decision, wave []*planner.Node, got map[string]planner.Outcome, adv *modelAdvisor) error {
	r.progress(search, 0, "explore")
	if adv != nil && adv.fatal != nil {
		search.Stop()
		r.logSearch(search.Drain())
		r.countBranches(search)
		return adv.fatal
	}
	failed := waveSiteFailures(wave, got)
	r.siteFailures += failed
	if len(decision.Winners) == 0 && (failed > 0 && failed == len(wave) || decision.Exhausted != "" && r.siteFailures > 0) {
		// Every branch of the wave failed to reach the site, or the
		// search ends after some did: is the site gone?
		why := fmt.Sprintf("wave %d: %d of %d branches failed to reach it, %d in all", r.sum.Waves, failed, len(wave), r.siteFailures)
		if err := r.siteLost(ctx, why); err != nil {
			search.Stop()
			r.logSearch(search.Drain())
			r.countBranches(search)
			return err
		}
	}
	return nil
}

// outOfTime is the error of a search whose wall clock budget ran out (or
// of a site that went away meanwhile); the search stops.
func (r *run) outOfTime(ctx context.Context, search *planner.Search) error {
	search.Stop()
	r.logSearch(search.Drain())
	r.countBranches(search)
	if r.siteFailures > 0 {
		why := fmt.Sprintf("%d branches failed to reach it before the wall clock budget ran out", r.siteFailures)
		if err := r.siteLost(ctx, why); err != nil {
			return err
		}
	}
	return fmt.Errorf("%w: the wall clock budget of %s ran out after %d waves", r.noGoal(), r.t.Budgets.WallClock.D(), r.sum.Waves)
}

// noWinner is the error of a search that ended without a winner.
func (r *run) noWinner(decision planner.Decision, search *planner.Search) error {
	if decision.AuthRequired > 0 {
		return loggedOut(r.t, decision.AuthRequired)
	}
	if decision.Definite {
		return fmt.Errorf("%w: %s after %d branches in %d waves; goal.failure held on %s", ErrGoalFailed,
			decision.Exhausted, search.Executed(), r.sum.Waves, failedCounts(decision.Failed))
	}
	if err := r.sideEffectStop(search); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s after %d branches in %d waves", r.noGoal(), decision.Exhausted, search.Executed(), r.sum.Waves)
}

// sideEffectStop is the error of a task without commit whose branches
// stopped at a side-effect boundary, or nil.
func (r *run) sideEffectStop(search *planner.Search) error {
	effects := search.Effects()
	if r.t.HasCommit() || len(effects) == 0 {
		return nil
	}
	e := effects[0]
	msg := fmt.Sprintf("%d branch(es) ended where their action would change the site; the best, %s, would send %s after %q",
		len(effects), e.Node.ID, e.Held.Describe(), r.sc.Text(e.Node.Action().Describe()))
	if len(e.Held.Fields) > 0 {
		msg += " (fields: " + strings.Join(e.Held.Fields, ", ") + ")"
	}
	return fmt.Errorf("%w: %s. Speculation never sends it: to make it the task's one side effect, add a commit section (a draft is in the summary), or, if it changes nothing, allow it in explore.allow", ErrSideEffect, msg)
}

// recordWinners records the winner ranking. Each candidate says which
// other one beats it on every objective, if any: the reader sees the
// Pareto front whatever the selection.
func (r *run) recordWinners(ctx context.Context, winners []*planner.Node) {
	cands := make([]scoring.Candidate, len(winners))
	for i, n := range winners {
		cands[i] = n.Candidate()
	}
	dominated := scoring.DominatedBy(cands)
	ranking := make([]payload.Rank, len(winners))
	for i, n := range winners {
		ranking[i] = payload.Rank{BranchID: n.ID, PlanDigest: n.Digest, J: n.Score.J, Cost: n.Cost, Steps: n.Depth,
			Progress: n.Score.Progress, Confidence: n.Score.Confidence, Risk: n.Score.Risk, DominatedBy: dominated[n.ID]}
	}
	order := "higher J, lower cost, fewer steps, plan digest, branch id"
	if r.t.Search.Selection == "pareto" {
		order = "Pareto front first (progress, confidence, risk, cost, steps), then " + order
	}
	r.rec.add(time.Time{}, 0, eventlog.KindWinner, winners[0].ID, payload.Winner{Order: order, Ranking: ranking})
	r.rec.flush(ctx)
}

// fold records the wave's results in digest order and lets the search
// decide; ctx bounds the model questions the search asks meanwhile (the
// exploration's wall clock).
func (r *run) fold(ctx context.Context, search *planner.Search, wave []*planner.Node) planner.Decision {
	for _, n := range wave { // NextWave returns the wave in digest order
		r.logResult(search, n)
	}
	d := search.EndWave(ctx)
	r.logSearch(search.Drain())
	for _, n := range wave {
		r.endSpan(n)
	}
	r.rec.flushAsync()
	return d
}

// search subscribes to the run's results and claims and explores until
// the search names its winners; the in-process workers stop after it.
func (r *run) search(ctx context.Context, conn *busConn, work *inprocWorkers) ([]*planner.Node, error) {
	client := conn.client
	results, err := client.Results(ctx, r.runID)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: subscribing to results: %w", err)
	}
	claims, err := client.Claims(ctx, r.runID)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: subscribing to claims: %w", err)
	}
	r.disp = newDispatcher(client, r.runID, r.log, r.rec, claims, conn.watch.Alive)
	if r.workers == 0 {
		if err := waitForWorkers(ctx, conn.watch, conn.url); err != nil {
			return nil, err
		}
	}
	exploreStart, exploreCPU := time.Now(), cpuTime()
	winners, err := r.explore(work.exploreCtx, client, results)
	if cause := context.Cause(work.exploreCtx); err != nil && ctx.Err() == nil && cause != nil {
		err = cause
	}
	r.sum.Explore = time.Since(exploreStart)
	r.sum.ExploreCPU = cpuTime() - exploreCPU
	client.Cancel(context.WithoutCancel(ctx), r.runID)
	work.stopWork()
	return winners, err
}
