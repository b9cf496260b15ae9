package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Affordance kinds grouped by what a person does with them, besides the
// kinds that take text (branch.ElementKind.TakesText).
var (
	toggleKinds = map[branch.ElementKind]bool{branch.ElemCheckbox: true, branch.ElemRadio: true, branch.ElemSwitch: true}
	clickKinds  = map[branch.ElementKind]bool{branch.ElemLink: true, branch.ElemButton: true, branch.ElemTab: true,
		branch.ElemTreeitem: true, branch.ElemMenuitem: true, branch.ElemOption: true, branch.ElemSwitch: true,
		branch.ElemClickable: true, branch.ElemCombobox: true}
)

// kindsByWord is a word table whose keys are element kinds (role_nouns,
// widget_nouns) as word -> kind.
func (t wordGroups) kindsByWord() map[string]branch.ElementKind {
	m := map[string]branch.ElementKind{}
	for w, key := range t.byWord() {
		m[w] = branch.ElementKind(key)
	}
	return m
}

// roleFits says how well an affordance kind fits a role noun of the goal
// ("the 2nd text box", "the OK button"), in [0, 1].
func roleFits(role, kind branch.ElementKind) float64 {
	switch {
	case role == "":
		return fitSure
	case role == kind:
		return fitSure
	case role == branch.ElemTextbox && kind.TakesText():
		return fitSure
	case role == branch.ElemSelect && (kind == branch.ElemSelect || kind == branch.ElemListbox || kind == branch.ElemCombobox || kind == branch.ElemOption):
		return fitSure
	case role == branch.ElemButton && (kind == branch.ElemClickable || kind == branch.ElemLink):
		return fitSometimes
	case role == branch.ElemLink && kind == branch.ElemClickable:
		return fitUsually // text styled and scripted as a link
	case role == branch.ElemLink && kind == branch.ElemButton:
		return fitSometimes
	case role == branch.ElemOption && (kind == branch.ElemTreeitem || kind == branch.ElemMenuitem || kind == branch.ElemClickable || kind == branch.ElemRadio):
		return fitSometimes
	case role == branch.ElemTab && (kind == branch.ElemClickable || kind == branch.ElemButton || kind == branch.ElemLink):
		return fitRarely
	case role == branch.ElemCheckbox && (kind == branch.ElemSwitch || kind == branch.ElemOption || kind == branch.ElemMenuitem):
		return fitOften
	case role == branch.ElemMenuitem && (kind == branch.ElemLink || kind == branch.ElemClickable || kind == branch.ElemMenu):
		return fitOften // a menu's items are links as often as menu items
	}
	return 0
}

// verbFits says how well an affordance kind fits the goal's verb, in
// [0, 1]: what a person would do with it to follow the step.
func verbFits(verb string, kind branch.ElementKind) float64 {
	switch verb {
	case VerbType:
		if kind.TakesText() {
			return fitSure
		}
	case VerbCheck, VerbUncheck:
		if toggleKinds[kind] {
			return fitSure
		}
		if kind == branch.ElemOption || kind == branch.ElemMenuitem || kind == branch.ElemTreeitem {
			return fitSometimes
		}
	case VerbSelect:
		switch {
		case toggleKinds[kind] || kind == branch.ElemSelect || kind == branch.ElemOption || kind == branch.ElemTab || kind == branch.ElemTreeitem:
			return fitSure
		case clickKinds[kind]:
			return fitUsually
		}
	case VerbFocus:
		if kind.TakesText() || kind == branch.ElemSelect {
			return fitSure
		}
		return fitSometimes
	case VerbExpand:
		if kind == branch.ElemTreeitem || kind == branch.ElemButton || kind == branch.ElemTab || kind == branch.ElemClickable {
			return fitSure
		}
		if clickKinds[kind] {
			return fitOften
		}
	default: // click, open, close, submit, log in
		if clickKinds[kind] {
			return fitSure
		}
		if toggleKinds[kind] || kind.TakesText() {
			return fitRarely
		}
	}
	return 0
}

// roleNounSet are the folded words that name kinds of element.
var roleNounSet = func() map[string]bool {
	m := map[string]bool{}
	for w := range roleNouns {
		m[w] = true
		m[w+"s"] = true
	}
	return m
}()

// core is a step's target without the words that name a kind of element:
// "the OK button" names an element "OK".
func core(target []string) []string {
	var out []string
	for _, w := range target {
		if !roleNounSet[w] {
			out = append(out, w)
		}
	}
	return out
}

// nameMatch scores how well words name an affordance: by its accessible
// name, text, label or field name, or (less) by its neighbourhood.
func nameMatch(words []string, a branch.Affordance) float64 {
	best := 0.0
	for _, s := range []string{a.Target.Name, a.Target.Text, a.Target.AriaLabel, a.Target.Field, a.Target.ID, a.Target.Hint} {
		if m := Match(words, s); m > best {
			best = m
		}
	}
	if m := nearMatch * Match(words, a.Target.Near); m > best {
		best = m
	}
	return best
}

// stepCandidates proposes what each verb phrase of the goal asks for on
// this page: the affordance it names (or the Nth of its kind, for an
// ordinal), acted on as the verb says. The prior grows with how exactly
// the element is named and how well its kind fits the verb. An element
// goes to the phrases of a verb that name it about as well as any of them
// does ("the last name" field is not filled with the first name because
// "name" is in both); a type phrase whose field is named by nothing on the page falls
// back to the empty text fields no phrase names.
func (p *Proposer) stepCandidates(obs *branch.Observation, h History, add func(Candidate)) {
	picks := make([]map[int]float64, len(p.g.Steps))
	variants := make([][]Step, len(p.g.Steps)) // each step as this page reads it (stepVariants)
	notes := make([][]string, len(p.g.Steps))
	best := map[string]map[int]float64{} // verb -> affordance -> the best match of a phrase with that verb
	for k, st := range p.g.Steps {
		variants[k], notes[k] = p.stepVariants(obs, st)
		picks[k] = p.pick(obs, st)
		if best[st.Verb] == nil {
			best[st.Verb] = map[int]float64{}
		}
		for i, m := range picks[k] {
			if verbFits(st.Verb, obs.Affordances[i].Kind) > 0 {
				best[st.Verb][i] = max(best[st.Verb][i], m)
			}
		}
	}
	for k, st := range p.g.Steps {
		if st.Verb == VerbType && len(picks[k]) == 0 && len(core(st.Target)) > 0 {
			picks[k] = unnamedFields(obs, best[VerbType])
		}
		if st.Verb == VerbType {
			picks[k] = p.written(obs, variants[k], picks[k], h)
		}
	}
	// Earlier steps first: "check the box, then press OK". A phrase with
	// something still to do on this page keeps the later ones below it,
	// however well they are named.
	// The discount counts the phrases still to do on this page before
	// this one, not its place in the goal: once "tick A" is done, "tick B"
	// is the first step left and is proposed as the first, so a chain of
	// commuting steps keeps its prior however long it is.
	ceiling, before := noCeiling, 0
	for k, st := range p.g.Steps {
		order := max(0, 1-p.w.StepDiscount*float64(before))
		top := 0.0
		if c, ok := p.w.keyStep(st, obs, order, ceiling); ok {
			top = c.Prior
			add(c)
		}
		for i, a := range obs.Affordances {
			m, ok := picks[k][i]
			if !ok || m < best[st.Verb][i]-p.w.BetterNamed || p.risky(a, obs.URL) {
				continue
			}
			fit := verbFits(st.Verb, a.Kind)
			if fit == 0 {
				continue
			}
			for n, vst := range variants[k] {
				act, ok := p.stepAction(vst, a, h)
				if !ok {
					continue
				}
				prior := min(p.w.StepPriorBase+p.w.StepPriorSpan*m*fit*order, ceiling-p.w.StepGap) * pow(p.w.ValueGuessDecay, n)
				top = max(top, prior)
				add(Candidate{Action: act, Prior: prior, Reason: fmt.Sprintf("the goal says %s %s%s", st.Verb, strings.Join(st.Target, " "), notes[k][n]),
					Named: true, match: m, from: placed(st.At), phrase: true})
			}
		}
		if top > 0 {
			ceiling = min(ceiling, top)
			before++
		}
	}
}

// tiedMatch is how close two matches of a phrase are to count as the
// same: "both fields" names two fields alike.
const tiedMatch = 0.05

// written drops the weaker fields of a type step once a field it names
// best holds the value: the phrase is done there, and typing the value
// into a field it names less well too is no step of the goal (it would
// keep the later phrases waiting below it). The fields it names as well
// stay: "the password into both fields".
func (p *Proposer) written(obs *branch.Observation, variants []Step, picked map[int]float64, h History) map[int]float64 {
	best := 0.0
	for i, m := range picked {
		if obs.Affordances[i].Kind.TakesText() {
			best = max(best, m)
		}
	}
	done := false
	for i, m := range picked {
		a := obs.Affordances[i]
		if m >= best-tiedMatch && a.Kind.TakesText() && a.Value != "" {
			for _, st := range variants {
				if _, ok := p.typeAction(st, a, h); !ok {
					done = true
				}
			}
		}
	}
	if !done {
		return picked
	}
	out := map[int]float64{}
	for i, m := range picked {
		if m >= best-tiedMatch || !obs.Affordances[i].Kind.TakesText() {
			out[i] = m
		}
	}
	return out
}

// keyStep proposes the key a step asks to press ("press Enter", "close
// the popup" with Escape while a modal is open), on whatever has the
// focus, as a person would.
func (wt *Weights) keyStep(st Step, obs *branch.Observation, order, ceiling float64) (Candidate, bool) {
	key, prior, why := st.Key, wt.StepPriorBase+wt.StepPriorSpan*order, "the goal says press "+st.Key
	if key == "" {
		if st.Verb != VerbClose || !modalOpen(obs) {
			return Candidate{}, false
		}
		// Below a button of the dialog the phrase names.
		key, prior, why = "Escape", wt.StepPriorBase+wt.EscapeStepSpan*order, "the goal says close, and a modal is open"
	}
	act := branch.Action{Kind: branch.KindKeyPress, Value: key, Label: "press " + key}
	return Candidate{Action: act, Prior: min(prior, ceiling-wt.StepGap), Reason: why, Named: true, from: placed(st.At), phrase: true}, true
}

// modalOpen reports whether the page shows a modal dialog.
func modalOpen(obs *branch.Observation) bool {
	for _, a := range obs.Affordances {
		if a.Region == branch.RegionDialog {
			return true
		}
	}
	return false
}

// pick scores the affordances a phrase names, by index.
func (p *Proposer) pick(obs *branch.Observation, st Step) map[int]float64 {
	target := core(st.Target)
	if st.Verb == VerbSubmit && len(target) == 0 {
		target = []string{"submit"}
	}
	picked := map[int]float64{}
	if st.OrdinalWord != "" && len(target) > 0 {
		// "the first name": an element named "First name" is meant
		// before the first of the elements named "name".
		full := append([]string{st.OrdinalWord}, target...)
		for i, a := range obs.Affordances {
			if nameMatch(full, a) == 1 && roleFits(st.Role, a.Kind) > 0 && a.Region != branch.RegionObscured {
				picked[i] = 1
			}
		}
		if len(picked) > 0 {
			return picked
		}
	}
	if st.Ordinal != 0 && (st.Role != "" || len(target) > 0) {
		var of []int
		for i, a := range obs.Affordances {
			if a.Region == branch.RegionObscured || roleFits(st.Role, a.Kind) < 1 || ownOrdinal(a, st.OrdinalWord, target) {
				continue
			}
			if len(target) > 0 && nameMatch(target, a) == 0 {
				continue
			}
			of = append(of, i)
		}
		if len(of) == 0 || spansLists(obs, of) {
			// Nothing is named so ("the first post in the list"), or
			// what is named stands in several lists (a table's titles
			// and its Edit links): the Nth item of the list that fits.
			return byPosition(obs, st, 0, target)
		}
		n := st.Ordinal
		if n < 0 {
			n = len(of) + 1 + n
		}
		if n >= 1 && n <= len(of) {
			picked[of[n-1]] = 1
		}
		return picked
	}
	for i, a := range obs.Affordances {
		m := 0.0
		switch {
		case len(target) > 0:
			m = nameMatch(target, a)
			if a.Kind == branch.ElemSelect {
				m = max(m, optionMatch(target, a))
			}
			if a.Kind == branch.ElemOption && st.Verb == VerbSelect && within(Words(a.Target.Name), target) {
				m = 1 // "choose yry from the size dropdown": the option yry
			}
			if st.Role == branch.ElemMenuitem && a.Kind != branch.ElemMenu && within(Words(a.Target.Name), target) {
				m = max(m, exactName) // "open Events from the Products menu": the item Events
			}
		case st.Role != "" || st.Verb == VerbType:
			m = 1 // "enter the password into both fields": every field of the kind
		}
		if fit := roleFits(st.Role, a.Kind); m > 0 && fit > 0 && a.Region != branch.RegionObscured {
			picked[i] = m * fit
		}
	}
	if dir, rest := recency(target); dir != 0 && bestOf(picked) < exactName {
		// "The most recent post": unless an element is named so (a link
		// "Recent posts"), the newest item of the list that fits.
		for i, m := range byPosition(obs, st, dir, rest) {
			picked[i] = max(picked[i], m)
		}
	}
	return picked
}

// bestOf is the best match of picks, 0 for none.
func bestOf(picked map[int]float64) float64 {
	best := 0.0
	for _, m := range picked {
		best = max(best, m)
	}
	return best
}

// within reports whether every word of ws is one of target, or a form
// of one ("Plugins" is within "new plugin").
func within(ws, target []string) bool {
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !slices.ContainsFunc(target, func(t string) bool { return same(t, w) }) {
			return false
		}
	}
	return true
}

// ownOrdinal reports whether an element's name holds an ordinal word
// other than the phrase's beside a word of its target: "Last name" is a
// name, not the last of the "name" fields, when the phrase counts the
// first "name".
func ownOrdinal(a branch.Affordance, word string, target []string) bool {
	other, shared := false, false
	for _, w := range Words(a.Target.Name) {
		if _, ok := ordinalWords[w]; ok && w != word {
			other = true
		}
		shared = shared || slices.Contains(target, w)
	}
	return other && shared
}

// unnamedFields are the empty text fields that no type phrase names.
func unnamedFields(obs *branch.Observation, named map[int]float64) map[int]float64 {
	out := map[int]float64{}
	for i, a := range obs.Affordances {
		if a.Kind.TakesText() && a.Value == "" && named[i] == 0 && a.Region != branch.RegionObscured {
			out[i] = fallbackMatch
		}
	}
	return out
}

// stepAction is the action that follows a step on an affordance, and
// whether one is still needed.
func (p *Proposer) stepAction(st Step, a branch.Affordance, h History) (branch.Action, bool) {
	t := targetOf(a)
	switch {
	case st.Verb == VerbType && a.Kind.TakesText():
		return p.typeAction(st, a, h)
	case st.Verb == VerbFocus:
		return branch.Action{Kind: branch.KindFocus, Target: t, Label: "focus " + label(a)}, true
	case a.Kind == branch.ElemSelect && (st.Verb == VerbSelect || st.Verb == VerbClick):
		return selectOption(core(st.Target), a)
	case toggleKinds[a.Kind] && st.Verb != VerbClick:
		want := st.Verb != VerbUncheck
		if a.Checked == want || (a.Kind == branch.ElemRadio && !want) {
			return branch.Action{}, false
		}
		verb := map[bool]string{true: "check", false: "uncheck"}[want]
		return branch.Action{Kind: branch.KindCheck, Target: t, Value: fmt.Sprint(want), Label: verb + " " + label(a)}, true
	case (a.Kind == branch.ElemTab || a.Kind == branch.ElemOption) && a.Checked && st.Verb != VerbClick:
		return branch.Action{}, false // already the selected one
	case a.Kind == branch.ElemCombobox && st.Verb == VerbSelect && within(Words(a.Value), core(st.Target)):
		return branch.Action{}, false // it shows the chosen option already
	case a.Kind.TakesText() && st.Verb != VerbClick:
		return branch.Action{}, false
	}
	return branch.Action{Kind: branch.KindClick, Target: t, Label: fmt.Sprintf("click %s %s", a.Kind, label(a))}, true
}

// typeAction types the step's value into a text field: the literal the
// goal spells, else the task input it refers to. A field that already
// holds it needs nothing; one value may go into several fields.
func (p *Proposer) typeAction(st Step, a branch.Affordance, h History) (branch.Action, bool) {
	t := targetOf(a)
	if st.Value != "" {
		v, ok := inFormat(a, st.Value)
		if !ok {
			return branch.Action{}, false // a date input takes no "tomorrow"
		}
		if strings.HasPrefix(Fold(a.Value), Fold(st.Value)) || a.Value != "" && a.Value == v {
			// It holds the value, or what a suggestion completed it to.
			return branch.Action{}, false
		}
		if inputFormats[a.InputType] != nil {
			return setAction(a, v) // a date, a time: set in the control's own format
		}
		return branch.Action{Kind: branch.KindType, Target: t, Value: v, Label: fmt.Sprintf("type %q into %s", v, label(a))}, true
	}
	r, ok := p.inputFor(st)
	if !ok || a.Holds == r.name || (!r.secret && r.value != "" && a.Value == r.value) {
		return branch.Action{}, false
	}
	return branch.Action{Kind: branch.KindType, Target: t, Input: r.name, Label: fmt.Sprintf("type input %s into %s", r.name, label(a))}, true
}

// inputFor is the task input a step's reference names ("enter your
// email into ...").
func (p *Proposer) inputFor(st Step) (inputRule, bool) {
	if len(st.Refers) == 0 {
		return inputRule{}, false
	}
	for _, r := range p.inputs {
		if Match(st.Refers, r.name) > 0 || r.match.MatchString(strings.Join(st.Refers, " ")) {
			return r, true
		}
	}
	return inputRule{}, false
}

// optionMatch is how well words name one of a select element's options.
func optionMatch(words []string, a branch.Affordance) float64 {
	best := 0.0
	for _, o := range a.Options {
		best = max(best, Match(words, o.Text), Match(words, o.Value))
	}
	return best
}

// selectOption chooses the option of a select element the words name
// best; nothing when none is named or it is already selected.
func selectOption(words []string, a branch.Affordance) (branch.Action, bool) {
	best, at := 0.0, -1
	for i, o := range a.Options {
		m := max(Match(words, o.Text), Match(words, o.Value))
		if m > best {
			best, at = m, i
		}
	}
	if at < 0 {
		return branch.Action{}, false
	}
	o := a.Options[at]
	if o.Selected || (a.Value != "" && a.Value == o.Value) {
		return branch.Action{}, false
	}
	return branch.Action{Kind: branch.KindSelect, Target: targetOf(a), Value: o.Value,
		Label: fmt.Sprintf("select %q in %s", o.Text, label(a))}, true
}

// relevance is how much of the goal an affordance's words hold: exact
// words count fully, partial ones half. It breaks ties between equal
// priors; words of any length count ("Tab #3").
func (p *Proposer) relevance(a branch.Affordance) float64 {
	if len(p.goalWords) == 0 {
		return 0
	}
	ws := Words(a.Target.Name + " " + a.Target.Text + " " + a.Target.AriaLabel + " " + a.Target.Hint)
	have := map[string]bool{}
	for _, w := range ws {
		have[w] = true
	}
	around := map[string]bool{}
	for _, w := range Words(a.Target.Near) {
		if !have[w] {
			around[stem(w)] = true
		}
	}
	sum := 0.0
	for _, g := range p.goalWords {
		switch {
		case have[g]:
			sum++
		case partial(g, ws):
			sum += partialWord
		case around[stem(g)]:
			// Among lookalikes ("Add New" under Users, under Posts), the
			// one whose menu, row or section the goal names.
			sum += nearRelevance
		}
	}
	return sum
}

// nearRelevance is what a goal word in an element's neighbourhood (not
// its name) adds to its relevance: less than a partial word of its name.
const nearRelevance = 0.25
