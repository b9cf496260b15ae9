package planner

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Goal is what a task's goal text asks for, read without a language
// model: the quoted strings, numbers and ordinals it holds, and the
// steps it names as a verb with its target ("click Submit", "enter
// "abc" into the name field", "check the 2nd box").
type Goal struct {
	// Words are every word of the text, folded (see Fold), stopwords
	// included and of any length: "Tab #3" holds "tab" and "3".
	Words []string
	// Quoted are the quoted strings, as written.
	Quoted []string
	// Numbers are the numbers, as written.
	Numbers []string
	// Steps are the verb phrases, in text order.
	Steps []Step
	// Stated are the typed values the text states anywhere, quoted or
	// not, with the words that name their field (see ExtractValues).
	Stated []Value
	// text is the goal text as given.
	text string
	// spots are the goal's words with where each stands, in text order:
	// what places a demand of the goal before or after a step.
	spots []spot
}

// spot is a word of the goal and its rune offset in the text.
type spot struct {
	word string
	at   int
}

// Step is one verb phrase of the goal.
type Step struct {
	// Verb is the canonical verb: one of the Verb constants.
	Verb string
	// Target is the folded words naming what to act on, without articles
	// and ordinals: "submit", "tab 3", "password field".
	Target []string
	// Value is a literal to type or choose, when the phrase names one
	// ("enter "abc" into ...", "type 42 in ...").
	Value string
	// Refers are the folded words naming a value the task holds rather
	// than a literal ("enter the password into both fields": password).
	Refers []string
	// Ordinal picks the Nth element that matches Target, 1-based; -1 is
	// the last one, 0 none. OrdinalWord is the word as written ("first"):
	// "the first name" may name a field "First name" rather than count.
	Ordinal     int
	OrdinalWord string
	// Role is the kind of element the target names (branch.ElemTextbox
	// for any kind that takes text, branch.ElemCheckbox, branch.ElemLink,
	// ...), "" when it names none.
	Role branch.ElementKind
	// Key is the keyboard key a press names ("press Enter", "hit the
	// Escape key"): Enter, Escape or Tab, "" for none.
	Key string
	// At is the rune offset in the goal text where the phrase starts:
	// the goal's order of its demands (see goalOrder).
	At int
}

// keyNames are the keys a goal may ask to press, by their folded names.
var keyNames = words.Keys.byWord()

// keyOf is the key a click phrase's target names ("enter", "escape key"),
// "" when it names none.
func keyOf(target []string) string {
	if len(target) == 2 && target[1] == "key" {
		target = target[:1]
	}
	if len(target) != 1 {
		return ""
	}
	return keyNames[target[0]]
}

// Verbs of a goal step.
const (
	VerbClick   = "click"
	VerbSelect  = "select"
	VerbType    = "type"
	VerbCheck   = "check"
	VerbUncheck = "uncheck"
	VerbExpand  = "expand"
	VerbOpen    = "open"
	VerbClose   = "close"
	VerbLogin   = "login"
	VerbFocus   = "focus"
	VerbSubmit  = "submit"
)

// verbWords maps folded words to their canonical verb.
var verbWords = words.Verbs.byWord()

// twoWordVerbs are verbs written as two words.
var twoWordVerbs = words.TwoWordVerbs.byPair()

// ordinalWords are ordinals written as words.
var ordinalWords = words.Ordinals.Words

// roleNouns name kinds of element; a target that holds one asks for an
// element of that kind.
var roleNouns = words.RoleNouns.kindsByWord()

// articles are dropped from targets; they never name an element.
var articles = words.Articles.set()

// intoWords separate the value of a type step from the field it goes to.
var intoWords = words.IntoWords.set()

// strongInto are into words that never say where a value is, only where
// it goes: the first of them splits a type step before any other.
var strongInto = words.StrongInto.set()

var folder = cases.Fold()

// Fold normalizes text for matching: Unicode NFKC, then case folding.
func Fold(s string) string { return folder.String(norm.NFKC.String(s)) }

// Words splits text into folded words: runs of letters, digits and marks
// of any script and any length.
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
}

// piece is a lexical unit of the goal: a word or a quoted string.
type piece struct {
	word   string // folded word ("" for a quoted string)
	quoted string // the quoted text, as written
	raw    string // the word as written
	stop   bool   // ends a phrase: punctuation or a conjunction
	list   bool   // a stop that goes on with a list: a comma or "and"
	path   bool   // a stop of a menu path ("File > Export"): what follows names an entry
	at     int    // rune offset in the text
}

// ParseGoal reads the goal text. It is pure and deterministic.
func ParseGoal(text string) Goal {
	g := Goal{Words: Words(text), Stated: ExtractValues(text), text: text}
	pieces := lex(text, g.Stated)
	for _, p := range pieces {
		switch {
		case p.quoted != "":
			g.Quoted = append(g.Quoted, p.quoted)
		case p.word != "" && isNumber(p.raw):
			g.Numbers = append(g.Numbers, p.raw)
		}
	}
	g.Steps = steps(pieces)
	for _, p := range pieces {
		if p.word != "" {
			g.spots = append(g.spots, spot{p.word, p.at})
		}
	}
	return g
}

// quotes pairs opening and closing quote marks.
var quotes = map[rune]rune{'"': '"', '\'': '\'', '“': '”', '‘': '’', '«': '»', '„': '“', '`': '`', '「': '」'}

// lex splits the text into words, quoted strings and phrase stops. A
// comma inside a stated date or time ("September 23, 2012") stops
// nothing.
func lex(text string, stated []Value) []piece {
	var out []piece
	rs := []rune(text)
	inDate := map[int]bool{} // rune index -> inside a stated date or time
	ri := 0
	for bi := range text {
		for _, v := range stated {
			if (v.Kind == ValueDate || v.Kind == ValueTime || v.Kind == ValueDateTime) && bi >= v.Start && bi < v.End {
				inDate[ri] = true
			}
		}
		ri++
	}
	for i := 0; i < len(rs); {
		r := rs[i]
		if closing, ok := quotes[r]; ok && (i == 0 || !isWordRune(rs[i-1])) {
			if j := indexRune(rs, i+1, closing); j > i+1 {
				out = append(out, piece{quoted: string(rs[i+1 : j]), at: i})
				i = j + 1
				continue
			}
		}
		switch {
		case isWordRune(r):
			j := i
			for j < len(rs) && (isWordRune(rs[j]) || (rs[j] == '\'' || rs[j] == '.' || rs[j] == ',') && j+1 < len(rs) && isWordRune(rs[j+1]) && isDigitOrApos(rs[j], rs[j+1]) ||
				dateSep(rs, j)) {
				j++
			}
			raw := string(rs[i:j])
			w := Fold(strings.ReplaceAll(raw, "'", ""))
			out = append(out, piece{word: w, raw: raw, stop: w == "and" || w == "then", list: w == "and" || w == "then", at: i})
			i = j
		case r == ',' && inDate[i]:
			i++
		case r == '.' || r == ',' || r == ';' || r == ':' || r == '!' || r == '?' || r == '(' || r == ')':
			out = append(out, piece{stop: true, list: r == ',', at: i})
			i++
		case r == '>' || r == '→' || r == '»' || r == '›' || r == '▸':
			// A menu path, "File > Export > PDF": each name is a step
			// of the verb before it, in order.
			out = append(out, piece{stop: true, list: true, path: true, at: i})
			i++
		default:
			i++
		}
	}
	return out
}

// isDigitOrApos lets a word run through an apostrophe before a letter
// ("button's") and through a decimal point or thousands comma before a
// digit ("1,000", "2.5").
func isDigitOrApos(sep, next rune) bool {
	if sep == '\'' {
		return unicode.IsLetter(next)
	}
	return unicode.IsDigit(next)
}

// dateSep reports whether rs[j] joins digits into one date or time
// ("04/05/2016", "2016-05-04", "10:30").
func dateSep(rs []rune, j int) bool {
	switch rs[j] {
	case '/', '-', ':':
		return j > 0 && j+1 < len(rs) && unicode.IsDigit(rs[j-1]) && unicode.IsDigit(rs[j+1])
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

func indexRune(rs []rune, from int, r rune) int {
	for i := from; i < len(rs); i++ {
		if rs[i] == r {
			return i
		}
	}
	return -1
}

func isNumber(s string) bool {
	s = strings.ReplaceAll(s, ",", "")
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// ordinal reads "2nd", "third", "last" as an index (1-based, -1 last).
func ordinal(w string) (int, bool) {
	if n, ok := ordinalWords[w]; ok {
		return n, true
	}
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if strings.HasSuffix(w, suf) {
			if n, err := strconv.Atoi(strings.TrimSuffix(w, suf)); err == nil && n > 0 {
				return n, true
			}
		}
	}
	return 0, false
}

// verbAt reports the verb starting at pieces[i] and how many pieces it
// spans.
func verbAt(pieces []piece, i int) (string, int) {
	if i+1 < len(pieces) {
		if v, ok := twoWordVerbs[[2]string{pieces[i].word, pieces[i+1].word}]; ok {
			return v, 2
		}
	}
	if v := verbOf(pieces[i].word); v != "" {
		return v, 1
	}
	return "", 0
}

// verbOf is the canonical verb of a word, inflected or not ("clicking",
// "selected", "types"), "" when it is none.
func verbOf(w string) string {
	if w == "" {
		return ""
	}
	if v, ok := verbWords[w]; ok {
		return v
	}
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if b, ok := strings.CutSuffix(w, suf); ok && len(b) > 2 {
			if v, ok := verbWords[b]; ok {
				return v
			}
			if v, ok := verbWords[b+"e"]; ok && suf != "es" {
				return v // typing, closed
			}
		}
	}
	return ""
}

// steps cuts the pieces into verb phrases: each runs from a verb to the
// next verb or phrase stop.
func steps(pieces []piece) []Step {
	var out []Step
	prev, listed := "", false
	setting := false // the list's verb is "set": each item is "X to V"
	for i := 0; i < len(pieces); {
		v, n := verbAt(pieces, i)
		if i > 0 && pieces[i-1].path {
			v, n = "", 0 // "Edit > Select > All": an entry named like a verb
		}
		if n == 0 && namesItsControl(pieces, i) {
			// "..., then save.": the word is the step and names its button.
			out = append(out, Step{Verb: VerbClick, Target: []string{pieces[i].word}, At: pieces[i].at})
			prev, listed = VerbClick, false
			i++
			if i < len(pieces) && pronouns[pieces[i].word] {
				i++
			}
			continue
		}
		if n == 0 {
			// A list goes on with the verb before it: "select A, B and C".
			if !listed || prev == "" || pieces[i].stop || pieces[i].word == "" && pieces[i].quoted == "" {
				listed = listed && pieces[i].stop && pieces[i].list
				i++
				continue
			}
			v = prev
		}
		j := i + n
		for j < len(pieces) && !pieces[j].stop {
			if _, m := verbAt(pieces, j); m > 0 && j > i+n && !roleWord(pieces[j].word) && !determiners[pieces[j-1].word] {
				// (after a determiner a verb word is a name: "the Reading Lamp")
				break
			}
			j++
		}
		means := j < len(pieces) && !pieces[j].stop && pieces[j-1].word == "by"
		st := phrase(v, pieces[i+n:j])
		if n == 1 {
			setting = pieces[i].word == "set"
		}
		if setting {
			// "set the date to X and the time to Y"
			st = setPhrase(pieces[i+n : j])
		}
		st.At = pieces[i].at
		if st.Verb == VerbType && pronouns[Fold(st.Value)] {
			// "find the year X was released and enter it in Year": the
			// value is what the sentence named before.
			st.Value, st.Refers = "", named(pieces[:i])
		}
		if (n > 0 || len(st.Target) > 0) && !means {
			// "close the dialog by clicking OK": the step after "by" is
			// how this one is done, and stands for it.
			if pronoun(st.Target) {
				st.Target, st.Role = lastTarget(out, pieces[:i])
			}
			out = append(out, st)
		}
		prev, listed = v, j < len(pieces) && pieces[j].list
		i = j
	}
	return out
}

// controlVerbs are verbs a control is named by: said alone as a step
// ("fill in the form, then save"), the verb is the click on the button
// that bears its name.
var controlVerbs = words.ControlVerbs.set()

// namesItsControl reports whether pieces[i] is a control verb said alone
// as a step: at the start or after a stop, and followed by a stop or the
// end.
func namesItsControl(pieces []piece, i int) bool {
	if !controlVerbs[pieces[i].word] || i > 0 && (!pieces[i-1].stop || pieces[i-1].path) {
		return false
	}
	if i+1 < len(pieces) && pronouns[pieces[i+1].word] {
		i++ // "edit it": the control of the thing named before
	}
	return i+1 == len(pieces) || pieces[i+1].stop
}

// pronouns stand for the thing named before them.
var pronouns = words.Pronouns.set()

// pronoun reports whether a target is only a pronoun ("click it").
func pronoun(target []string) bool { return len(target) == 1 && pronouns[target[0]] }

// lastTarget is what a pronoun stands for: the target of the step before,
// or else the quoted string or word the text named last before it ("find
// X in the list and click it").
func lastTarget(before []Step, pieces []piece) ([]string, branch.ElementKind) {
	if n := len(before); n > 0 && len(before[n-1].Target) > 0 {
		return before[n-1].Target, before[n-1].Role
	}
	for k := len(pieces) - 1; k >= 0; k-- {
		p := pieces[k]
		role := branch.ElementKind("")
		if k+1 < len(pieces) {
			role = roleNouns[pieces[k+1].word]
		}
		infinitive := k > 0 && pieces[k-1].word == "to" // "to appear"
		switch {
		case p.quoted != "":
			return Words(p.quoted), role
		case p.word != "" && !articles[p.word] && verbOf(p.word) == "" && roleNouns[p.word] == "" && !p.stop && !infinitive:
			return Words(p.raw), role
		}
	}
	return nil, ""
}

// named are the words the sentence ending at pieces names before a
// pronoun value: its words that are no stopword or article.
func named(pieces []piece) []string {
	var out []string
	for k := len(pieces) - 1; k >= 0; k-- {
		p := pieces[k]
		if p.stop && p.word == "" && !p.list && !p.path {
			break // the sentence before
		}
		switch {
		case p.quoted != "":
			out = append(Words(p.quoted), out...)
		case p.word != "" && !p.stop && !stopwords[p.word] && !articles[p.word]:
			out = append([]string{p.word}, out...)
		}
	}
	return out
}

// setPhrase reads "set <field> to <value>": the value after the last
// "to", the field before it.
func setPhrase(ps []piece) Step {
	for k := len(ps) - 1; k > 0; k-- {
		if ps[k].word == "to" && k+1 < len(ps) {
			st := phrase(VerbType, ps[:k])
			st.Value = valueOf(ps[k+1:])
			return st
		}
	}
	return phrase(VerbType, ps)
}

// roleWord reports whether a verb word is also used as a noun naming an
// element ("check the switch", "the input field").
func roleWord(w string) bool {
	_, ok := roleNouns[w]
	return ok
}

// phrase builds a step from the verb and the pieces after it.
func phrase(verb string, ps []piece) Step {
	s := Step{Verb: verb}
	field := ps
	if verb == VerbType {
		split := intoWords
		if len(ps) > 1 && slices.ContainsFunc(ps[1:], func(p piece) bool { return strongInto[p.word] }) {
			split = strongInto // "the value in the table for X into Y"
		}
		for k, p := range ps {
			if split[p.word] && k > 0 {
				before := ps[:k]
				if reference(before) {
					for _, q := range before {
						if !articles[q.word] && q.word != "" {
							s.Refers = append(s.Refers, q.word)
						}
					}
				} else {
					if j := slices.IndexFunc(before[1:], func(p piece) bool { return intoWords[p.word] }); j >= 0 {
						before = before[:j+1] // "type hello in lowercase into the box": the literal ends there
					}
					s.Value = valueOf(before)
				}
				field = ps[k+1:]
				if s.Value != "" && generic(field) {
					// "enter the password "x" into the text fields": the
					// words before the value name the field.
					if named := namer(before, s.Value); len(named) > 0 {
						field = named
					}
				}
				break
			}
		}
		if s.Value == "" {
			for _, p := range ps {
				if p.quoted != "" {
					s.Value = p.quoted
					break
				}
			}
		}
	}
	for k, p := range field {
		switch {
		case p.quoted != "":
			if verb != VerbType || s.Value != p.quoted {
				s.Target = append(s.Target, Words(p.quoted)...)
			}
			continue
		case articles[p.word] && !(capitalized(p.raw) && len(field) == 1) &&
			(k == 0 || twoWordVerbs[[2]string{field[k-1].word, p.word}] == "" && !capitalized(p.raw)):
			continue // but "Log in" names a button, "the To field" a field, "Edit > All" an entry
		}
		if n, ok := ordinal(p.word); ok {
			s.Ordinal, s.OrdinalWord = n, p.word
			continue
		}
		if capitalized(p.raw) && len(field) == 1 {
			// "Open File > Export": a capitalized word alone names an
			// entry, not a kind of element.
		} else if r, ok := roleNouns[p.word]; ok && r != "" && s.Role == "" {
			s.Role = r
		} else if r, ok := roleNouns[strings.TrimSuffix(p.word, "s")]; ok && r != "" && s.Role == "" {
			s.Role = r
		}
		s.Target = append(s.Target, Words(p.raw)...)
	}
	if (verb == VerbCheck || verb == VerbUncheck) && s.Role == branch.ElemTextbox {
		s.Role = branch.ElemCheckbox // "tick the first box"
	}
	if verb == VerbClick {
		if s.Key = keyOf(s.Target); s.Key != "" && s.Role == branch.ElemTab {
			s.Role = "" // "press Tab" names the key, not a tab
		}
	}
	return s
}

// generic reports whether field words name only a kind of element ("the
// text fields"); "both fields", "all boxes" say the value goes into each.
func generic(field []piece) bool {
	for _, p := range field {
		if quantifiers[p.word] || p.quoted != "" || p.word != "" && !articles[p.word] && !roleNounSet[p.word] {
			return false
		}
	}
	return true
}

// quantifiers say a value goes into every field named.
var quantifiers = words.Quantifiers.set()

// namer returns the words before a value that name its field ("the
// password "x"": password), without articles, determiners and the value.
func namer(ps []piece, value string) []piece {
	vals := map[string]bool{}
	for _, w := range strings.Fields(value) {
		vals[w] = true
	}
	var out []piece
	for _, p := range ps {
		if p.quoted == "" && p.word != "" && !articles[p.word] && !determiners[p.word] && !vals[p.raw] {
			out = append(out, p)
		}
	}
	return out
}

// determiners introduce a reference to a value, not a literal: "the
// password", "your email".
var determiners = words.Determiners.set()

// reference reports whether the words before "into" name a value instead
// of spelling it.
func reference(ps []piece) bool {
	if len(ps) == 0 || ps[0].quoted != "" || !determiners[ps[0].word] {
		return false
	}
	for _, p := range ps {
		if p.quoted != "" {
			return false // "the password "x"" spells it
		}
	}
	return true
}

// capitalized reports whether a word is written with a capital first
// letter: past a phrase's first word, a capitalized "To" or "From" is a
// name ("the To field"), not a preposition.
func capitalized(raw string) bool {
	for _, r := range raw {
		return unicode.IsUpper(r)
	}
	return false
}

// valueOf is the literal a type step names before "into": the quoted
// string, or the words as written up to "as" ("enter 04/05/2016 as the
// date").
func valueOf(ps []piece) string {
	var raw []string
	for _, p := range ps {
		if p.quoted != "" {
			return p.quoted
		}
		if p.word == "as" && len(raw) > 0 {
			break
		}
		if !articles[p.word] {
			raw = append(raw, p.raw)
		}
	}
	return strings.Join(raw, " ")
}

// Values are the literals the goal offers for fields: the values of its
// type steps, then its quoted strings and numbers, each once.
func (g Goal) Values() []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, s := range g.Steps {
		add(s.Value)
	}
	for _, q := range g.Quoted {
		add(q)
	}
	for _, n := range g.Numbers {
		add(n)
	}
	return out
}

// Match scores how well target words name an element whose text is
// given, in [0, 1]: 1 when the text is exactly the target's words; else
// the share of target words the text holds, an exact word counting fully
// and a partial one (one word inside the other) half, weighed by the
// share of the text they cover, and scaled below 1 so an exact name
// always outranks a partial one.
func Match(target []string, text string) float64 {
	if len(target) == 0 {
		return 0
	}
	ws := Words(text)
	if len(ws) == 0 {
		return 0
	}
	if slicesEqual(ws, target) {
		return 1
	}
	have := make(map[string]bool, 2*len(ws))
	for _, w := range ws {
		have[w], have[stem(w)] = true, true
	}
	sum := 0.0
	for _, t := range target {
		switch {
		case have[t] || have[stem(t)]: // "recently changed" meets "Recent changes"
			sum++
		case partial(t, ws):
			sum += partialWord
		}
	}
	// Recall of the target's words, weighed by how much of the element's
	// name they are: "Close" names the button "Close" better than the
	// button "Close dialog".
	recall, precision := sum/float64(len(target)), min(1, sum/float64(len(ws)))
	return matchScale * recall * (1 - precisionWeight + precisionWeight*precision)
}

// partial reports whether a word and one of ws contain one another; a
// one-letter word matches only exactly.
func partial(t string, ws []string) bool {
	if len([]rune(t)) < 2 {
		return false
	}
	for _, w := range ws {
		if len([]rune(w)) >= 2 && (strings.Contains(w, t) || strings.Contains(t, w)) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
