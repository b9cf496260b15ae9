package planner

import (
	"fmt"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Suggestion lists: a field that completes what was typed into it shows
// the matches below it (an autocomplete, a city picker, a tag box), and
// many sites take only a value chosen there. Once a field holds a value,
// each visible control below it whose text holds that value is a way to
// choose it, proposed above whatever comes after the field.

// suggestionPrior is the prior of choosing a suggestion that holds the
// typed value: above a step the goal names after the field (its "Next").
const suggestionPrior = 0.93

// suggestionReach is how far below a field (in CSS pixels) its
// suggestion list may start.
const suggestionReach = 400

// suggestionCandidates proposes clicking each suggestion that holds the
// value a text field holds.
func (p *Proposer) suggestionCandidates(obs *branch.Observation, add func(Candidate)) {
	for _, f := range obs.Affordances {
		if !f.Kind.TakesText() || f.Value == "" || f.Holds != "" && p.secretInput(f.Holds) || f.Target.Box == nil || f.Region == branch.RegionObscured {
			continue
		}
		typed := Fold(strings.TrimSpace(f.Value))
		if len([]rune(typed)) < 2 {
			continue
		}
		for _, s := range obs.Affordances {
			if !suggests(f, s, typed) || p.risky(s, obs.URL) {
				continue
			}
			add(Candidate{Action: branch.Action{Kind: branch.KindClick, Target: targetOf(s), Label: fmt.Sprintf("click %s %s", s.Kind, label(s))},
				Prior: suggestionPrior, Named: true, match: exactName, from: placed(p.g.where(Words(f.Value))),
				Reason: fmt.Sprintf("chooses the suggestion %s for what %s holds", label(s), label(f))})
		}
	}
}

// suggests reports whether s is a suggestion for field f holding typed:
// a visible option or clickable below the field, overlapping it
// sideways, whose text holds the typed value.
func suggests(f, s branch.Affordance, typed string) bool {
	switch s.Kind {
	case branch.ElemOption, branch.ElemClickable, branch.ElemMenuitem, branch.ElemLink, branch.ElemTreeitem:
	default:
		return false
	}
	fb, sb := f.Target.Box, s.Target.Box
	if sb == nil || s.Region == branch.RegionObscured || s.Target.CSS == f.Target.CSS {
		return false
	}
	if sb.Y < fb.Y+fb.H/2 || sb.Y > fb.Y+fb.H+suggestionReach || sb.X+sb.W < fb.X || sb.X > fb.X+fb.W {
		return false
	}
	name := Fold(s.Target.Name + " " + s.Target.Text)
	return strings.Contains(name, typed)
}

// secretInput reports whether the task input named is a secret.
func (p *Proposer) secretInput(name string) bool {
	for _, r := range p.inputs {
		if r.name == name {
			return r.secret
		}
	}
	return false
}
