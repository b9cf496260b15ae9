package orchestrator

import (
	"sort"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// logResult records what the worker did for a branch: the action span,
// the observation, the step's requests and the budget debit.
func (r *run) logResult(search *planner.Search, n *planner.Node) {
	res := r.results[n.ID]
	if res == nil {
		return
	}
	// Every action the worker executed, the replayed prefix included: the
	// record of what the browser really did, span by span.
	span := newSpanID()
	for i, st := range res.Steps {
		a := n.Plan[len(n.Plan)-len(res.Steps)+i]
		span = st.SpanID
		if span == "" {
			span = newSpanID()
		}
		start := payload.ActionStart{Step: st.Step, Action: a.Describe(), ActionKind: a.Kind, Replayed: st.Replayed,
			Worker: res.Worker, Attempt: res.Attempt, PlanDigest: n.Digest}
		if !st.Replayed {
			prefix, ctxMS, warm := res.Timing.Prefix, res.Timing.Context, res.Reused
			start.PrefixMS, start.ContextMS, start.Warm = &prefix, &ctxMS, &warm
			start.PrefixNet = res.PrefixNet
			start.RoutedTo = r.disp.routedTo[n.ID]
		}
		r.rec.addSpan(st.Start, 0, eventlog.KindActionStart, n.ID, span, start)
		r.rec.addSpan(st.End, st.VirtualTime, eventlog.KindActionEnd, n.ID, span, payload.ActionEnd{
			Step: st.Step, Status: st.Status, Code: st.Code, Error: r.sc.Text(st.Error), Strategy: st.Strategy,
			DurationMS: st.End.Sub(st.Start).Milliseconds(), Replayed: st.Replayed, Via: st.Via, Console: st.Console, Slow: st.Slow, Nav: st.Nav})
	}
	if o := res.Obs; o != nil {
		r.rec.addSpan(time.Time{}, o.VirtualTime, eventlog.KindNav, n.ID, span, payload.Nav{URL: o.URL, Title: o.Title, Status: o.Status})
		r.rec.addSpan(time.Time{}, o.VirtualTime, eventlog.KindDOMSnapshot, n.ID, span, payload.DOMSnapshot{
			DOMHash: o.DOMHash, AXHash: o.AXHash, NetDigest: o.NetDigest, Screenshot: o.ScreenshotHash,
			DOMArtifact: o.DOMArtifact, AXArtifact: o.AXArtifact, Predicates: o.Predicates,
			DeadEnds: o.DeadEnds, Affordances: len(o.Affordances), AtBoundary: res.AtBoundary, Live: o.Live, LiveDropped: o.LiveDropped, Recall: o.Recall},
			o.DOMArtifact, o.AXArtifact, o.ScreenshotHash)
	}
	// The step's requests, scrubbed at capture: enough to serve them back
	// on replay (bodies are artifacts) and to export HAR.
	for _, nr := range res.Net {
		var arts []string
		if nr.BodyHash != "" {
			arts = append(arts, nr.BodyHash)
		}
		r.rec.addSpan(time.Time{}, 0, eventlog.KindNet, n.ID, span, payload.Net{NetRecord: nr}, arts...)
	}
	for _, h := range res.Held { // scrubbed by the session
		r.rec.addSpan(time.Time{}, 0, eventlog.KindRequestHeld, n.ID, span, payload.RequestHeld{Held: h})
	}
	if h := causedHeld(res); h != nil {
		r.rec.addSpan(time.Time{}, 0, eventlog.KindSideEffect, n.ID, span, payload.SideEffect{Held: *h, Action: r.sc.Text(n.Action().Describe()), URL: pageURL(res)})
	}
	for _, u := range res.Unsupported {
		r.rec.addSpan(time.Time{}, 0, eventlog.KindUnsupportedTraffic, n.ID, span, map[string]any{"what": r.sc.Text(u)})
	}
	if res.Status != "ok" {
		r.rec.addSpan(time.Time{}, 0, eventlog.KindError, n.ID, span, map[string]any{"where": "branch", "code": res.ErrCode,
			"error": r.sc.Text(res.ErrMsg), "step": res.ErrStep})
	}
	t := r.t
	r.rec.add(time.Time{}, 0, eventlog.KindBudgetDebit, n.ID, map[string]any{
		"actions": len(res.Steps), "cost": n.Cost, "spent": search.Spent(), "cost_budget": t.Budgets.Cost,
		"branches": search.Executed(), "branch_budget": t.Budgets.TotalBranches,
		"elapsed_ms": time.Since(r.start).Milliseconds(), "wall_clock_budget_ms": t.Budgets.WallClock.D().Milliseconds(),
		"branch_ms": res.Timing.Total})
}

// logSearch records the search's decisions, each from its typed detail.
func (r *run) logSearch(evs []planner.Event) {
	for _, e := range evs {
		n := e.Node
		switch e.Kind {
		case planner.EventFork:
			r.startSpan(n)
			f := payload.BranchFork{Parent: n.ParentID, PlanDigest: n.Digest, Seed: n.Seed, Depth: n.Depth,
				Action: n.Action().Describe(), Prior: e.Fork.Prior, Utility: e.Fork.Utility, Reason: e.Fork.Reason, Plan: n.Plan, Wave: n.Wave}
			if n.Ablation != nil {
				f.Removed = n.Ablation.Removed
			}
			r.rec.add(time.Time{}, 0, eventlog.KindBranchFork, n.ID, f)
		case planner.EventPrune:
			defer r.endSpan(n)
			r.rec.add(time.Time{}, 0, eventlog.KindBranchPruned, n.ID, payload.BranchPruned{Rule: e.Prune.Rule, Detail: e.Prune.Detail,
				State: string(n.State), PlanDigest: n.Digest, J: n.Score.J, Progress: n.Score.Progress})
		case planner.EventScore:
			r.rec.add(time.Time{}, 0, eventlog.KindMetricUpdate, n.ID, payload.MetricUpdate{Score: e.Score.Score, Flips: e.Score.Flips,
				Credit: e.Score.Credit, Action: e.Score.Action})
		case planner.EventWidth:
			w := e.Width
			r.rec.add(time.Time{}, 0, eventlog.KindBeamWidth, "", payload.BeamWidth{From: w.From, To: w.To, BestJ: w.BestJ, SecondJ: w.SecondJ})
		case planner.EventGuide:
			r.logGuide(n, e.Guide)
		case planner.EventAblation:
			a := e.Ablation
			actions := make([]string, len(a.Actions))
			for i, x := range a.Actions {
				actions[i] = r.sc.Text(x)
			}
			r.rec.add(time.Time{}, 0, eventlog.KindAblation, n.ID, payload.Ablation{Winner: a.Winner, Removed: a.Removed,
				Actions: actions, Needed: a.Needed, Why: r.sc.Text(a.Why), Credit: a.Credit})
		}
	}
}

func (r *run) countBranches(search *planner.Search) {
	c := BranchCounts{}
	var explored []string
	for _, n := range search.Nodes() {
		c.Forked++
		switch n.State {
		case planner.StateExplored:
			c.Explored++
		case planner.StateBoundary:
			c.Boundary++
		case planner.StatePruned:
			c.Pruned++
		case planner.StateFailed:
			c.Failed++
		}
		if n.Prune != nil {
			r.sum.Pruned[n.Prune.Rule]++
		}
		if n.Outcome != nil {
			c.Executed++
			if n.Ablation == nil { // minimization's tries are not the search's
				explored = append(explored, n.Digest)
			}
		}
	}
	sort.Strings(explored)
	r.sum.Warm, r.sum.Actions = 0, 0
	var tm TimingSummary
	for _, res := range r.results {
		r.sum.Actions += len(res.Steps)
		if res.Reused {
			r.sum.Warm++
		}
		tm.ContextMS += float64(res.Timing.Context)
		tm.PrefixMS += float64(res.Timing.Prefix)
		tm.ActionMS += float64(res.Timing.Action)
		tm.ObserveMS += float64(res.Timing.Observe)
		tm.TotalMS += float64(res.Timing.Total)
	}
	if n := float64(len(r.results)); n > 0 {
		tm = TimingSummary{ContextMS: tm.ContextMS / n, PrefixMS: tm.PrefixMS / n, ActionMS: tm.ActionMS / n, ObserveMS: tm.ObserveMS / n, TotalMS: tm.TotalMS / n}
	}
	r.sum.Timing = tm
	r.sum.Branches = c
	r.sum.Explored = explored
	r.sum.Spent = search.Spent()
	r.sum.MaxConcurrent = r.maxConcurrent()
	r.summarizeHeld(search)
}

// maxConcurrent sweeps the action spans of every result and returns the
// largest number that overlapped.
func (r *run) maxConcurrent() int {
	type edge struct {
		t     time.Time
		delta int
	}
	var edges []edge
	for _, res := range r.results {
		if len(res.Steps) == 0 {
			continue
		}
		edges = append(edges, edge{res.Started, 1}, edge{res.Steps[len(res.Steps)-1].End, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if !edges[i].t.Equal(edges[j].t) {
			return edges[i].t.Before(edges[j].t)
		}
		return edges[i].delta < edges[j].delta
	})
	cur, best := 0, 0
	for _, e := range edges {
		cur += e.delta
		best = max(best, cur)
	}
	return best
}

func (r *run) progress(search *planner.Search, running int, phase string) {
	if r.cfg.Progress == nil {
		return
	}
	best := 0.0
	for _, n := range search.Nodes() {
		if n.Outcome != nil && n.Score.J > best {
			best = n.Score.J
		}
	}
	r.cfg.Progress(Progress{Elapsed: time.Since(r.start), Budget: r.t.Budgets.WallClock.D(), Wave: r.sum.Waves,
		Frontier: search.Pending(), Running: running, Workers: r.workers, Executed: search.Executed(), BestJ: best, Phase: phase})
}

// pageURL is the URL the branch's last observation saw, or "".
func pageURL(res *job.Result) string {
	if res.Obs == nil {
		return ""
	}
	return res.Obs.URL
}
