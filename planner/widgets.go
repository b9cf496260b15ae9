package planner

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Widgets that need more than a click: sliders and spin buttons take a
// set action (keys or a drag in the browser), and so do date, time and
// colour inputs and text fields that open a date picker.

// setSpan is how many words may stand between a control's label word
// (or the noun naming its kind) and the number meant for it: "set the
// volume to 40", "40 guests", "a max price of $120".
const setSpan = 4

// settableKinds are the affordance kinds a set action serves beyond
// text: the value is moved in, not typed.
var settableKinds = map[branch.ElementKind]bool{branch.ElemSlider: true, branch.ElemSpinbutton: true}

// widgetNouns are the words a goal names a slider or spin button by
// when it does not name its label ("move the slider to 65").
var widgetNouns = words.WidgetNouns.kindsByWord()

// inputFormats are the formats of the native inputs a set action fills
// directly: the value must already be written so.
var inputFormats = map[string]*regexp.Regexp{
	"date":           regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`),
	"time":           regexp.MustCompile(`^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$`),
	"datetime-local": regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$`),
	"month":          regexp.MustCompile(`^\d{4}-\d{2}$`),
	"week":           regexp.MustCompile(`^\d{4}-W\d{2}$`),
	"color":          regexp.MustCompile(`^#[0-9a-fA-F]{6}$`),
}

// dateValue recognizes a value a date picker field takes: ISO, numeric
// with slashes or dots, or with a month name.
var dateValue = regexp.MustCompile(`(?i)^(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|` +
	`(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(st|nd|rd|th)?,? \d{4}|\d{1,2}(st|nd|rd|th)? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,? \d{4})$`)

// setAction is the set action that puts value into the control of a, a
// value already in the control's format: a number within the bounds of
// a slider, spin button, range or number input (or a word a slider shows
// as its aria-valuetext), a date, time, month, week or colour written as
// its input takes it, or a date for a text field (which may open a date
// picker). It returns false when the control takes no set action, the
// value does not fit it, or the control holds it already.
func setAction(a branch.Affordance, value string) (branch.Action, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return branch.Action{}, false
	}
	switch {
	case settableKinds[a.Kind] || a.Kind == branch.ElemNumber || a.InputType == "range":
		n, ok := numberOf(value)
		if !ok {
			// A slider of words ("Small", "Medium", "Large").
			if a.Kind != branch.ElemSlider || a.ValueText == "" || strings.EqualFold(a.ValueText, value) {
				return branch.Action{}, false
			}
			break
		}
		if lo, ok := numberOf(a.Min); ok && n < lo {
			return branch.Action{}, false
		}
		if hi, ok := numberOf(a.Max); ok && n > hi {
			return branch.Action{}, false
		}
		if have, ok := numberOf(a.Value); ok && have == n {
			return branch.Action{}, false
		}
		value = strconv.FormatFloat(n, 'f', -1, 64)
	case inputFormats[a.InputType] != nil:
		if !inputFormats[a.InputType].MatchString(value) || strings.EqualFold(a.Value, value) ||
			(a.Min != "" && len(a.Min) == len(value) && value < a.Min) || (a.Max != "" && len(a.Max) == len(value) && value > a.Max) {
			return branch.Action{}, false
		}
	case a.Kind == branch.ElemTextbox && (a.InputType == "" || a.InputType == "text"):
		if !dateValue.MatchString(value) || a.Value == value {
			return branch.Action{}, false
		}
	default:
		return branch.Action{}, false
	}
	return branch.Action{Kind: branch.KindSet, Target: targetOf(a), Value: value,
		Label: fmt.Sprintf("set %s %s to %q", a.Kind, label(a), value)}, true
}

// numberOf reads a number as goals and controls write it: "40", "1,000",
// "-2.5", "$120", "27°C", "40 %"; ok is false for anything else (a date,
// a word).
func numberOf(s string) (float64, bool) {
	m := numberRE.FindStringSubmatch(strings.ReplaceAll(strings.TrimSpace(s), ",", ""))
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	return n, err == nil && !math.IsInf(n, 0)
}

// numberRE is a number with at most a short sign or unit around it.
var numberRE = regexp.MustCompile(`^\D{0,2}?([-+]?\d+(?:\.\d+)?)\D{0,4}$`)

// widgetCandidates proposes set actions for the sliders and spin buttons
// of the page: the task input whose rule names one, the value a goal
// step gives the control it names ("set the volume to 40"), and each
// number the goal states near the control's label words or near the
// noun of its kind when it is the only one ("move the slider to 65").
// Every fitting binding is proposed; the search and the predicates
// settle which was meant.
func (p *Proposer) widgetCandidates(obs *branch.Observation, h History, add func(Candidate)) {
	only := map[branch.ElementKind]int{} // kind -> how many on the page
	for _, a := range obs.Affordances {
		if settableKinds[a.Kind] && a.Region != branch.RegionObscured {
			only[a.Kind]++
		}
	}
	for _, a := range obs.Affordances {
		if !settableKinds[a.Kind] || a.Region == branch.RegionObscured || p.risky(a, obs.URL) {
			continue
		}
		if r, ok := p.ruleFor(a); ok && !h.Applied[r.name] && (r.secret || r.value != "") {
			if act, ok := setAction(a, r.value); ok || r.secret {
				act = branch.Action{Kind: branch.KindSet, Target: targetOf(a), Input: r.name,
					Label: fmt.Sprintf("set %s %s to input %s", a.Kind, label(a), r.name)}
				add(Candidate{Action: act, Prior: p.w.FillPrior, Reason: "sets " + r.name + " on " + label(a)})
			}
		}
		for _, st := range p.g.Steps {
			m := nameMatch(core(st.Target), a)
			if st.Value == "" || m == 0 {
				continue
			}
			v := st.Value
			if n, ok := numberOf(v); ok && a.ValueText == "" {
				v = strconv.FormatFloat(n, 'f', -1, 64)
			}
			if act, ok := setAction(a, v); ok {
				add(Candidate{Action: act, Prior: p.w.StepPriorBase + p.w.StepPriorSpan*m, Named: true, match: m,
					Reason: fmt.Sprintf("the goal sets %s to %s", strings.Join(st.Target, " "), v)})
			}
		}
		for _, near := range p.numbersNear(a, only[a.Kind] == 1) {
			if act, ok := setAction(a, near.value); ok {
				add(Candidate{Action: act, Prior: p.w.SetNearPrior - p.w.SetNearStep*float64(near.gap), Named: true, match: exactName,
					Reason: fmt.Sprintf("the goal states %s next to %q", near.value, near.word)})
			}
		}
	}
}

// nearNumber is a number of the goal and the word it stands near.
type nearNumber struct {
	value, word string
	gap         int
}

// numbersNear lists the goal's numbers that stand within setSpan words
// of a label word of the control (or of the noun of its kind, when it
// is the only control of that kind), nearest first.
func (p *Proposer) numbersNear(a branch.Affordance, alone bool) []nearNumber {
	if len(p.g.Numbers) == 0 {
		return nil
	}
	labels := map[string]bool{}
	for _, s := range []string{a.Target.Name, a.Target.AriaLabel, a.Target.Hint} {
		for _, w := range Words(s) {
			if !stopwords[w] {
				labels[w] = true
			}
		}
	}
	numbers := map[string]string{} // folded word -> number as written
	for _, n := range p.g.Numbers {
		if v, ok := numberOf(n); ok {
			for _, w := range Words(n) {
				if x, ok := numberOf(w); ok && x == v {
					numbers[w] = strconv.FormatFloat(v, 'f', -1, 64)
				}
			}
		}
	}
	ws := p.g.Words
	var out []nearNumber
	seen := map[string]bool{}
	for i, w := range ws {
		v, ok := numbers[w]
		if !ok || seen[v] {
			continue
		}
		best := setSpan + 1
		word := ""
		for j := max(0, i-setSpan-1); j <= min(len(ws)-1, i+setSpan+1); j++ {
			gap := abs(i-j) - 1
			if j == i || gap > setSpan || gap >= best {
				continue
			}
			if labels[ws[j]] || (alone && widgetNouns[ws[j]] == a.Kind) {
				best, word = gap, ws[j]
			}
		}
		if word != "" {
			seen[v] = true
			out = append(out, nearNumber{value: v, word: word, gap: best})
		}
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
