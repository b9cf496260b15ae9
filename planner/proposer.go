package planner

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Candidate is a proposed next action with its prior: how promising the
// proposer thinks it is, in [0, 1], and why.
type Candidate struct {
	Action branch.Action
	Prior  float64
	Reason string
	// Named marks an action the goal text asks for by its target ("click
	// button A, then button B"): done, it is a step of the goal even when
	// the page shows no change.
	Named bool
	// Onward marks a pager proposed because nothing the goal names is on
	// the page: paging on is how the search gets there, not a stall.
	Onward bool
	// match is how well the goal names the element, for Named ones.
	match float64
	// from is one plus the rune offset in the goal text of the part of
	// the goal the candidate serves, 0 for none; phrase marks a
	// candidate of a verb phrase (see goalOrder).
	from   int
	phrase bool
}

// Proposer ranks affordances against a task. It is pure and safe for
// concurrent use.
type Proposer struct {
	goal   map[string]bool
	inputs []inputRule
	risk   []*regexp.Regexp
	commit *branch.Target
	guards []*regexp.Regexp
	// origins are the origins the task explores (scheme://host, lower
	// case): links elsewhere are never offered.
	origins map[string]bool
	query   string
	// g is the goal text, read; goalWords its words without stopwords,
	// of any length.
	g         Goal
	goalWords []string
	// credentials: the task can log in (auth, or a secret password
	// input), so a login link is not a way away from the goal.
	credentials bool
	// lexicon weighs the stems of element names: the generic lexicon and
	// the task's profiles (words.json).
	lexicon map[string]float64
	// w is the proposer's tuning.
	w Weights
}

type inputRule struct {
	name   string
	match  *regexp.Regexp
	value  string // known value ("" for secrets)
	secret bool
}

// NewProposer prepares a proposer for the task.
func NewProposer(t *task.Task, opts ...Option) (*Proposer, error) {
	p := &Proposer{goal: map[string]bool{}, g: ParseGoal(t.Goal.Text), credentials: hasCredentials(t), w: weightsOf(opts)}
	var guard []task.RequestPattern
	if t.Commit != nil {
		p.commit, guard = t.Commit.Action.Target, t.Commit.Guard
	}
	for _, w := range p.g.Words {
		if !stopwords[w] {
			p.goalWords = append(p.goalWords, w)
		}
	}
	for _, w := range tokens(t.Goal.Text) {
		p.goal[w] = true
	}
	names := make([]string, 0, len(t.Inputs))
	for n := range t.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		in := t.Inputs[n]
		re, err := regexp.Compile(in.Match)
		if err != nil {
			return nil, fmt.Errorf("planner: input %s: %w", n, err)
		}
		r := inputRule{name: n, match: re, secret: in.Secret()}
		if !r.secret {
			r.value = in.Value
			for _, w := range tokens(in.Value) {
				p.goal[w] = true
			}
		}
		p.inputs = append(p.inputs, r)
	}
	for i, s := range t.RiskPatterns {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("planner: risk pattern %q: %w", s, err)
		}
		if i < len(task.DefaultRiskPatterns) && s == task.DefaultRiskPatterns[i] && re.MatchString(t.Goal.Text) {
			continue // the goal asks for it; the request hold still stops what it sends
		}
		p.risk = append(p.risk, re)
	}
	if o := t.Origin(); o != "" {
		p.origins = map[string]bool{strings.ToLower(o): true}
		for _, x := range t.Explore.Origins {
			p.origins[strings.ToLower(strings.TrimRight(x, "/"))] = true
		}
	}
	for _, g := range guard {
		if strings.EqualFold(g.Method, "GET") || g.Method == "" {
			if re, err := regexp.Compile(g.URL); err == nil {
				p.guards = append(p.guards, re)
			}
		}
	}
	if err := p.useProfiles(t.Planner.Profiles); err != nil {
		return nil, err
	}
	return p, nil
}

// useProfiles reads the generic lexicon and the task's word profiles:
// their words weigh element names, and a profile's site search sets the
// query typed into a site's search field when the goal holds one of its
// words.
func (p *Proposer) useProfiles(names []string) error {
	p.lexicon = map[string]float64{}
	stemmedTable(words.Lexicon, p.lexicon)
	for _, name := range names {
		pr, ok := words.Profiles[name]
		if !ok {
			return fmt.Errorf("planner: unknown word profile %q", name)
		}
		stemmedTable(pr.Lexicon, p.lexicon)
		if s := pr.SiteSearch; s != nil && p.query == "" && p.goalHolds(s.When) {
			p.query = s.Query
		}
	}
	if p.query == "" && p.goalHolds(words.SiteSearch.When) {
		p.query = p.sought()
	}
	return nil
}

// goalHolds reports whether the goal holds one of ws (stemmed).
func (p *Proposer) goalHolds(ws []string) bool {
	for _, w := range ws {
		if p.goal[stem(w)] || p.goal[w] {
			return true
		}
	}
	return false
}

// sought is what the goal looks for by name: its first quoted string,
// else its first capitalized name ("the page about Ada Lovelace"), ""
// when it names nothing so.
func (p *Proposer) sought() string {
	for _, v := range p.g.Stated {
		if v.Source == SourceQuoted || v.Kind == ValueName {
			return v.Text
		}
	}
	return ""
}

// History is what the proposer needs to know about the branch so far.
type History struct {
	// Visited holds the URLs the branch has shown (scrubbed forms are
	// fine: only equality matters).
	Visited map[string]bool
	// Applied holds the input names already typed or selected.
	Applied map[string]bool
	// Done holds the canonical forms of actions already taken on the
	// current page.
	Done map[string]bool
	// Progress is the branch's goal progress: searching the site is only
	// worth it before any goal signal showed up.
	Progress float64
	// Known holds the URLs any branch of the search has already shown:
	// a link there leads to a state the tree already holds.
	Known map[string]bool
}

// loginWords are the lexicon stems that lead to a login.
var loginWords = stemmedSet(words.LoginWords)

// hasCredentials reports whether the task holds what logs in: an auth
// section, or a secret input that names a password.
func hasCredentials(t *task.Task) bool {
	if len(t.Auth.Login) > 0 || t.Auth.StorageState != nil {
		return true
	}
	for name, in := range t.Inputs {
		if in.Secret() && (strings.Contains(strings.ToLower(name), "pass") || strings.Contains(strings.ToLower(in.Match), "pass")) {
			return true
		}
	}
	return false
}

// Propose returns candidate actions for the page, best first. Ties are
// broken by the action's canonical form, so the order is deterministic.
func (p *Proposer) Propose(obs *branch.Observation, h History) []Candidate {
	if obs == nil {
		return nil
	}
	col := &collector{seen: map[string]bool{}, done: h.Done}
	add := col.add
	modal := modalOpen(obs)
	f := p.fillCandidates(obs, h, add)
	p.stepCandidates(obs, h, add)
	p.widgetCandidates(obs, h, add) // widgets.go: sliders and spin buttons
	p.valueCandidates(obs, h, f.pending, add)
	p.toggleCandidates(obs, add)
	p.suggestionCandidates(obs, add)
	p.stepperCandidates(obs, add)
	behind := modal && p.behindModal(obs)
	for _, a := range obs.Affordances {
		if a.Region == branch.RegionObscured || p.risky(a, obs.URL) {
			continue
		}
		switch {
		case clickKinds[a.Kind]:
			c, ok := p.activate(a, obs, h, modal)
			if !ok {
				continue
			}
			p.clickPrior(&c, a, f, behind, col.named)
			add(c)
		case p.query != "" && a.Value == "" && h.Progress == 0 && searchField(a):
			add(Candidate{Action: branch.Action{Kind: branch.KindType, Target: targetOf(a), Value: p.query,
				Label: fmt.Sprintf("type %q into %s", p.query, label(a))}, Prior: p.w.SiteSearchPrior, Reason: "searches the site"})
		}
	}
	p.w.keyCandidates(obs, modal, behind, add)
	p.hoverCandidates(obs, add)
	p.rest(obs, add) // menu.go: the rest of what the page offers
	out := p.safeOnly(obs, col.out)
	p.w.waitForFields(obs, out)
	p.g.placeControls(out)
	p.w.goalOrder(out)
	p.rank(obs, out)
	return out
}

// collector gathers a proposal's candidates once each: never one the
// history already did, and with its prior clamped to [0, 1].
type collector struct {
	out  []Candidate
	seen map[string]bool
	done map[string]bool
	// named is set once a candidate the goal names by its target is on
	// the page.
	named bool
}

func (col *collector) add(c Candidate) {
	key := string(branch.Plan{c.Action}.Canonical())
	if col.seen[key] || col.done[key] {
		return
	}
	col.seen[key] = true
	col.named = col.named || c.Named && c.match >= exactName
	c.Prior = math.Max(0, math.Min(1, c.Prior))
	col.out = append(col.out, c)
}

// formFill is what a page's forms hold, by form index: forms with a
// field still to fill (pending) or every field a task input fills
// already filled (filled); forms with a text field holding a value
// (typed), an empty one (blank), an empty one they require (needed).
type formFill struct {
	filled, pending, typed, blank, needed map[int]bool
}

// fillCandidates proposes to fill, in each form, the first field a task
// input says how to fill, in page order (one canonical order keeps the
// tree narrow), and reports what the forms hold.
func (p *Proposer) fillCandidates(obs *branch.Observation, h History, add func(Candidate)) formFill {
	f := formFill{filled: map[int]bool{}, pending: map[int]bool{}, typed: map[int]bool{}, blank: map[int]bool{}, needed: map[int]bool{}}
	for _, a := range obs.Affordances {
		if a.Kind.TakesText() {
			if a.Value == "" {
				f.blank[a.Form] = true
				f.needed[a.Form] = f.needed[a.Form] || a.Required || strings.HasSuffix(strings.TrimSpace(a.Target.Name), "*")
			} else {
				f.typed[a.Form] = true
			}
		}
	}
	for _, a := range obs.Affordances {
		if !isField(a.Kind) || a.Region == branch.RegionObscured {
			continue
		}
		rule, ok := p.ruleFor(a)
		if !ok {
			continue
		}
		act, needed := p.fillAction(a, rule, h)
		if !needed {
			f.filled[a.Form] = true
			continue
		}
		if f.pending[a.Form] {
			continue
		}
		f.pending[a.Form] = true
		add(Candidate{Action: act, Prior: p.w.FillPrior, Reason: "fills " + rule.name + " into " + label(a)})
	}
	return f
}

// clickPrior sets the prior of a click by what it does to its form and
// the page: a submit button by how filled its form is, what the goal's
// steps name first, a modal's dismissal when it hides what the goal
// names, a pager when nothing the goal names is here (named is false),
// a form's button once its text fields hold values.
func (p *Proposer) clickPrior(c *Candidate, a branch.Affordance, f formFill, behind, named bool) {
	if a.Submit {
		switch {
		case f.pending[a.Form]:
			c.Prior, c.Reason = p.w.PendingSubmitPrior, "submits a form with fields still to fill"
		case f.filled[a.Form]:
			c.Prior, c.Reason = math.Max(c.Prior, p.w.FilledSubmitPrior), "submits a filled form"
		case f.blank[a.Form] && !f.typed[a.Form]:
			c.Prior, c.Reason = p.w.EmptySubmitPrior, "submits an empty form"
		}
	}
	if len(p.g.Steps) > 0 {
		// The goal names its steps: what they name comes first.
		c.Prior *= p.w.StepsOutrank
	}
	if behind && a.Region == branch.RegionDialog && dismisses(a) {
		c.Prior, c.Reason = math.Max(c.Prior, p.w.DismissPrior), "dismisses the modal that hides what the goal names"
	}
	if !named && len(p.g.Steps) > 0 && pager(a) {
		// Nothing the goal names is here: it may be further on.
		c.Prior, c.Reason, c.Onward = math.Max(c.Prior, p.w.PagerPrior), "pages on: what the goal names is not on this page", true
	}
	if a.Kind == branch.ElemButton && a.Form >= 0 && f.typed[a.Form] && (!f.blank[a.Form] || a.Submit && !f.needed[a.Form]) && !f.pending[a.Form] {
		// Every text field of its form holds a value now (or every one
		// it requires, for its submit button): the form's button is how
		// it goes on (a search, a step).
		c.Prior, c.Reason = math.Max(c.Prior, p.w.TypedFormPrior), "goes on with a filled form"
	}
}

// searchField reports whether a field is a site's search box: a search
// input, or a text field whose name, label or placeholder says search.
func searchField(a branch.Affordance) bool {
	if a.Kind == branch.ElemSearch {
		return true
	}
	if !a.Kind.SingleLine() {
		return false
	}
	for _, s := range []string{a.Target.Name, a.Target.Field, a.Target.ID, a.Target.AriaLabel} {
		for _, w := range Words(s) {
			if w == "search" || w == "q" || w == "query" {
				return true
			}
		}
	}
	return false
}

// keyCandidates proposes Enter in each filled text field whose form has
// no submit button, and Escape while a modal dialog is open (higher when
// it hides what the goal names: behind).
func (wt *Weights) keyCandidates(obs *branch.Observation, modal, behind bool, add func(Candidate)) {
	submits := map[int]bool{}
	for _, a := range obs.Affordances {
		if a.Submit {
			submits[a.Form] = true
		}
	}
	for _, a := range obs.Affordances {
		if !a.Kind.SingleLine() || a.Value == "" || submits[a.Form] || a.Region == branch.RegionObscured || modal && a.Region != branch.RegionDialog {
			continue
		}
		add(Candidate{Action: branch.Action{Kind: branch.KindKeyPress, Target: targetOf(a), Value: "Enter", Label: "press Enter in " + label(a)},
			Prior: wt.EnterPrior, Reason: "nothing else submits the field"})
	}
	if !modal {
		return
	}
	c := Candidate{Action: branch.Action{Kind: branch.KindKeyPress, Value: "Escape", Label: "press Escape"},
		Prior: wt.EscapePrior, Reason: "closes a modal dialog"}
	if behind {
		c.Prior, c.Reason = wt.EscapeBehindPrior, "closes a modal dialog that hides what the goal names"
	}
	add(c)
}

// hoverCandidates proposes pointing at each closed hover menu. A menu
// that reveals a control the goal names comes first, unless every row of
// a list reveals one like it (an Edit in each): then the reveal tells
// nothing, and the menu whose own element a step picks (by name or by
// position) comes first.
func (p *Proposer) hoverCandidates(obs *branch.Observation, add func(Candidate)) {
	revealers := map[string]int{} // revealed name -> menus that reveal it
	for _, a := range obs.Affordances {
		if a.Hover && a.Region != branch.RegionObscured {
			for _, r := range a.Reveals {
				revealers[Fold(r)]++
			}
		}
	}
	picked := map[int]bool{} // elements a step picks over the others
	for _, st := range p.g.Steps {
		ms := p.pick(obs, st)
		best, second := 0.0, 0.0
		for _, m := range ms {
			if m > best {
				best, second = m, best
			} else if m > second {
				second = m
			}
		}
		for i, m := range ms {
			picked[i] = picked[i] || m > 0 && m == best && best > second
		}
	}
	for i, a := range obs.Affordances {
		if !a.Hover || a.Region == branch.RegionObscured {
			continue
		}
		c := Candidate{Action: branch.Action{Kind: branch.KindHover, Target: targetOf(a), Label: "point at " + label(a)},
			Prior: p.w.HoverPrior, Reason: "opens a menu"}
		own := within(Words(a.Target.Name), p.g.Words)
		if own {
			c.Prior, c.Named, c.Reason = p.w.HoverNamedPrior, true, "opens the menu the goal names"
		}
		for _, r := range a.Reveals {
			if !p.stepNames(r) {
				continue
			}
			if revealers[Fold(r)] > 1 && !picked[i] {
				c.Reason = fmt.Sprintf("opens one of %d menus that hold %q", revealers[Fold(r)], r)
				break
			}
			c.Prior, c.Named, c.match = p.w.HoverRevealPrior, true, 1
			c.Reason = fmt.Sprintf("opens the menu that holds %q, which the goal names", r)
			if own {
				c.Prior += p.w.HoverBothBonus
			}
			break
		}
		add(c)
	}
}

// stepNames reports whether a step of the goal names an element by all
// the words of its name.
func (p *Proposer) stepNames(name string) bool {
	for _, st := range p.g.Steps {
		if within(Words(name), st.Target) {
			return true
		}
	}
	return false
}

// dismissWords name buttons that close a modal without taking its offer.
var dismissWords = words.DismissWords.set()

// dismisses reports whether a button's name starts with a dismiss word.
func dismisses(a branch.Affordance) bool {
	ws := Words(a.Target.Name + " " + a.Target.AriaLabel)
	if a.Target.Name == "×" || a.Target.Name == "✕" {
		return true
	}
	return len(ws) > 0 && dismissWords[ws[0]]
}

// behindModal reports whether an element the goal names by its exact name
// is hidden behind an open modal, and nothing in the modal is named so.
func (p *Proposer) behindModal(obs *branch.Observation) bool {
	behind := false
	for _, st := range p.g.Steps {
		words := core(st.Target)
		if len(words) == 0 {
			continue
		}
		for _, a := range obs.Affordances {
			if nameMatch(words, a) < exactName {
				continue
			}
			switch a.Region {
			case branch.RegionObscured:
				behind = true
			case branch.RegionDialog:
				return false // the goal has something to do in the modal
			}
		}
	}
	return behind
}

// waitForFields holds back clicks in a form (its buttons above all) while
// a field of it that the goal says what to type into is still empty:
// "enter the username and the password and press Login" presses Login
// last.
func (wt *Weights) waitForFields(obs *branch.Observation, out []Candidate) {
	byCSS := map[string]branch.Affordance{}
	for _, a := range obs.Affordances {
		if a.Target.CSS != "" {
			byCSS[a.Target.CSS] = a
		}
	}
	pending := map[int]bool{}
	for _, c := range out {
		if t := c.Action.Target; t != nil && c.Named && c.Action.Kind == branch.KindType {
			if a, ok := byCSS[t.CSS]; ok && a.Form >= 0 && a.Value == "" {
				pending[a.Form] = true
			}
		}
	}
	for i, c := range out {
		if t := c.Action.Target; t != nil && c.Action.Kind == branch.KindClick {
			if a, ok := byCSS[t.CSS]; ok && a.Form >= 0 && pending[a.Form] {
				out[i].Prior *= wt.FieldsFirstScale
				out[i].Reason += "; after the fields the goal fills"
			}
		}
	}
}

// pagerWords name controls that page on through a list.
var pagerWords = words.PagerWords.set()

// pager reports whether an affordance pages on: every word of its name is
// a pager word, and one of them says next or more.
func pager(a branch.Affordance) bool {
	ws := Words(a.Target.Name)
	if a.Target.Name == "›" || a.Target.Name == "»" || a.Target.Name == ">" {
		return true
	}
	onward := false
	for _, w := range ws {
		if !pagerWords[w] {
			return false
		}
		onward = onward || w == "next" || w == "more" || w == "older" || w == "forward"
	}
	return onward
}

// rank orders candidates by prior; ties go to the one whose element holds
// more of the goal's words, then to the first in document order, then to
// the canonical form.
func (p *Proposer) rank(obs *branch.Observation, out []Candidate) {
	order := map[string]int{}
	rel := map[string]float64{}
	for i, a := range obs.Affordances {
		if _, ok := order[a.Target.CSS]; !ok && a.Target.CSS != "" {
			order[a.Target.CSS] = i
			rel[a.Target.CSS] = p.relevance(a)
		}
	}
	type key struct {
		rel   float64
		order int
		canon string
	}
	keys := make([]key, len(out))
	for i, c := range out {
		k := key{order: len(obs.Affordances), canon: string(branch.Plan{c.Action}.Canonical())}
		if t := c.Action.Target; t != nil {
			if o, ok := order[t.CSS]; ok {
				k.order, k.rel = o, rel[t.CSS]
			}
		}
		keys[i] = k
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool {
		i, j := idx[x], idx[y]
		switch {
		case out[i].Prior != out[j].Prior:
			return out[i].Prior > out[j].Prior
		case keys[i].rel != keys[j].rel:
			return keys[i].rel > keys[j].rel
		case keys[i].order != keys[j].order:
			return keys[i].order < keys[j].order
		}
		return keys[i].canon < keys[j].canon
	})
	sorted := make([]Candidate, len(out))
	for x, i := range idx {
		sorted[x] = out[i]
	}
	copy(out, sorted)
}

// isField reports whether fillCandidates fills an element of the kind
// from a task input: a text box, number, email, textarea, select,
// checkbox or radio. A search box takes text too (TakesText) but is not
// one of them.
func isField(kind branch.ElementKind) bool {
	switch kind {
	case branch.ElemTextbox, branch.ElemNumber, branch.ElemEmail, branch.ElemSelect, branch.ElemTextarea, branch.ElemCheckbox, branch.ElemRadio:
		return true
	}
	return false
}

func label(a branch.Affordance) string {
	if n := a.Target.Name; n != "" {
		return fmt.Sprintf("%q", n)
	}
	return a.Target.Describe()
}

func targetOf(a branch.Affordance) *branch.Target {
	t := a.Target
	return &t
}

// ruleFor finds the task input that matches a form field by label, name,
// id or placeholder.
func (p *Proposer) ruleFor(a branch.Affordance) (inputRule, bool) {
	for _, r := range p.inputs {
		for _, s := range []string{a.Target.Name, a.Target.Field, a.Target.ID, a.Target.AriaLabel, a.Target.Hint} {
			if s != "" && r.match.MatchString(s) {
				return r, true
			}
		}
	}
	return inputRule{}, false
}

// fillAction returns the action that puts the input into the field, and
// whether it is still needed.
func (p *Proposer) fillAction(a branch.Affordance, r inputRule, h History) (branch.Action, bool) {
	t := targetOf(a)
	switch a.Kind {
	case branch.ElemSelect:
		want := ""
		for _, o := range a.Options {
			if strings.EqualFold(o.Value, r.value) || strings.EqualFold(o.Text, r.value) {
				want = o.Value
				if o.Selected || strings.EqualFold(a.Value, o.Value) {
					return branch.Action{}, false
				}
			}
		}
		if want == "" {
			if r.secret && !h.Applied[r.name] {
				return branch.Action{Kind: branch.KindSelect, Target: t, Input: r.name, Label: fmt.Sprintf("select input %s in %s", r.name, label(a))}, true
			}
			return branch.Action{}, false
		}
		return branch.Action{Kind: branch.KindSelect, Target: t, Value: want, Label: fmt.Sprintf("select %q in %s", want, label(a))}, true
	case branch.ElemCheckbox, branch.ElemRadio:
		want := r.value == "" || strings.EqualFold(r.value, "true") || strings.EqualFold(r.value, "yes")
		if a.Checked == want {
			return branch.Action{}, false
		}
		return branch.Action{Kind: branch.KindCheck, Target: t, Value: fmt.Sprint(want), Label: fmt.Sprintf("check %s", label(a))}, true
	}
	if a.Holds == r.name || (!r.secret && a.Value == r.value) {
		return branch.Action{}, false
	}
	return branch.Action{Kind: branch.KindType, Target: t, Input: r.name, Label: fmt.Sprintf("type input %s into %s", r.name, label(a))}, true
}

// risky reports whether activating the affordance could be the side effect
// only the committer may cause.
func (p *Proposer) risky(a branch.Affordance, page string) bool {
	if c := p.commit; c != nil {
		t := a.Target
		sameRole := c.Role == "" || t.Role == "" || strings.EqualFold(c.Role, t.Role)
		if (c.TestID != "" && c.TestID == t.TestID) || (c.Name != "" && strings.EqualFold(c.Name, t.Name) && sameRole) ||
			(c.Text != "" && strings.EqualFold(c.Text, t.Text)) || (c.ID != "" && c.ID == t.ID) ||
			(c.AriaLabel != "" && c.AriaLabel == t.AriaLabel) {
			return true
		}
	}
	for _, s := range []string{a.Target.Name, a.Target.Text, a.Target.AriaLabel, a.Target.Hint} {
		for _, re := range p.risk {
			if s != "" && re.MatchString(s) {
				return true
			}
		}
	}
	for _, re := range p.guards {
		if a.Href != "" && re.MatchString(a.Href) {
			return true
		}
	}
	return p.offSite(a.Href, page)
}

// offSite reports whether href leads to an origin the task does not
// explore (the request hold would refuse the navigation anyway).
//
// The page's own origin counts as explored: a start URL that redirects
// (http to https, a site that moved) leaves the branch on it.
func (p *Proposer) offSite(href, page string) bool {
	if len(p.origins) == 0 || !strings.Contains(href, "://") {
		return false
	}
	o := originOfURL(href)
	return o != "" && !p.origins[o] && o != originOfURL(page)
}

// originOfURL is scheme://host of an http(s) URL, lower case, or "".
func originOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// nearHits counts the distinct goal words of a neighbourhood that are not
// among the element's own words.
func (p *Proposer) nearHits(near string, own []string) int {
	if near == "" {
		return 0
	}
	seen := map[string]bool{}
	for _, w := range own {
		seen[w] = true
	}
	hits := 0
	for _, w := range tokens(near) {
		if !seen[w] && p.goal[w] {
			hits++
		}
		seen[w] = true
	}
	return hits
}

// activate scores a link or button by what its words say about the goal.
func (p *Proposer) activate(a branch.Affordance, obs *branch.Observation, h History, modal bool) (Candidate, bool) {
	name := a.Target.Name
	if name == "" {
		name = a.Target.Text
	}
	if name == "" {
		name = a.Target.Hint // an icon-only control, named by its look
	}
	if name == "" && a.Target.AriaLabel == "" {
		return Candidate{}, false
	}
	text := name
	if al := a.Target.AriaLabel; al != "" && !strings.EqualFold(al, name) {
		text += " " + al
	}
	words := tokens(text)
	score := p.w.ActivateBase
	var why []string
	goalHits := 0
	for _, w := range words {
		if p.goal[w] {
			goalHits++
		}
		if v, ok := p.lexicon[w]; ok && !(p.credentials && loginWords[w]) {
			score += v * p.w.LexiconWeight
		}
	}
	if goalHits > 0 {
		score += p.w.GoalWordWeight * float64(min(goalHits, p.w.WordHitsCounted))
		why = append(why, "matches the goal")
	}
	if hits := p.nearHits(a.Target.Near, words); hits > 0 {
		score += p.w.NearWeight * float64(min(hits, p.w.WordHitsCounted))
		why = append(why, "its neighbourhood matches the goal")
	}
	switch a.Region {
	case branch.RegionDialog:
		score += p.w.DialogBonus
		why = append(why, "answers a dialog")
	case branch.RegionMain:
		score += p.w.MainBonus
	case branch.RegionFooter:
		score -= p.w.FooterPenalty
	}
	if modal && a.Region != branch.RegionDialog {
		score -= p.w.BehindModalPenalty
	}
	if a.Href != "" {
		if u, err := url.Parse(a.Href); err == nil {
			cur, _ := url.Parse(obs.URL)
			if u.Fragment != "" && cur != nil && u.Path == cur.Path && u.RawQuery == cur.RawQuery {
				return Candidate{}, false // an in-page anchor
			}
			if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
				return Candidate{}, false // mailto:, tel:, javascript:
			}
			if cur != nil && u.Host == cur.Host && u.Path == cur.Path && u.RawQuery == cur.RawQuery {
				return Candidate{}, false // reloads the page the branch is on
			}
		}
		if h.Visited[a.Href] || h.Known[a.Href] {
			// Going back, or to a page another branch already showed, is
			// not new: the tree already holds that page and its children.
			return Candidate{}, false
		}
	}
	if len(why) == 0 {
		why = append(why, "ranked by its words")
	}
	act := branch.Action{Kind: branch.KindClick, Target: targetOf(a), Label: fmt.Sprintf("click %s %s", a.Kind, label(a))}
	return Candidate{Action: act, Prior: score, Reason: strings.Join(why, ", ")}, true
}
