package planner

// Weights are the planner's tuning: every weight and prior the proposer
// gives a candidate, and the numbers of the search the task does not set.
// Priors are in [0, 1]; a candidate's prior is clamped there when it is
// added. DefaultWeights holds the values every run uses unless a caller
// passes others (WithWeights). The lexicon's word weights (text.go) are
// data, not tuning.
type Weights struct {
	// Priors of filling and sending forms.
	//
	// FillPrior is the prior of filling a field that a task input says
	// how to fill: filling comes before anything else on the page.
	FillPrior float64
	// FilledSubmitPrior is the least prior of a form's submit button once
	// every field a task input names is filled.
	FilledSubmitPrior float64
	// PendingSubmitPrior is the prior of a form's submit button while a
	// field a task input names is still to fill.
	PendingSubmitPrior float64
	// EmptySubmitPrior is the prior of a form's submit button while its
	// text fields are all empty.
	EmptySubmitPrior float64
	// TypedFormPrior is the least prior of a button of a form whose every
	// text field holds a value: what was typed is sent or taken further
	// with it, whether or not the goal names the button.
	TypedFormPrior float64
	// FieldsFirstScale scales the prior of a click in a form while a field
	// of it that the goal says what to type into is still empty.
	FieldsFirstScale float64
	// SiteSearchPrior is the prior of typing the task's query into the
	// site's search box before any goal signal showed up.
	SiteSearchPrior float64

	// Priors of the keys a person tries when the page offers no button for
	// what they want: Enter in a filled field that nothing else submits (a
	// search box), Escape on a modal dialog.
	// Escape rises to EscapeBehindPrior when what the goal names is behind
	// the modal (still below a dialog's own dismiss button).
	EnterPrior        float64
	EscapePrior       float64
	EscapeBehindPrior float64

	// Priors of pointing at a hover menu: one that hides what a step of the
	// goal names ranks with the goal's own steps (a little higher when the
	// goal names the menu too), one only named by the goal below, any other
	// as a look around.
	HoverRevealPrior float64
	HoverBothBonus   float64
	HoverNamedPrior  float64
	HoverPrior       float64

	// Priors of getting past what stands between the page and the goal.
	//
	// DismissPrior is the least prior of a modal's dismiss button (Close,
	// No thanks, Not now) when the modal hides what the goal names: above
	// Escape, which not every modal answers.
	DismissPrior float64
	// PagerPrior is the least prior of a control that shows more of a
	// list (next, more, load more) when nothing the goal names is on the
	// page.
	PagerPrior float64

	// Scoring of a link or button by its words and where it stands (activate):
	//
	// ActivateBase, plus each weight that applies.
	// ActivateBase is the score of a link or button before its words and
	// place are weighed.
	ActivateBase float64
	// LexiconWeight scales a word's lexicon weight (text.go) into the
	// score.
	LexiconWeight float64
	// GoalWordWeight is what each goal word in the element's own name
	// adds, for up to WordHitsCounted words.
	GoalWordWeight float64
	// NearWeight is what each goal word in an element's neighbourhood (its
	// row, card or paragraph, beyond its own name) adds, for up to
	// WordHitsCounted words: lookalikes ("Book" on every row) are told
	// apart by where they stand.
	NearWeight float64
	// WordHitsCounted is how many goal words, in the name and in the
	// neighbourhood each, count towards the score.
	WordHitsCounted int
	// DialogBonus is what answering an open dialog adds.
	DialogBonus float64
	// MainBonus is what standing in the page's main region adds.
	MainBonus float64
	// FooterPenalty is what standing in the footer takes away.
	FooterPenalty float64
	// BehindModalPenalty is what standing outside an open modal takes
	// away: it is not what the page asks for now.
	BehindModalPenalty float64

	// Priors of what the goal's verb phrases name (stepCandidates, keyStep): an
	// element a step names gets StepPriorBase + StepPriorSpan × match × fit ×
	// order, where order is 1 - StepDiscount for each earlier step.
	//
	// StepPriorBase is the prior of an element a step names, before how
	// well it is named.
	StepPriorBase float64
	// StepPriorSpan is the prior a step's element gains from an exact
	// name that fully fits the verb; a key the step asks to press gains
	// it too.
	StepPriorSpan float64
	// EscapeStepSpan is the prior gained by Escape for a close step while
	// a modal is open: below a button of the dialog the phrase names.
	EscapeStepSpan float64
	// StepDiscount lowers the prior of each later verb phrase of the goal
	// by this share of its match, so the steps are proposed in the order
	// the goal names them.
	StepDiscount float64
	// StepGap is how far the priors of a later step stay below the best
	// of an earlier step that has something to do on the page.
	StepGap float64
	// StepsOutrank scales the prior of an activation the goal's verb
	// phrases did not ask for, when it has some: below every element they
	// name.
	StepsOutrank float64
	// BetterNamed is how much better another phrase must name an element
	// for a phrase to leave it to that one.
	BetterNamed float64

	// Binding the values the goal states to the page's fields (values.go):
	// a field's candidates are scored by affinity (how well the words next to
	// a value in the goal name the field's label, in [0, 1]) plus
	//
	// BindTypeWeight × type fit.
	// ValueSurePrior is the prior of writing a value that binds clearly
	// to a field: below a task input's fill, with the goal's own steps.
	ValueSurePrior float64
	// ValueGuessPrior is the prior of the best of several values that may
	// fit a field; each next one gets ValueGuessDecay times the one
	// before, for up to ValueBranches values.
	ValueGuessPrior float64
	ValueGuessDecay float64
	ValueBranches   int
	// ValueLoosePrior is the prior of writing a value into a field that
	// nothing in the goal names ("find movies by X" into a search box):
	// among the page's ordinary links and buttons, not above them.
	ValueLoosePrior float64
	// BindSure is the least affinity of a binding taken as certain, and
	// BindMargin how far its score must lead the next value's (and how
	// far below a value's best field another field may be and still get
	// it).
	BindSure   float64
	BindMargin float64
	// BindTypeWeight weighs the type fit against the affinity.
	BindTypeWeight float64
	// TypeFitLoose is the type fit of a typed value (a date, a number)
	// for a plain text field, which takes it as written.
	TypeFitLoose float64
	// AffinityStem, AffinitySynonym and AffinityPartial are what a cue
	// word counts against a label word of the same stem ("directed",
	// "Director"), a synonym ("from", "Departure"), or one inside the
	// other ("mail", "Email"); the word itself counts 1.
	AffinityStem    float64
	AffinitySynonym float64
	AffinityPartial float64
	// AffinityNear scales a match with the field's neighbourhood (its
	// heading or legend) rather than its own label.
	AffinityNear float64
	// AffinityDistance is what each word between a cue word and its value
	// takes away.
	AffinityDistance float64
	// AffinityKind weighs a label word that asks for the value's kind (a
	// field named Date for a date) when the goal names no field.
	AffinityKind float64
	// AffinityOption is the affinity of a value one of a select's options
	// spells: the select offers it.
	AffinityOption float64
	// AffinityLowerLabel is the affinity of lower-case words read after a
	// field's own label in the goal ("with the title the godfather"):
	// a guess, not a certainty.
	AffinityLowerLabel float64

	// Priors of setting a slider or spin button (a task input whose rule
	// names one is as sure as filling a field: FillPrior).
	//
	// SetNearPrior is a number the goal states within setSpan words of a
	// control's label words, less SetNearStep for each word between.
	SetNearPrior float64
	SetNearStep  float64

	// Tuning of the search that the task does not set: the utility of a
	// child, the pruning rules, the beam and the choice of a wave.
	//
	// PriorWeight scales a proposer's prior into a child's utility.
	PriorWeight float64
	// LagMargin and LagLimit: a branch whose J trails the wave's best by
	// more than LagMargin for LagLimit successive expansions is cut.
	LagMargin float64
	LagLimit  int
	// SeparationMargin narrows the beam when the best J leads the next by
	// at least this much; a spread under a quarter of it widens it again.
	SeparationMargin float64
	// PoolFactor bounds the pending pool to width × max_children × this.
	PoolFactor int
	// BacktrackLimit is how many times a branch whose choices the task's
	// failure refused goes back to the candidates it left out.
	BacktrackLimit int
	// MinPrior is the least prior a child needs to be forked, except in
	// the root's wide first expansion and for the explorer child.
	MinPrior float64
	// SoftPenalty weighs the utility a branch loses as each budget (cost,
	// branches) runs low: at most this much per budget, when it is used up.
	SoftPenalty float64
	// LookFactor and LookExtra: NextWave picks a wave of w branches from
	// the best LookFactor × w + LookExtra pending ones.
	LookFactor int
	LookExtra  int
	// MinMarginalCost is the least marginal cost a branch is charged in
	// the frontier's keys, so a free action does not divide by zero.
	MinMarginalCost float64
	// LatencyPrice is the marginal cost the frontier's keys add per
	// second a step is expected to take on this site (Search.Learn).
	LatencyPrice float64
	// SlowStepMS and SlowStepFactor: a step of a followed cached plan is
	// slow on this site, and forked beside its alternatives rather than
	// alone, when earlier runs measured it at least SlowStepMS and
	// SlowStepFactor times the site's typical step.
	SlowStepMS, SlowStepFactor float64
	// StallEvidence, StallMargin and MinStallLimit calibrate the stall
	// rule to a site (Search.StallLimit).
	StallEvidence, StallMargin, MinStallLimit int
	// UCTExplore weighs the exploration term of PUCT.
	UCTExplore float64
	// UCTSlack is the budget slack added to a branch's upper bound before
	// comparing it with the best lower bound: a full budget gives a
	// branch this much benefit of the doubt, an empty one none.
	UCTSlack float64
}

// DefaultWeights returns the planner's default tuning.
func DefaultWeights() Weights {
	return Weights{
		FillPrior:          0.95,
		FilledSubmitPrior:  0.85,
		PendingSubmitPrior: 0.15,
		EmptySubmitPrior:   0.05,
		TypedFormPrior:     0.5,
		FieldsFirstScale:   0.5,
		SiteSearchPrior:    0.3,
		EnterPrior:         0.4,
		EscapePrior:        0.35,
		EscapeBehindPrior:  0.5,
		HoverRevealPrior:   0.85,
		HoverBothBonus:     0.05,
		HoverNamedPrior:    0.6,
		HoverPrior:         0.3,
		DismissPrior:       0.55,
		PagerPrior:         0.5,
		ActivateBase:       0.2,
		LexiconWeight:      0.6,
		GoalWordWeight:     0.35,
		NearWeight:         0.08,
		WordHitsCounted:    2,
		DialogBonus:        0.4,
		MainBonus:          0.05,
		FooterPenalty:      0.1,
		BehindModalPenalty: 0.5,
		StepPriorBase:      0.5,
		StepPriorSpan:      0.45,
		EscapeStepSpan:     0.4,
		StepDiscount:       0.1,
		StepGap:            0.01,
		StepsOutrank:       0.45,
		BetterNamed:        0.3,
		ValueSurePrior:     0.9,
		ValueGuessPrior:    0.7,
		ValueGuessDecay:    0.85,
		ValueBranches:      3,
		ValueLoosePrior:    0.25,
		BindSure:           0.6,
		BindMargin:         0.25,
		BindTypeWeight:     0.6,
		TypeFitLoose:       0.5,
		AffinityStem:       0.85,
		AffinitySynonym:    0.75,
		AffinityPartial:    0.6,
		AffinityNear:       0.5,
		AffinityDistance:   0.2,
		AffinityKind:       0.8,
		AffinityOption:     0.7,
		AffinityLowerLabel: 0.5,
		SetNearPrior:       0.8,
		SetNearStep:        0.04,
		PriorWeight:        0.5,
		LagMargin:          0.3,
		LagLimit:           2,
		SeparationMargin:   0.2,
		PoolFactor:         3,
		BacktrackLimit:     2,
		MinPrior:           0.25,
		SoftPenalty:        0.5,
		LookFactor:         4,
		LookExtra:          8,
		MinMarginalCost:    0.1,
		LatencyPrice:       1,
		SlowStepMS:         1000,
		SlowStepFactor:     4,
		StallEvidence:      3,
		StallMargin:        2,
		MinStallLimit:      2,
		UCTExplore:         0.6,
		UCTSlack:           0.4,
	}
}

// fallbackMatch is the match of an empty text field for a type phrase
// whose field nothing on the page names.
const fallbackMatch = 0.3

// noCeiling is above every prior: the first step's priors are not capped.
const noCeiling = 2.0

// How well words name an element (Match, nameMatch, relevance).
const (
	// exactName is the match from which the goal's phrase is taken to
	// name an element on the page (an exact name; a word inside another
	// is not).
	exactName = 0.9
	// partialWord is what a word found only inside another word (or
	// holding it) counts, against 1 for the word itself.
	partialWord = 0.5
	// matchScale caps a match that is not the exact name, so an exact name
	// always outranks a partial one.
	matchScale = 0.9
	// precisionWeight is the share of a match that depends on how much of
	// the element's name the target's words cover ("Close" names the
	// button "Close" better than "Close dialog").
	precisionWeight = 0.5
	// nearMatch scales how well words name an element's neighbourhood,
	// below naming the element itself.
	nearMatch = 0.6
)

// Fit grades: how often an element of a kind is what a role noun ("the
// OK button") or a verb ("check ...") of the goal means (roleFits,
// verbFits). 0 is no fit.
const (
	// fitSure: the kind is what the word means.
	fitSure = 1
	// fitUsually: a clickable for a link (text styled and scripted as
	// one), any clickable kind for a select verb.
	fitUsually = 0.8
	// fitOften: a switch, option or menu item for a checkbox; a link,
	// clickable or menu for a menu item; any other clickable to expand.
	fitOften = 0.7
	// fitSometimes: a clickable or link for a button; a button for a
	// link; a tree item, menu item, clickable or radio for an option; an
	// option-like kind to check; any other kind to focus.
	fitSometimes = 0.6
	// fitRarely: a clickable, button or link for a tab; a toggle or a
	// text field to click.
	fitRarely = 0.5
)

// Option tunes a Proposer or a Search.
type Option func(*Weights)

// WithWeights tunes a Proposer or a Search with w instead of
// DefaultWeights. A search and the proposer it asks are tuned apart: a
// caller that varies one weight passes the same Weights to both.
func WithWeights(w Weights) Option { return func(to *Weights) { *to = w } }

// weightsOf applies opts to the default tuning.
func weightsOf(opts []Option) Weights {
	w := DefaultWeights()
	for _, o := range opts {
		o(&w)
	}
	return w
}
