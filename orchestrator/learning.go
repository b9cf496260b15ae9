package orchestrator

import (
	"context"
	"net/url"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/internal/httpguard"
	"github.com/multiverse-orchestrator/multiverse/learn"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// LearnDir is where a data dir keeps what runs on each site measured.
func LearnDir(dataDir string) string { return filepath.Join(dataDir, "learn") }

// LearnSite is the name a task's site has in the learning store: its
// site key (task.SiteKey), except on a loopback host, where any app a
// developer or a test serves shares the key whatever its port: there the
// task's digest is part of the name, so two apps never mix their records.
func LearnSite(t *task.Task) string {
	site := t.SiteKey()
	if u, err := url.Parse(t.Origin()); err == nil && httpguard.LoopbackHost(u.Host) {
		site += " task " + t.Digest()[:16]
	}
	return site
}

// learning is what the run learned from and for its site.
type learning struct {
	// snap is the snapshot the search reads, nil when the run learns
	// nothing (search.learning: false, or the record did not read).
	snap *learn.Snapshot
	// pinned: the snapshot came with the run (Config.Learned, a rerun's),
	// and the run adds nothing to the site's record.
	pinned bool
	ref    *payload.Learning
}

// readLearning reads the site's record the run searches with (or takes
// the pinned one), keeps it as an artifact and says which in the
// manifest. A record that does not read is an error event; the run then
// learns nothing, and leaves the file as it found it.
func (r *run) readLearning(ctx context.Context) {
	if r.cfg.Learned != nil {
		r.learning = learning{snap: r.cfg.Learned, pinned: true}
	} else if r.t.Search.Learns() {
		snap, err := learn.Open(LearnDir(r.dd)).Get(ctx, LearnSite(r.t))
		if err != nil {
			r.learningError(err)
			return
		}
		r.learning = learning{snap: snap}
	} else {
		return
	}
	snap := r.learning.snap
	ref := &payload.Learning{Site: snap.Site, Version: snap.Version, Steps: len(snap.Steps), Pinned: r.learning.pinned}
	if b, err := snap.Encode(); err != nil {
		r.learningError(err)
	} else if d, err := r.store.Put(ctx, b); err != nil {
		r.learningError(err)
	} else {
		ref.Artifact = string(d)
	}
	r.learning.ref = ref
	r.sum.Learning = &LearningInfo{Version: snap.Version, Steps: len(snap.Steps), Pinned: r.learning.pinned}
}

// learningError records what went wrong with the site's record as an
// error event; the run goes on.
func (r *run) learningError(err error) {
	r.rec.add(zeroTime, 0, eventlog.KindError, "", map[string]any{"where": "learning", "error": err.Error()})
}

// learnInto makes search read the run's snapshot, when it has one that
// some run wrote (version 1 or later).
func (r *run) learnInto(search *planner.Search) {
	if s := r.learning.snap; s != nil && s.Version > 0 {
		search.Learn(s.Expect())
		r.sum.Learning.StallLimit = search.StallLimit()
	}
}

// foldLearning adds what the search's branches measured to the site's
// record: each executed branch's own last step (not a replayed prefix,
// not an ablation try) that ran, with its duration and the strategy that
// healed its target; whether the search reached the boundary and the
// longest stall on the way; the branches the stall rule pruned.
// interrupted says the run was stopped before its budget ended.
func (r *run) foldLearning(search *planner.Search, interrupted bool) {
	if r.learning.snap == nil || r.learning.pinned {
		return
	}
	run := learn.Run{ID: r.runID, Interrupted: interrupted}
	onTheWay := map[*planner.Node]bool{}
	for _, n := range search.Nodes() {
		if n.State == planner.StateBoundary && n.Ablation == nil {
			run.Reached = true
			for a := n; a != nil; a = a.Parent {
				onTheWay[a] = true
			}
		}
		if n.Prune != nil && n.Prune.Rule == planner.RuleStalled {
			run.StallPruned++
		}
	}
	for n := range onTheWay {
		run.Longest = max(run.Longest, n.Stall)
	}
	for _, n := range search.Nodes() {
		res := r.results[n.ID]
		if res == nil || n.Ablation != nil {
			continue
		}
		for _, st := range res.Steps {
			if st.Replayed || st.Step != n.Depth || st.Status != branch.StatusOK && st.Status != branch.StatusHealed {
				continue
			}
			m := learn.Measured{Action: n.Action(), MS: st.End.Sub(st.Start).Milliseconds()}
			if n.Parent != nil && n.Parent.Outcome != nil && n.Parent.Outcome.Obs != nil {
				m.Page = n.Parent.Outcome.Obs.URL
			}
			if st.Status == branch.StatusHealed {
				m.Healed = st.Strategy
			}
			if !r.storable(m) {
				continue
			}
			run.Steps = append(run.Steps, m)
		}
	}
	next := r.learning.snap.Fold(run)
	if err := learn.Open(LearnDir(r.dd)).Put(next); err != nil {
		r.learningError(err)
		return
	}
	r.sum.Learning.Wrote = next.Version
	r.learning.snap = nil // once
}

// storable reports whether a measured step may go into the site's record
// as it is: its page and target hold nothing the run's scrubber would
// change (a secret, an e-mail address, a card number in a link's path or
// a button's text). Storing the scrubbed form instead would not serve:
// its tokens come from the run's own key, so no later run would meet the
// same step.
func (r *run) storable(m learn.Measured) bool {
	t, p := learn.Target(m.Action), learn.Page(m.Page)
	return r.sc.Text(t) == t && r.sc.Text(p) == p
}
