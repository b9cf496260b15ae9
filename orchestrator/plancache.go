package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/plancache"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// PlanCacheDir is where a data dir keeps its plan cache.
func PlanCacheDir(dataDir string) string { return filepath.Join(dataDir, "plans") }

// followCache makes the search follow the cached plan of the task on its
// site, when there is one and the run may use it. A cache entry that does
// not read is recorded and ignored: the run searches from zero.
func (r *run) followCache(ctx context.Context, search *planner.Search) {
	if r.cfg.NoCache {
		return
	}
	e, err := plancache.Open(PlanCacheDir(r.dd)).Get(ctx, r.t.Digest(), r.t.SiteKey())
	if errors.Is(err, plancache.ErrNotFound) {
		return
	}
	if err != nil {
		r.rec.add(zeroTime, 0, eventlog.KindError, "", map[string]any{"where": "plan_cache", "error": err.Error()})
		return
	}
	plan := e.Plan()
	for i := range plan {
		plan[i].URL = r.t.AbsoluteURL(plan[i].URL) // stored relative to the site: see storePlan
	}
	g := &planner.Guide{Plan: plan, From: "of run " + e.RunID}
	for _, st := range e.Steps {
		g.Expect = append(g.Expect, st.Expect)
	}
	from := e.RunID + "/" + e.BranchID
	r.followsMinimal = e.Minimal
	r.sum.Cache = &CacheInfo{Hit: true, From: from, Steps: len(e.Steps)}
	r.rec.add(zeroTime, 0, eventlog.KindPlanCache, "", payload.PlanCache{What: "hit", Of: len(e.Steps), From: from})
	search.Follow(g)
}

// logGuide records a step of the followed plan and keeps the summary's
// count.
func (r *run) logGuide(n *planner.Node, g *planner.GuideInfo) {
	p := payload.PlanCache{What: "followed", Step: g.Step, Of: g.Of, Reason: g.Reason}
	c := r.sum.Cache // set by followCache, which made the search follow
	if g.Diverged {
		p.What = "diverged"
		c.DivergedAt, c.Reason = g.Step, g.Reason
	} else {
		c.Followed++
	}
	id := ""
	if n != nil {
		id = n.ID
	}
	r.rec.add(zeroTime, 0, eventlog.KindPlanCache, id, p)
}

// storePlan caches the winner's plan with the goal predicates observed
// after each of its steps, after the run committed or reached its goal.
// A plan that cannot be stored is recorded; the run's outcome stands.
func (r *run) storePlan(w *planner.Node) {
	if r.cfg.NoCache || r.cfg.ExploreOnly {
		return
	}
	var chain []*planner.Node
	for n := w; n != nil; n = n.Parent {
		chain = append(chain, n)
	}
	slices.Reverse(chain)
	if len(chain) != len(w.Plan) {
		return
	}
	e := &plancache.Entry{SchemaVersion: plancache.SchemaVersion, TaskDigest: r.t.Digest(), Task: r.t.Name, Site: r.t.SiteKey(),
		RunID: r.runID, BranchID: w.ID, Created: r.start.UTC()}
	// The minimal plan when the run found one: the winner's steps but
	// the detours, each resolved as the winner's node ran it. What a step
	// expects is what the winner saw after it while the steps before it
	// are the winner's; after a removed step it is not known until the
	// last, which the minimal branch saw.
	nodes, same := r.minimalSteps(w, chain)
	if m := r.minimal; m != nil && m.Winner == w {
		e.BranchID, e.Minimal = m.Node.ID, true
	}
	if r.followsMinimal && w.Guide == len(w.Plan) {
		e.Minimal = true // the minimal plan it followed, step for step
	}
	healed := 0
	for i, n := range nodes {
		planned := n.Action()
		st := plancache.Step{Action: r.asResolved(n, planned)}
		// URLs on the site are kept relative to it, and the entry is
		// keyed by the site's identity, not its port: the same site
		// served on another port follows the plan.
		st.Action.URL = r.t.RelativeURL(st.Action.URL)
		if st.Action.Target != planned.Target {
			healed++
		}
		obs := n.Outcome
		if i == len(nodes)-1 && r.minimal != nil && r.minimal.Winner == w {
			obs = r.minimal.Node.Outcome
		} else if !same[i] {
			obs = nil
		}
		if obs != nil && obs.Obs != nil {
			st.Expect = obs.Obs.Predicates
		}
		e.Steps = append(e.Steps, st)
	}
	store := plancache.Open(PlanCacheDir(r.dd))
	if err := store.Put(e); err != nil {
		r.rec.add(zeroTime, 0, eventlog.KindError, w.ID, map[string]any{"where": "plan_cache", "error": err.Error()})
		return
	}
	if r.sum.Cache == nil {
		r.sum.Cache = &CacheInfo{}
	}
	r.sum.Cache.Stored = true
	r.sum.Cache.File = filepath.Join(store.Dir(), plancache.Name(e.TaskDigest, e.Site))
	p := payload.PlanCache{What: "stored", Of: len(e.Steps)}
	if healed > 0 {
		p.Reason = fmt.Sprintf("%d healed target(s) stored without the strategies that no longer found them", healed)
	}
	r.rec.add(zeroTime, 0, eventlog.KindPlanCache, w.ID, p)
}

// asResolved is a branch's own step as the cache keeps it: when the
// worker healed its target (an earlier strategy no longer found it), the
// target without those strategies, so the next run finds it at once.
func (r *run) asResolved(n *planner.Node, a branch.Action) branch.Action {
	res := r.results[n.ID]
	if res == nil || len(res.Steps) == 0 || a.Target == nil {
		return a
	}
	last := res.Steps[len(res.Steps)-1]
	if last.Status != branch.StatusHealed || last.Strategy == "" {
		return a
	}
	t := browser.WithoutFailed(*a.Target, last.Strategy)
	if t == *a.Target {
		return a
	}
	a.Target = &t
	return a
}
