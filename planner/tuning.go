package planner

// The proposer's tuning: every weight and prior it gives a candidate, in
// one place (the search's own tuning is at the top of search.go). Priors
// are in [0, 1]; a candidate's prior is clamped there when it is added.
// The lexicon's word weights (text.go) are data, not tuning.

// Priors of filling and sending forms.
const (
	// FillPrior is the prior of filling a field that a task input says
	// how to fill: filling comes before anything else on the page.
	FillPrior = 0.95
	// FilledSubmitPrior is the least prior of a form's submit button once
	// every field a task input names is filled.
	FilledSubmitPrior = 0.85
	// PendingSubmitPrior is the prior of a form's submit button while a
	// field a task input names is still to fill.
	PendingSubmitPrior = 0.15
	// EmptySubmitPrior is the prior of a form's submit button while its
	// text fields are all empty.
	EmptySubmitPrior = 0.05
	// TypedFormPrior is the least prior of a button of a form whose every
	// text field holds a value: what was typed is sent or taken further
	// with it, whether or not the goal names the button.
	TypedFormPrior = 0.5
	// FieldsFirstScale scales the prior of a click in a form while a field
	// of it that the goal says what to type into is still empty.
	FieldsFirstScale = 0.5
	// SiteSearchPrior is the prior of typing the task's query into the
	// site's search box before any goal signal showed up.
	SiteSearchPrior = 0.3
)

// Priors of the keys a person tries when the page offers no button for
// what they want: Enter in a filled field that nothing else submits (a
// search box), Escape on a modal dialog.
// Escape rises to EscapeBehindPrior when what the goal names is behind
// the modal (still below a dialog's own dismiss button).
const (
	EnterPrior        = 0.4
	EscapePrior       = 0.35
	EscapeBehindPrior = 0.5
)

// Priors of pointing at a hover menu: one that hides what a step of the
// goal names ranks with the goal's own steps (a little higher when the
// goal names the menu too), one only named by the goal below, any other
// as a look around.
const (
	HoverRevealPrior = 0.85
	HoverBothBonus   = 0.05
	HoverNamedPrior  = 0.6
	HoverPrior       = 0.3
)

// Priors of getting past what stands between the page and the goal.
const (
	// DismissPrior is the least prior of a modal's dismiss button (Close,
	// No thanks, Not now) when the modal hides what the goal names: above
	// Escape, which not every modal answers.
	DismissPrior = 0.55
	// PagerPrior is the least prior of a control that shows more of a
	// list (next, more, load more) when nothing the goal names is on the
	// page.
	PagerPrior = 0.5
)

// Scoring of a link or button by its words and where it stands (activate):
// ActivateBase, plus each weight that applies.
const (
	// ActivateBase is the score of a link or button before its words and
	// place are weighed.
	ActivateBase = 0.2
	// LexiconWeight scales a word's lexicon weight (text.go) into the
	// score.
	LexiconWeight = 0.6
	// GoalWordWeight is what each goal word in the element's own name
	// adds, for up to WordHitsCounted words.
	GoalWordWeight = 0.35
	// NearWeight is what each goal word in an element's neighbourhood (its
	// row, card or paragraph, beyond its own name) adds, for up to
	// WordHitsCounted words: lookalikes ("Book" on every row) are told
	// apart by where they stand.
	NearWeight = 0.08
	// WordHitsCounted is how many goal words, in the name and in the
	// neighbourhood each, count towards the score.
	WordHitsCounted = 2
	// DialogBonus is what answering an open dialog adds.
	DialogBonus = 0.4
	// MainBonus is what standing in the page's main region adds.
	MainBonus = 0.05
	// FooterPenalty is what standing in the footer takes away.
	FooterPenalty = 0.1
	// BehindModalPenalty is what standing outside an open modal takes
	// away: it is not what the page asks for now.
	BehindModalPenalty = 0.5
)

// Priors of what the goal's verb phrases name (stepCandidates, keyStep): an
// element a step names gets StepPriorBase + StepPriorSpan × match × fit ×
// order, where order is 1 - StepDiscount for each earlier step.
const (
	// StepPriorBase is the prior of an element a step names, before how
	// well it is named.
	StepPriorBase = 0.5
	// StepPriorSpan is the prior a step's element gains from an exact
	// name that fully fits the verb; a key the step asks to press gains
	// it too.
	StepPriorSpan = 0.45
	// EscapeStepSpan is the prior gained by Escape for a close step while
	// a modal is open: below a button of the dialog the phrase names.
	EscapeStepSpan = 0.4
	// StepDiscount lowers the prior of each later verb phrase of the goal
	// by this share of its match, so the steps are proposed in the order
	// the goal names them.
	StepDiscount = 0.1
	// StepGap is how far the priors of a later step stay below the best
	// of an earlier step that has something to do on the page.
	StepGap = 0.01
	// StepsOutrank scales the prior of an activation the goal's verb
	// phrases did not ask for, when it has some: below every element they
	// name.
	StepsOutrank = 0.45
	// BetterNamed is how much better another phrase must name an element
	// for a phrase to leave it to that one.
	BetterNamed = 0.3
	// fallbackMatch is the match of an empty text field for a type phrase
	// whose field nothing on the page names.
	fallbackMatch = 0.3
)

// noCeiling is above every prior: the first step's priors are not capped.
const noCeiling = 2.0

// How well words name an element (Match, nameMatch, relevance).
const (
	// exactName is the match from which the goal's phrase is taken to
	// name an element on the page (an exact name; a word inside another
	// is not).
	exactName = 0.9
	// PartialWord is what a word found only inside another word (or
	// holding it) counts, against 1 for the word itself.
	PartialWord = 0.5
	// MatchScale caps a match that is not the exact name, so an exact name
	// always outranks a partial one.
	MatchScale = 0.9
	// PrecisionWeight is the share of a match that depends on how much of
	// the element's name the target's words cover ("Close" names the
	// button "Close" better than "Close dialog").
	PrecisionWeight = 0.5
	// NearMatch scales how well words name an element's neighbourhood,
	// below naming the element itself.
	NearMatch = 0.6
)

// Fit grades: how often an element of a kind is what a role noun ("the
// OK button") or a verb ("check ...") of the goal means (roleFits,
// verbFits). 0 is no fit.
const (
	// FitSure: the kind is what the word means.
	FitSure = 1
	// FitUsually: a clickable for a link (text styled and scripted as
	// one), any clickable kind for a select verb.
	FitUsually = 0.8
	// FitOften: a switch, option or menu item for a checkbox; a link,
	// clickable or menu for a menu item; any other clickable to expand.
	FitOften = 0.7
	// FitSometimes: a clickable or link for a button; a button for a
	// link; a tree item, menu item, clickable or radio for an option; an
	// option-like kind to check; any other kind to focus.
	FitSometimes = 0.6
	// FitRarely: a clickable, button or link for a tab; a toggle or a
	// text field to click.
	FitRarely = 0.5
)

// Binding the values the goal states to the page's fields (values.go):
// a field's candidates are scored by affinity (how well the words next to
// a value in the goal name the field's label, in [0, 1]) plus
// BindTypeWeight × type fit.
const (
	// ValueSurePrior is the prior of writing a value that binds clearly
	// to a field: below a task input's fill, with the goal's own steps.
	ValueSurePrior = 0.9
	// ValueGuessPrior is the prior of the best of several values that may
	// fit a field; each next one gets ValueGuessDecay times the one
	// before, for up to ValueBranches values.
	ValueGuessPrior = 0.7
	ValueGuessDecay = 0.85
	ValueBranches   = 3
	// ValueLoosePrior is the prior of writing a value into a field that
	// nothing in the goal names ("find movies by X" into a search box):
	// among the page's ordinary links and buttons, not above them.
	ValueLoosePrior = 0.25
	// BindSure is the least affinity of a binding taken as certain, and
	// BindMargin how far its score must lead the next value's (and how
	// far below a value's best field another field may be and still get
	// it).
	BindSure   = 0.6
	BindMargin = 0.25
	// BindTypeWeight weighs the type fit against the affinity.
	BindTypeWeight = 0.6
	// TypeFitLoose is the type fit of a typed value (a date, a number)
	// for a plain text field, which takes it as written.
	TypeFitLoose = 0.5
	// AffinityStem, AffinitySynonym and AffinityPartial are what a cue
	// word counts against a label word of the same stem ("directed",
	// "Director"), a synonym ("from", "Departure"), or one inside the
	// other ("mail", "Email"); the word itself counts 1.
	AffinityStem    = 0.85
	AffinitySynonym = 0.75
	AffinityPartial = 0.6
	// AffinityNear scales a match with the field's neighbourhood (its
	// heading or legend) rather than its own label.
	AffinityNear = 0.5
	// AffinityDistance is what each word between a cue word and its value
	// takes away.
	AffinityDistance = 0.2
	// AffinityKind weighs a label word that asks for the value's kind (a
	// field named Date for a date) when the goal names no field.
	AffinityKind = 0.8
	// AffinityOption is the affinity of a value one of a select's options
	// spells: the select offers it.
	AffinityOption = 0.7
	// AffinityLowerLabel is the affinity of lower-case words read after a
	// field's own label in the goal ("with the title the godfather"):
	// a guess, not a certainty.
	AffinityLowerLabel = 0.5
)
