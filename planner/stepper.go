package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Steppers: a count shown as text between a minus and a plus button (the
// guests of a booking form, the items of a cart), with no field to type
// into. "Set adults to 4" is clicking the row's plus button until its
// count reads 4: each click is proposed while the count is off, the one
// that moves it towards the value, and nothing once it reads the value.

// stepperWords are the words of a stepper's buttons, by direction ("up",
// "down").
var stepperWords = words.StepperWords.byWord()

// stepperPrior is the prior of a click that moves a stepper the goal
// sets towards its value: a step of the goal, like filling a field.
const stepperPrior = 0.95

// stepperCandidates proposes, for each step that sets a number on
// something the page shows no field for, the click on the button of the
// stepper that row holds that moves its count towards the number.
func (p *Proposer) stepperCandidates(obs *branch.Observation, add func(Candidate)) {
	for _, set := range p.countsSet() {
		target, want := set.target, set.want
		for _, a := range obs.Affordances {
			dir := stepperDirection(a)
			if dir == "" || a.Region == branch.RegionObscured || p.risky(a, obs.URL) || Match(target, a.Target.Near) == 0 {
				continue
			}
			have, ok := stepperCount(a.Target.Near, target)
			if !ok || have == want || dir == "up" && have > want || dir == "down" && have < want {
				continue
			}
			add(Candidate{Action: branch.Action{Kind: branch.KindClick, Target: targetOf(a), Label: fmt.Sprintf("click %s %s", a.Kind, label(a))},
				Prior: stepperPrior, Named: true, match: exactName, from: placed(set.at),
				Reason: fmt.Sprintf("moves the count of %s from %d towards %d", strings.Join(target, " "), have, want)})
		}
	}
}

// stepperDirection is how a button moves a stepper's count, by its name
// or icon hint: "up", "down", or "" for a button of no stepper.
func stepperDirection(a branch.Affordance) string {
	if a.Kind != branch.ElemButton && a.Kind != branch.ElemClickable && a.Kind != branch.ElemLink {
		return ""
	}
	name := strings.TrimSpace(a.Target.Name + " " + a.Target.Hint)
	if d, ok := stepperWords[name]; ok {
		return d
	}
	ws := Words(name)
	if len(ws) != 1 {
		return ""
	}
	return stepperWords[ws[0]]
}

// stepperCount reads the count a stepper's row shows: the one integer of
// its neighbourhood text that is not a word of the target.
func stepperCount(near string, target []string) (int, bool) {
	n, found := 0, 0
	for _, w := range Words(near) {
		v, err := strconv.Atoi(w)
		if err != nil || within([]string{w}, target) {
			continue
		}
		n, found = v, found+1
	}
	return n, found == 1
}

// countSet is a count the goal sets: the words naming what is counted.
type countSet struct {
	target []string
	want   int
	at     int // where the goal says it (rune offset)
}

// countsSet are the counts the goal sets: by a step ("set adults to 4")
// or by a label and its number ("Children: 4", "2 rooms").
func (p *Proposer) countsSet() []countSet {
	var out []countSet
	for _, st := range p.g.Steps {
		want, err := strconv.Atoi(strings.TrimSpace(st.Value))
		if target := core(st.Target); st.Verb == VerbType && err == nil && len(target) > 0 {
			out = append(out, countSet{target, want, st.At})
		}
	}
	for _, v := range p.g.Stated {
		want, err := strconv.Atoi(strings.TrimSpace(v.Norm))
		if v.Kind != ValueNumber || err != nil || len(v.Cue) == 0 || stopwords[v.Cue[0]] {
			continue
		}
		out = append(out, countSet{v.Cue[:1], want, p.g.runeAt(v.Start)})
	}
	return out
}
