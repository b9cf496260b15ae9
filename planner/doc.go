// Package planner decides what Multiverse tries next. A Proposer ranks the
// affordances of an observed page against the task (goal text, inputs,
// risk patterns) and turns the best into candidate actions; a Search keeps
// the frontier of branches, selects each wave of branches to execute with
// a dynamic-width beam and forced diversification, applies the pruning
// rules, and names the winner.
//
// Determinism: nothing here reads a clock or global randomness. Results of
// a wave are folded in plan-digest order, not arrival order, so the same
// observations always produce the same forks, prunes and winner. Branch
// ids come from an injected generator.
//
// Safety: the proposer never proposes the task's commit action, an action
// whose target matches a risk pattern, or a navigation to a guarded URL.
//
// # Goal grammar
//
// The goal text is read without a language model by two readers over
// the same text: ParseGoal cuts it into verb phrases (Steps), and
// ExtractValues finds the typed values it states anywhere (Stated). The
// productions below are what the code recognizes, written in an
// EBNF-like notation: "x" is a literal word or mark, a lower-case name in
// snake_case is a table of words.json (every entry a terminal, matched
// after Fold: NFKC and case folding), [a] is optional, {a} repeats, a|b
// is a choice, a - b is a but not b, and (: ... :) is a comment. Words of
// a table are compared folded; "stemmed" means compared after stem.
//
// Lexing (lex). Words keep inner apostrophes before a letter (dropped
// from the folded word: "button's" is "buttons"), inner "." or "," before
// a digit ("1,000", "2.5"), and "/", "-", ":" between digits
// ("04/05/2016", "10:30"). A quote mark opens a quoted string only where
// no letter or digit comes right before it, and only with a closing mark
// and something between them.
//
//	goal       = { piece } ;
//	piece      = quoted | number | word | stop ;
//	quoted     = open-quote text close-quote ;     (: "…" '…' “…” ‘…’ «…» „…“ `…` 「…」 :)
//	number     = word that parses as a number once "," are dropped ;   (: Goal.Numbers :)
//	stop       = "." | "," | ";" | ":" | "!" | "?" | "(" | ")" | "and" | "then" | path-stop ;
//	list-stop  = "," | "and" | "then" | path-stop ;   (: a stop after which a list goes on :)
//	path-stop  = ">" | "→" | "»" | "›" | "▸" ;    (: a menu path, "File > Export > PDF" :)
//
// Steps (steps, phrase, setPhrase). A step runs from its verb to the next
// stop, or to the next verb that is not also a role noun ("check the
// switch" is one step).
//
//	steps      = { step | control-step | list-item | other-piece } ;
//	step       = verb body ;                      (: no verb is read right after a path-stop:
//	                                                 "Edit > Select > All" names entries :)
//	control-step = control_verbs [ pronouns ] ;   (: alone, at the start or after a stop that is
//	                                                 no path-stop, and before a stop or the end:
//	                                                 "..., then save." and "... and edit it" are
//	                                                 click steps, targets "save" and "edit" :)
//	verb       = two_word_verbs | verbs [ "ing" | "ed" | "es" | "s" ] ;
//	             (: also the verb with a final "e" dropped before "ing"/"ed"/"s":
//	                "typing", "closed"; the group key is Step.Verb :)
//	list-item  = body ;                           (: after a list-stop that ends a step:
//	                                                 takes that step's verb, "select A, B and C",
//	                                                 "open File > Export > PDF" (one step per entry),
//	                                                 "click A, then B" :)
//	body       = { piece - stop - (verb - role_nouns) } ;   (: a verb word right after one of the
//	                                                 determiners is a name and stays: "type the
//	                                                 Reading Lamp's stock into ..." :)
//	by-step    = step "by" step ;                 (: "close the dialog by clicking OK": the first
//	                                                 step is dropped, the second stands for it :)
//
//	click-body = target ;                         (: verbs click, select, check, uncheck, expand,
//	                                                 open, close, login, focus, submit :)
//	type-body  = [ what into_words ] field        (: the first into_words word past the first
//	                                                 word, the first strong_into_words word when the
//	                                                 step holds one ("the value in the table for X
//	                                                 into Y"); a literal ends at an into_words word
//	                                                 inside it; without one the first quoted is the
//	                                                 value :)
//	           | target ;
//	what       = reference | literal ;
//	reference  = determiners { word } ;           (: no quoted string: Step.Refers, articles dropped;
//	                                                 "enter your email into ...": a task input it
//	                                                 names, else a value the page states (Facts) :)
//	           | pronouns ;                       (: Step.Refers: the words the sentence named before
//	                                                 it, no stopwords: "find the year X was
//	                                                 released and enter it in Year" :)
//	literal    = quoted | { word - articles } [ "as" { word } ] ;   (: Step.Value: the quoted
//	                                                 string, else the words as written up to "as" :)
//	field      = target ;                         (: when field is only articles and role_nouns and
//	                                                 holds no quantifiers, the words before the literal
//	                                                 that are no articles, determiners or words of it
//	                                                 are the field: "enter the password "x" into the
//	                                                 text fields" :)
//	set-body   = target "to" literal ;            (: verb word "set", the last "to"; type :)
//
//	target     = { quoted | ordinal | role-noun | kept-article | word - articles } ;
//	ordinal    = ordinals | digits ( "st" | "nd" | "rd" | "th" ) ;   (: Step.Ordinal, not in Target :)
//	role-noun  = role_nouns [ "s" ] ;             (: the first sets Step.Role; stays in Target;
//	                                                 check/uncheck turn the role textbox into checkbox;
//	                                                 a capitalized word that is the whole target is
//	                                                 a name, no role noun :)
//	kept-article = articles ;                     (: past the first word, when capitalized ("the To
//	                                                 field") or when it ends a two-word verb ("Log in");
//	                                                 a capitalized one that is the whole target
//	                                                 ("Edit > All") :)
//	key-target = keys [ "key" ] ;                 (: a click step whose whole target this is: Step.Key;
//	                                                 "press Tab" then names no tab :)
//	pronoun    = pronouns ;                       (: a target of one pronoun is the previous step's
//	                                                 target, else the last quoted string or word
//	                                                 named before it :)
//
// The proposer reads a target further: role nouns name the kind of
// element, not its name (core); ["most"] recency_words pick by age and
// ordinals by position in a list ("the most recent post", "the first
// post in the list"); a submit step without target words names "submit".
//
// Values (ExtractValues). Each value is a span of the text, claimed by
// the first production that takes it, in this order; its cue and letter
// case are read afterwards.
//
//	values     = { quoted-value | shaped | labelled | name } ;
//	quoted-value = quoted ;                       (: typed by its content when one shaped value
//	                                                 spans all of it, else text :)
//	shaped     = url | email | iso-date | num-date | month-day | day-month | month-year
//	           | clock | hour-ampm | time_words | phone | amount | number ;
//	url        = ( "http://" | "https://" | "www." ) non-space { non-space } ;  (: trailing
//	                                                 punctuation dropped :)
//	iso-date   = yyyy date-sep m date-sep d ;     (: date-sep = "-" | "/" | "." :)
//	num-date   = a sep b sep ( yyyy | yy ) ;      (: one sep of "/" "." "-"; "." reads day first,
//	                                                 the others month first and then day first:
//	                                                 an ambiguous date in both readings :)
//	month-day  = months ["."] d [ "st" | "nd" | "rd" | "th" ] [ [","] yyyy ] ;
//	day-month  = d [ "st" | "nd" | "rd" | "th" ] [ "of" ] months ["."] [ [","] yyyy ] ;
//	month-year = months ["."] [","] yyyy ;
//	clock      = h ":" mm [ ":" ss ] [ ( "a" | "p" ) ["."] "m" ["."] ] ;
//	hour-ampm  = h ( "a" | "p" ) ["."] "m" ["."] ;
//	phone      = [ "+" cc ] ( "(" ddd ")" | ddd sep ) ddd sep dddd ;
//	amount     = ( "$" | "€" | "£" | "¥" ) number | number ( "usd" | "eur" | "gbp" | "dollar[s]"
//	           | "euro[s]" | "pound[s]" | "bucks" ) ;
//	number     = digits with "," thousands and a "." fraction ;
//	             (: a date or clock that is no real one (31/02/2011, 25:00) is no value,
//	                and its digits are no numbers :)
//	labelled   = label ":" phrase ;               (: the label holds a letter; "from: Boston" :)
//	phrase     = { cue_skip } word { word } ;     (: at most 6 tokens; ends before a clause-stop,
//	                                                 ":", a claimed span, a word followed by ":",
//	                                                 or prepositions or verbs after its first word :)
//	clause-stop = "." | "," | ";" | "!" | "?" | "(" | ")" | "[" | "]" | "{" | "}" | newline
//	           | phrase_stops ;
//	name       = capital { capital | name_joiners capital } ;   (: capitalized words, not "I";
//	                                                 a sentence's first word only after
//	                                                 prepositions; none when role_nouns follow
//	                                                 ("the Search button") or it is one role noun :)
//
//	cue        = { word - cue_skip } value [ unit ] [ after_cue { word - cue_skip } ] ;
//	             (: Value.Cue: up to 3 words before the value in its clause, nearest first,
//	                stopping at a clause-stop or another value; for a number or amount the
//	                word after it first ("10 seats") unless it is prepositions or
//	                phrase_stops; after an after_cue word, up to 3 words to a clause-stop,
//	                another value or prepositions :)
//	case       = "in" cases ;                     (: the longest phrase; Value.Case of the nearest
//	                                                 text, name, e-mail or URL value before it in its
//	                                                 sentence, else the nearest after it there, else
//	                                                 of every such value :)
//
// Binding values to fields (valueCandidates) reads the page's labels
// against the goal too:
//
//	label-value = head { label_fillers | ":" | "=" | head } word { word } ;
//	             (: head: a word of the field's name of 3 letters or more that is no
//	                stopwords, role_nouns or label_fillers; at most 5 words, ending before
//	                phrase_stops, prepositions, verbs, role_nouns, cue_skip or punctuation
//	                other than "-" and "'" :)
//	affinity    = cue word vs. the field's words: the same word, one stem, cue_synonyms,
//	              one inside the other; kind_cues for the value's kind ;
//
// A field's name there is its label, else the label beside it (its
// hint); a value that spells the name of a field of the page is no
// value. One field of a form is proposed at a time: the first a value
// surely belongs to, else the first any value may fit.
//
// The goal's order (order.go). Each step (Step.At), each box whose label
// the goal holds, each value surely bound and each control the goal names
// word for word stands where the goal says it; a phrase is proposed below
// every candidate of an earlier part of the goal still to do on the page,
// and a phrase's StepDiscount counts the phrases still to do before it,
// not its place. Named ticks are offered in page order, the first at the
// full prior and the others below it: commuting steps in one canonical
// order.
//
// The other tables of words.json serve the proposer's reading of pages:
// stopwords (tokens), lexicon and profiles (activate), login_words,
// dismiss_words, pager_words, widget_nouns, stepper_words, tracking_params and
// site_search; each says where.
package planner
