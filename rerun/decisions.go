package rerun

import (
	"fmt"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// Decision is one choice a search made, named so that two runs of the
// same task compare: branches by their plan digest (branch ids differ
// from run to run), scores rounded as the planner rounds them.
type Decision struct {
	// Kind is fork, score, prune, beam, ask (a question to the model),
	// goal or winner.
	Kind string `json:"kind"`
	// Plan is the digest of the branch's plan; Parent its parent's.
	Plan   string `json:"plan,omitempty"`
	Parent string `json:"parent,omitempty"`
	// What says what was decided: the action forked, the J scored, the
	// rule that pruned, the width, the question's fingerprint, the
	// ranking of the winners.
	What string `json:"what"`
	// Branch is the branch's id in its own run (not compared).
	Branch string `json:"branch,omitempty"`
}

// String reads as one line: "prune 1a2b3c4d5e6f duplicate_state".
func (d Decision) String() string {
	s := d.Kind
	if d.Plan != "" {
		s += " " + short(d.Plan)
	}
	return s + " " + d.What
}

// same reports whether two decisions are the same choice.
func same(a, b Decision) bool {
	return a.Kind == b.Kind && a.Plan == b.Plan && a.Parent == b.Parent && a.What == b.What
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// Decisions lists a run's decisions in the order its log holds them,
// without the plan minimization's tries (forks with Removed steps, and
// what was decided of them). An event of a decision kind whose payload
// does not decode is an error naming its sequence number.
func Decisions(evs []eventlog.Event) ([]Decision, error) {
	plan := map[string]string{} // branch id -> plan digest
	tries := map[string]bool{}  // the minimization's tries, by branch id
	var out []Decision
	for _, e := range evs {
		if e.BranchID != "" && tries[e.BranchID] {
			continue
		}
		var d Decision
		switch e.Kind {
		case eventlog.KindBranchFork:
			f, err := payload.Decode[payload.BranchFork](e)
			if err != nil {
				return nil, fmt.Errorf("rerun: event #%d: %w", e.Seq, err)
			}
			if len(f.Removed) > 0 {
				// A try of the winner's plan without some steps, after
				// the search: a rerun explores without the plan cache,
				// so it minimizes nothing, and the tries are not the
				// search's decisions.
				tries[e.BranchID] = true
				continue
			}
			plan[e.BranchID] = f.PlanDigest
			d = Decision{Kind: "fork", Plan: f.PlanDigest, Parent: plan[f.Parent], What: fmt.Sprintf("%s (prior %.3f)", f.Action, f.Prior)}
		case eventlog.KindMetricUpdate:
			m, err := payload.Decode[payload.MetricUpdate](e)
			if err != nil {
				return nil, fmt.Errorf("rerun: event #%d: %w", e.Seq, err)
			}
			d = Decision{Kind: "score", Plan: plan[e.BranchID], What: fmt.Sprintf("J=%.3f progress=%.3f", m.Score.J, m.Score.Progress)}
		case eventlog.KindBranchPruned:
			p, err := payload.Decode[payload.BranchPruned](e)
			if err != nil {
				return nil, fmt.Errorf("rerun: event #%d: %w", e.Seq, err)
			}
			d = Decision{Kind: "prune", Plan: p.PlanDigest, What: p.Rule + " (" + p.State + ")"}
		case eventlog.KindLLMRequest:
			q, err := payload.Decode[payload.LLMRequest](e)
			if err != nil {
				return nil, fmt.Errorf("rerun: event #%d: %w", e.Seq, err)
			}
			d = Decision{Kind: "ask", Plan: plan[e.BranchID], What: fmt.Sprintf("step %d %s", q.Step, short(q.Fingerprint))}
		case eventlog.KindWinner:
			w, err := payload.Decode[payload.Winner](e)
			if err != nil {
				return nil, fmt.Errorf("rerun: event #%d: %w", e.Seq, err)
			}
			ranks := make([]string, len(w.Ranking))
			for i, r := range w.Ranking {
				ranks[i] = short(r.PlanDigest)
			}
			d = Decision{Kind: "winner", Plan: firstPlan(w), What: strings.Join(ranks, " > ")}
		case eventlog.KindGoalReached:
			d = Decision{Kind: "goal", Plan: plan[e.BranchID], What: "reached"}
		case eventlog.KindBeamWidth:
			w, err := payload.Decode[payload.BeamWidth](e)
			if err != nil {
				return nil, fmt.Errorf("rerun: event #%d: %w", e.Seq, err)
			}
			d = Decision{Kind: "beam", What: fmt.Sprintf("width %d -> %d", w.From, w.To)}
		default:
			continue
		}
		d.Branch = e.BranchID
		out = append(out, d)
	}
	return out, nil
}

func firstPlan(w payload.Winner) string {
	if len(w.Ranking) == 0 {
		return ""
	}
	return w.Ranking[0].PlanDigest
}
