package planner

import (
	"fmt"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// namedTogglePrior is the prior of ticking a box whose whole label the
// goal holds without a verb that names it ("add the user to the group
// Editors", "a room with breakfast and parking"): a plausible tick, for
// the search and the predicates to settle.
const namedTogglePrior = 0.5

// laterTogglePrior is the prior of each further box the goal names: ticks
// commute, so the search takes them in one canonical order (page order)
// and keeps the others as alternatives below it. Without the order, every
// box is as good as every other at every depth, and a beam spends its
// budget on the sets of few ticks instead of going on to all of them.
const laterTogglePrior = 0.4

// requiredTogglePrior is the prior of ticking a box its form requires (a
// required attribute, or a label marked with an asterisk: "I agree to the
// terms *"): a form is refused without it, whatever the goal says.
const requiredTogglePrior = 0.7

// toggleCandidates proposes ticking each unticked checkbox or switch (or
// choosing each radio button) whose every label word the goal holds,
// when no phrase of the goal already acts on it. Ticks commute, so the
// search forks each set of them once.
func (p *Proposer) toggleCandidates(obs *branch.Observation, add func(Candidate)) {
	prior := namedTogglePrior
	for _, a := range obs.Affordances {
		if !toggleKinds[a.Kind] || a.Checked || a.Region == branch.RegionObscured || p.risky(a, obs.URL) {
			continue
		}
		if a.Kind == branch.ElemCheckbox && (a.Required || strings.HasSuffix(strings.TrimSpace(a.Target.Name), "*")) {
			add(Candidate{Action: branch.Action{Kind: branch.KindCheck, Target: targetOf(a), Value: "true", Label: "check " + label(a)},
				Prior: requiredTogglePrior, Reason: "its form requires it"})
			continue
		}
		ws := Words(a.Target.Name)
		if len(ws) == 0 || !within(ws, p.g.Words) || p.stepNames(a.Target.Name) {
			continue
		}
		add(Candidate{Action: branch.Action{Kind: branch.KindCheck, Target: targetOf(a), Value: "true", Label: "check " + label(a)},
			Prior: prior, Named: true, match: exactName, from: placed(p.g.where(ws)),
			Reason: fmt.Sprintf("the goal holds %q, the label of the %s", a.Target.Name, a.Kind)})
		prior = laterTogglePrior
	}
}
