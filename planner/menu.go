package planner

import (
	"fmt"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// The menu of a page is every safe action a person could take on it, not
// only the ones the goal's words point at: the heuristic's constructions
// give their candidates priors, and the rest of what the page offers
// follows at restPrior. A ranker that reads the page otherwise (the model
// planner) may choose any entry, and the search falls back on them when
// nothing ranked clears its floor. Every entry, whatever construction
// proposed it, passes one safety gate (safeOnly).

// restPrior is the prior of a menu entry no construction proposes.
const restPrior = 0

// restReason is the reason of a rest entry.
const restReason = "the page offers it"

// menuOptions bounds the options of one select the menu lists.
const menuOptions = 12

// rest adds the page's other actions: the other state of each checkbox,
// switch and radio button, and each option of each select. A control a
// task input fills is not offered otherwise: its value is the task's.
func (p *Proposer) rest(obs *branch.Observation, add func(Candidate)) {
	for _, a := range obs.Affordances {
		if a.Region == branch.RegionObscured {
			continue
		}
		if _, ok := p.ruleFor(a); ok {
			continue
		}
		switch {
		case toggleKinds[a.Kind] && !(a.Kind == branch.ElemRadio && a.Checked):
			want := !a.Checked
			verb := map[bool]string{true: "check", false: "uncheck"}[want]
			add(Candidate{Action: branch.Action{Kind: branch.KindCheck, Target: targetOf(a), Value: fmt.Sprint(want), Label: verb + " " + label(a)},
				Prior: restPrior, Reason: restReason})
		case a.Kind == branch.ElemSelect:
			n := 0
			for _, o := range a.Options {
				if o.Selected || o.Value == a.Value || strings.TrimSpace(o.Text) == "" || n >= menuOptions {
					continue
				}
				n++
				add(Candidate{Action: branch.Action{Kind: branch.KindSelect, Target: targetOf(a), Value: o.Value,
					Label: fmt.Sprintf("select %q in %s", o.Text, label(a))}, Prior: restPrior, Reason: restReason})
			}
		}
	}
}

// safeOnly keeps the candidates that act on no risky element (the task's
// commit action, a risk pattern, a guarded or off-site link): the one
// gate every menu entry passes.
func (p *Proposer) safeOnly(obs *branch.Observation, cands []Candidate) []Candidate {
	byCSS := map[string]branch.Affordance{}
	for _, a := range obs.Affordances {
		if _, ok := byCSS[a.Target.CSS]; !ok && a.Target.CSS != "" {
			byCSS[a.Target.CSS] = a
		}
	}
	out := cands[:0]
	for _, c := range cands {
		if t := c.Action.Target; t != nil {
			a, ok := byCSS[t.CSS]
			if !ok {
				a = branch.Affordance{Target: *t}
			}
			if p.risky(a, obs.URL) {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}
