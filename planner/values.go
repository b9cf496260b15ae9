package planner

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Values from anywhere in the goal. The goal reader's steps take the
// values a verb phrase spells ("enter "abc" into the name field"); many
// goals state their values without quotes or verbs instead: "book a
// flight from: Boston to: Denver on 10/11/2011", "find movies directed
// by Steven Spielberg", "set the time to 8:04 PM". ExtractValues finds
// them with the words that name their field (their cue); the proposer
// (valueCandidates) binds them to the page's empty fields by label
// affinity and type, converted to each control's own format, and
// branches where the binding is uncertain.

// ValueKind is the type of a value the goal states.
type ValueKind string

// Kinds of value.
const (
	ValueText   ValueKind = "text"   // a quoted string or a phrase after a label
	ValueName   ValueKind = "name"   // a run of capitalized words ("Steven Spielberg")
	ValueNumber ValueKind = "number" // 1995, 2.5, 1,000
	ValueAmount ValueKind = "amount" // $12.50, 12 EUR
	ValueDate   ValueKind = "date"   // 10/11/2011, October 11, 2011, Oct 11
	ValueTime   ValueKind = "time"   // 8:04 PM, 20:04, noon
	ValueEmail  ValueKind = "email"  // jane@example.org
	ValuePhone  ValueKind = "phone"  // (555) 123-4567
	ValueURL    ValueKind = "url"    // https://example.org/x
	// ValueDateTime is a date and a time the goal states apart ("on
	// 10/11/2011 at 8:04 PM"), joined for a datetime-local input.
	ValueDateTime ValueKind = "datetime"
)

// ValueSource says how a value was found.
type ValueSource string

// Sources of a value.
const (
	SourceQuoted  ValueSource = "quoted"  // between quote marks
	SourcePattern ValueSource = "pattern" // its shape: a date, a time, an e-mail address
	SourceLabel   ValueSource = "label"   // after "label:" in the goal, or after a field's label on the page
	SourceName    ValueSource = "name"    // capitalized words
)

// Letter cases a goal may ask a value to be written in.
const (
	CaseLower = "lower"
	CaseUpper = "upper"
	CaseTitle = "title"
)

// Value is one value the goal states, typed, with where it came from.
type Value struct {
	Kind   ValueKind
	Source ValueSource
	// Text is the value as written: goal[Start:End] (the inside of the
	// quotes for a quoted one).
	Text       string
	Start, End int
	// Norm is the canonical form: a date as 2011-10-11 (2011-10 for a
	// month, --10-11 without a year), a time as 20:04 (20:04:05), a
	// number or amount without grouping (1995, 12.50), an e-mail address
	// in lower case; the text otherwise.
	Norm string
	// Reading numbers the readings of an ambiguous value (10/11/2011 is
	// October 11 or November 10): 0 for the only or first one.
	Reading int
	// Cue holds the folded words of the goal that name the value's field,
	// nearest first: the words before it in its clause ("directed", "by"
	// for "directed by X"; "from" for "from: X") and those after an "as"
	// or "into" that follows it ("X as the title").
	Cue []string
	// Case is the letter case the goal asks the value to be written in
	// ("in lowercase"): one of the Case constants, "" as written.
	Case string
}

// Word tables of the value reader, loaded from words.json: each table
// there names the construction it serves; the code below only reads them.
var (
	// nameJoiners join capitalized words into one name: "Rio de
	// Janeiro", "Bank of America".
	nameJoiners = words.NameJoiners.set()
	// prepositions end a phrase value ("from: Boston on Monday") and let
	// a capitalized word at a sentence start be a name ("To Denver").
	prepositions = words.Prepositions.set()
	// phraseStops end a phrase value besides prepositions and verbs.
	phraseStops = words.PhraseStops.set()
	// labelFillers are skipped between a field's label and its value
	// ("the title is X", "year: 1995", "city name X").
	labelFillers = words.LabelFillers.set()
	// cueSkip are words that never name a field: articles and the like.
	cueSkip = words.CueSkip.set()
	// afterCue are the words after a value that introduce the name of its
	// field: "enter 04/05/2016 as the date", "type Jo into the name box".
	afterCue = words.AfterCue.set()
	// cueSynonyms map a goal's cue word to label words that mean the same
	// field: "from Boston" fills "Departure city", "by X" an "Author".
	cueSynonyms = words.CueSynonyms.Words
	// kindCues are label words that ask for a kind of value: a date
	// fits a field named "Date" though the goal names no field.
	kindCues = kindLists(words.KindCues)
	// caseWords are the phrases that ask for a letter case, as folded
	// word sequences after "in" ("in lowercase", "in all caps").
	caseWords = casePhrases(words.Cases)
	// monthNames are the months by their folded names and abbreviations.
	monthNames = words.Months.Words
	// timeWords are times written as words.
	timeWords = words.TimeWords.Words
)

// Shapes of typed values, tried in this order; a span found by one is
// not read again by a later one.
var monthRE = wordAlternation(monthNames)

var (
	reURL      = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>"'“”]+`)
	reEmail    = regexp.MustCompile(`(?i)\b[a-z0-9][a-z0-9._%+\-]*@[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?)*\.[a-z]{2,}\b`)
	reISODate  = regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b`) // 2011-10-11, 2011/10/11
	reNumDate  = regexp.MustCompile(`\b(\d{1,2})([/.\-])(\d{1,2})([/.\-])(\d{4}|\d{2})\b`)
	reMonthDay = regexp.MustCompile(`(?i)\b(` + monthRE + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`)
	reDayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthRE + `)\b\.?(?:,?\s+(\d{4})\b)?`)
	reMonthYr  = regexp.MustCompile(`(?i)\b(` + monthRE + `)\.?,?\s+(\d{4})\b`)
	reClock    = regexp.MustCompile(`(?i)\b(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([ap])\.?m\b\.?)?`)
	reHourAMPM = regexp.MustCompile(`(?i)\b(\d{1,2})\s*([ap])\.?m\b\.?`)
	reTimeWord = regexp.MustCompile(`(?i)\b(` + wordAlternation(timeWords) + `)\b`)
	rePhone    = regexp.MustCompile(`(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.\-])\d{3}[\s.\-]\d{4}\b`)
	reAmountL  = regexp.MustCompile(`([$€£¥])\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)`)
	reAmountR  = regexp.MustCompile(`(?i)\b(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b`)
	reNumber   = regexp.MustCompile(`\b(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\b`)
)

// valueLimit caps how many values one goal yields: a goal is a sentence
// or a few, not a document.
const valueLimit = 64

// span is a claimed byte range of the goal.
type span struct{ start, end int }

// ExtractValues reads the values a goal text states: quoted strings,
// URLs, e-mail addresses, dates (an ambiguous one in each reading),
// times, phone numbers, amounts, numbers, phrases after "label:" and runs
// of capitalized words, in text order, with the words that name their
// field and the letter case the goal asks for. It is pure and
// deterministic; every Text is goal[Start:End].
func ExtractValues(goal string) []Value {
	x := extractor{text: goal}
	x.quoted()
	x.patterns()
	toks := wordTokens(goal)
	x.labelled(toks)
	x.names(toks)
	sort.SliceStable(x.out, func(i, j int) bool {
		if x.out[i].Start != x.out[j].Start {
			return x.out[i].Start < x.out[j].Start
		}
		return x.out[i].Reading < x.out[j].Reading
	})
	if len(x.out) > valueLimit {
		x.out = x.out[:valueLimit]
	}
	for i := range x.out {
		x.out[i].Cue = cueOf(goal, toks, x.out[i], x.claimed)
	}
	applyCases(goal, toks, x.out)
	return x.out
}

type extractor struct {
	text    string
	claimed []span
	out     []Value
}

func (x *extractor) free(s, e int) bool {
	for _, c := range x.claimed {
		if s < c.end && c.start < e {
			return false
		}
	}
	return true
}

func (x *extractor) claim(s, e int) { x.claimed = append(x.claimed, span{s, e}) }

func (x *extractor) emit(v Value) {
	if len(x.out) < 4*valueLimit {
		x.out = append(x.out, v)
	}
}

// quoted takes the strings between quote marks, typed by their content.
func (x *extractor) quoted() {
	t := x.text
	for i := 0; i < len(t); {
		r, n := utf8.DecodeRuneInString(t[i:])
		closing, ok := quotes[r]
		if !ok || i > 0 && isWordRune(lastRune(t[:i])) {
			i += n
			continue
		}
		j := strings.IndexRune(t[i+n:], closing)
		if j <= 0 {
			i += n
			continue
		}
		s, e := i+n, i+n+j
		x.claim(i, e+utf8.RuneLen(closing))
		inner := t[s:e]
		typed := false
		for _, v := range typedValues(inner) {
			if v.Start == 0 && v.End == len(inner) {
				v.Start, v.End, v.Source = s, e, SourceQuoted
				x.emit(v)
				typed = true
			}
		}
		if !typed {
			x.emit(Value{Kind: ValueText, Source: SourceQuoted, Text: inner, Start: s, End: e, Norm: inner})
		}
		i = e + utf8.RuneLen(closing)
	}
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// patterns takes the typed values outside quotes.
func (x *extractor) patterns() {
	vals, spans := typedSpans(x.text)
	for _, v := range vals {
		if x.free(v.Start, v.End) {
			x.emit(v)
		}
	}
	for _, sp := range spans {
		x.claim(sp.start, sp.end)
	}
}

// typedValues finds the typed values of a text by their shapes, each
// span once (the first shape that takes it), ambiguous dates in every
// reading.
func typedValues(t string) []Value {
	vs, _ := typedSpans(t)
	return vs
}

// typedSpans is typedValues with the spans its shapes took, a date or
// clock that is no real one among them.
func typedSpans(t string) ([]Value, []span) {
	var out []Value
	var taken []span
	free := func(s, e int) bool {
		for _, c := range taken {
			if s < c.end && c.start < e {
				return false
			}
		}
		return true
	}
	for _, r := range spanReaders {
		for _, m := range r.re.FindAllStringSubmatchIndex(t, -1) {
			s, e := m[0], m[1]
			if !free(s, e) {
				continue
			}
			vs := r.read(t, m)
			if len(vs) == 0 {
				if r.shaped {
					taken = append(taken, span{s, e})
				}
				continue
			}
			e = m[1] // read may trim the end
			taken = append(taken, span{s, e})
			for k := range vs {
				vs[k].Start, vs[k].End, vs[k].Text, vs[k].Source, vs[k].Reading = s, e, t[s:e], SourcePattern, k
			}
			out = append(out, vs...)
		}
	}
	return out, taken
}

// spanReader reads the values of one pattern's matches in a text: m is
// the match's submatch indexes (read may trim the end, m[1]); no value
// means the match is no value. A shaped pattern's match that is no value
// (a date or a clock that is no real one: 31/02/2011, 25:00) still takes
// its span: its digits are no numbers either.
type spanReader struct {
	re     *regexp.Regexp
	shaped bool
	read   func(t string, m []int) []Value
}

// group is the text of submatch k of m, or "".
func group(t string, m []int, k int) string {
	if m[2*k] < 0 {
		return ""
	}
	return t[m[2*k]:m[2*k+1]]
}

// spanReaders are the patterns typedSpans reads, in order: an earlier
// pattern's span is taken before a later one looks.
var spanReaders = []spanReader{
	{re: reURL, read: func(t string, m []int) []Value {
		e := strings.TrimRight(t[m[0]:m[1]], ".,;:!?)]}")
		m[1] = m[0] + len(e)
		return []Value{{Kind: ValueURL, Norm: e}}
	}},
	{re: reEmail, read: func(t string, m []int) []Value {
		return []Value{{Kind: ValueEmail, Norm: strings.ToLower(t[m[0]:m[1]])}}
	}},
	{re: reISODate, shaped: true, read: func(t string, m []int) []Value {
		if d, ok := dateNorm(atoi(group(t, m, 1)), atoi(group(t, m, 2)), atoi(group(t, m, 3))); ok {
			return []Value{{Kind: ValueDate, Norm: d}}
		}
		return nil
	}},
	{re: reNumDate, shaped: true, read: readNumDate},
	{re: reMonthDay, read: func(t string, m []int) []Value {
		return textDate(group(t, m, 3), monthNames[strings.ToLower(group(t, m, 1))], atoi(group(t, m, 2)))
	}},
	{re: reDayMonth, read: func(t string, m []int) []Value {
		return textDate(group(t, m, 3), monthNames[strings.ToLower(group(t, m, 2))], atoi(group(t, m, 1)))
	}},
	{re: reMonthYr, read: func(t string, m []int) []Value {
		mo, y := monthNames[strings.ToLower(group(t, m, 1))], atoi(group(t, m, 2))
		if mo == 0 || y == 0 {
			return nil
		}
		return []Value{{Kind: ValueDate, Norm: fmt.Sprintf("%04d-%02d", y, mo)}}
	}},
	{re: reClock, shaped: true, read: func(t string, m []int) []Value {
		h, mi, sec := atoi(group(t, m, 1)), atoi(group(t, m, 2)), group(t, m, 3)
		if n, ok := clockNorm(h, mi, atoiOr(sec, -1), strings.ToLower(group(t, m, 4))); ok {
			return []Value{{Kind: ValueTime, Norm: n}}
		}
		return nil
	}},
	{re: reHourAMPM, read: func(t string, m []int) []Value {
		if n, ok := clockNorm(atoi(group(t, m, 1)), 0, -1, strings.ToLower(group(t, m, 2))); ok {
			return []Value{{Kind: ValueTime, Norm: n}}
		}
		return nil
	}},
	{re: reTimeWord, read: func(t string, m []int) []Value {
		return []Value{{Kind: ValueTime, Norm: timeWords[strings.ToLower(group(t, m, 1))]}}
	}},
	{re: rePhone, read: func(t string, m []int) []Value { return []Value{{Kind: ValuePhone, Norm: t[m[0]:m[1]]}} }},
	{re: reAmountL, read: func(t string, m []int) []Value {
		return []Value{{Kind: ValueAmount, Norm: plainNumber(group(t, m, 2))}}
	}},
	{re: reAmountR, read: func(t string, m []int) []Value {
		return []Value{{Kind: ValueAmount, Norm: plainNumber(group(t, m, 1))}}
	}},
	{re: reNumber, read: func(t string, m []int) []Value {
		return []Value{{Kind: ValueNumber, Norm: plainNumber(group(t, m, 1))}}
	}},
}

// readNumDate reads a numeric date (11/10/2011, 11.10.11) both ways it
// may be meant: month first, then day first (day first first when the
// separator is a dot).
func readNumDate(t string, m []int) []Value {
	if group(t, m, 2) != group(t, m, 4) {
		return nil
	}
	a, b, y := atoi(group(t, m, 1)), atoi(group(t, m, 3)), year(group(t, m, 5))
	first, second := [2]int{a, b}, [2]int{b, a} // month/day, then day/month
	if group(t, m, 2) == "." {
		first, second = second, first // 11.10.2011 is day first
	}
	var vs []Value
	for _, md := range [][2]int{first, second} {
		if d, ok := dateNorm(y, md[0], md[1]); ok && (len(vs) == 0 || vs[0].Norm != d) {
			vs = append(vs, Value{Kind: ValueDate, Norm: d})
		}
	}
	return vs
}

// textDate is a date with a month name: a full date with a year, or a
// day of a month (--MM-DD) without one.
func textDate(yr string, mo, day int) []Value {
	if mo == 0 {
		return nil
	}
	if yr == "" {
		if day < 1 || day > daysIn(mo, 2000) {
			return nil
		}
		return []Value{{Kind: ValueDate, Norm: fmt.Sprintf("--%02d-%02d", mo, day)}}
	}
	if d, ok := dateNorm(atoi(yr), mo, day); ok {
		return []Value{{Kind: ValueDate, Norm: d}}
	}
	return nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func atoiOr(s string, or int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return or
}

// year reads a two- or four-digit year: 11 is 2011, 95 is 1995.
func year(s string) int {
	y := atoi(s)
	if len(s) == 2 {
		if y < 50 {
			return 2000 + y
		}
		return 1900 + y
	}
	return y
}

func daysIn(month, year int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// dateNorm is a calendar date as YYYY-MM-DD, when it is one.
func dateNorm(y, mo, d int) (string, bool) {
	if y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) {
		return "", false
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, mo, d), true
}

// clockNorm is a time of day as HH:MM (HH:MM:SS with seconds, sec >= 0),
// from a 12-hour clock when ampm is "a" or "p".
func clockNorm(h, mi, sec int, ampm string) (string, bool) {
	switch ampm {
	case "a", "p":
		if h < 1 || h > 12 {
			return "", false
		}
		h %= 12
		if ampm == "p" {
			h += 12
		}
	default:
		if h > 23 {
			return "", false
		}
	}
	if mi > 59 || sec > 59 {
		return "", false
	}
	if sec >= 0 {
		return fmt.Sprintf("%02d:%02d:%02d", h, mi, sec), true
	}
	return fmt.Sprintf("%02d:%02d", h, mi), true
}

// plainNumber drops thousands separators.
func plainNumber(s string) string { return strings.ReplaceAll(s, ",", "") }

// gtoken is a word of the goal with its byte range, or a punctuation mark.
type gtoken struct {
	raw        string
	word       string // folded; "" for punctuation
	start, end int
	// sentence: the first word of a sentence.
	sentence bool
}

// wordTokens splits the goal into words (letters, digits, marks, with
// inner apostrophes and hyphens) and punctuation marks, with byte ranges.
func wordTokens(t string) []gtoken {
	var out []gtoken
	start := true
	for i := 0; i < len(t); {
		r, n := utf8.DecodeRuneInString(t[i:])
		switch {
		case isWordRune(r):
			j := i + n
			for j < len(t) {
				q, m := utf8.DecodeRuneInString(t[j:])
				if isWordRune(q) {
					j += m
					continue
				}
				if (q == '\'' || q == '-' || q == '’') && j+m < len(t) {
					if nx, _ := utf8.DecodeRuneInString(t[j+m:]); isWordRune(nx) {
						j += m
						continue
					}
				}
				break
			}
			out = append(out, gtoken{raw: t[i:j], word: Fold(t[i:j]), start: i, end: j, sentence: start})
			start = false
			i = j
		case unicode.IsSpace(r):
			i += n
		default:
			out = append(out, gtoken{raw: t[i : i+n], start: i, end: i + n})
			if r == '.' || r == '!' || r == '?' || r == '\n' || r == ';' {
				start = true
			}
			i += n
		}
	}
	return out
}

// clauseStop reports whether a punctuation gtoken ends a clause (a colon
// does not: it joins a label to its value).
func clauseStop(t gtoken) bool {
	return t.word == "" && strings.Contains(".,;!?()[]{}\n", t.raw) || phraseStops[t.word]
}

// labelled takes the phrase after "label:" when no typed value starts
// there: "from: boston to: denver".
func (x *extractor) labelled(toks []gtoken) {
	for k, tk := range toks {
		if tk.raw != ":" || k == 0 || !strings.ContainsFunc(toks[k-1].word, unicode.IsLetter) {
			continue
		}
		s, e := -1, -1
		for j := k + 1; j < len(toks); j++ {
			t := toks[j]
			if clauseStop(t) || t.raw == ":" || !x.free(t.start, t.end) || t.word != "" && (prepositions[t.word] || verbOf(t.word) != "") && s >= 0 ||
				j+1 < len(toks) && toks[j+1].raw == ":" || j-k > 6 {
				break
			}
			if t.word == "" || cueSkip[t.word] && s < 0 {
				continue
			}
			if s < 0 {
				s = t.start
			}
			e = t.end
		}
		if s >= 0 && x.free(s, e) && !labelThenName(x.text[s:e]) {
			x.emit(Value{Kind: ValueText, Source: SourceLabel, Text: x.text[s:e], Start: s, End: e, Norm: x.text[s:e]})
			x.claim(s, e)
		}
	}
}

// labelThenName reports whether a phrase is a lower-case word and a
// capitalized name ("name Fatima Khan" after "Press:"): a label of its
// own and its value, which the name reader takes with the word as its
// cue, not one value of the label before the colon.
func labelThenName(phrase string) bool {
	ws := strings.Fields(phrase)
	if len(ws) < 2 {
		return false
	}
	first, _ := utf8.DecodeRuneInString(ws[0])
	second, _ := utf8.DecodeRuneInString(ws[1])
	return unicode.IsLower(first) && unicode.IsUpper(second)
}

// names takes runs of capitalized words: not the first word of a
// sentence unless a preposition comes before it, joined by lower-case
// particles ("Rio de Janeiro"), not followed by a word that names a kind
// of element ("the Search button": a target, not a value).
func (x *extractor) names(toks []gtoken) {
	capital := func(t gtoken) bool {
		r, _ := utf8.DecodeRuneInString(t.raw)
		return t.word != "" && unicode.IsUpper(r) && t.raw != "I" && x.free(t.start, t.end)
	}
	for k := 0; k < len(toks); k++ {
		if !capital(toks[k]) {
			continue
		}
		j := k
		for j+1 < len(toks) {
			switch {
			case capital(toks[j+1]):
				j++
				continue
			case j+2 < len(toks) && nameJoiners[toks[j+1].word] && !capital(toks[j+1]) && capital(toks[j+2]):
				j += 2
				continue
			}
			break
		}
		first := k
		if toks[k].sentence && (k == 0 || !prepositions[toks[k-1].word]) {
			first = k + 1 // "Find movies ...", "Enter Jane Doe"
		}
		if first <= j && j+1 < len(toks) && roleNounSet[toks[j+1].word] {
			first = j + 1
		}
		if first == j && roleNounSet[toks[j].word] {
			first = j + 1 // "Tab #3": a kind of element, no name
		}
		if first <= j {
			s, e := toks[first].start, toks[j].end
			x.emit(Value{Kind: ValueName, Source: SourceName, Text: x.text[s:e], Start: s, End: e, Norm: x.text[s:e]})
			x.claim(s, e)
		}
		k = j
	}
}

// cueMax is how many words before a value (and after its "as") name its
// field.
const cueMax = 3

// cueOf is the words that name a value's field: up to cueMax words before
// it in its clause, nearest first, stopping at another value, then those
// after an "as" or "into" right after it.
func cueOf(goal string, toks []gtoken, v Value, claimed []span) []string {
	var cue []string
	inOther := func(t gtoken) bool {
		for _, c := range claimed {
			if t.start < c.end && c.start < t.end && !(c.start >= v.Start && c.end <= v.End) && !(v.Start >= c.start && v.End <= c.end) {
				return true
			}
		}
		return false
	}
	first := len(toks)
	for k, t := range toks {
		if t.start >= v.Start {
			first = k
			break
		}
	}
	for k := first - 1; k >= 0 && len(cue) < cueMax; k-- {
		t := toks[k]
		if t.end > v.Start {
			continue // the opening quote mark
		}
		if clauseStop(t) && !quoteMark(t.raw) || inOther(t) {
			break
		}
		if t.word != "" && !cueSkip[t.word] {
			cue = append(cue, t.word)
		}
	}
	k := first
	for k < len(toks) && toks[k].start < v.End {
		k++
	}
	if (v.Kind == ValueNumber || v.Kind == ValueAmount) && k < len(toks) && toks[k].word != "" && !prepositions[toks[k].word] &&
		!phraseStops[toks[k].word] && !inOther(toks[k]) {
		// "10 seats", "3 adults": the unit names the field first.
		cue = append([]string{toks[k].word}, cue...)
	}
	if k < len(toks) && quoteMark(toks[k].raw) {
		k++
	}
	if k < len(toks) && afterCue[toks[k].word] {
		n := 0
		for k++; k < len(toks) && n < cueMax; k++ {
			t := toks[k]
			if clauseStop(t) || inOther(t) || prepositions[t.word] {
				break
			}
			if t.word != "" && !cueSkip[t.word] {
				cue = append(cue, t.word)
				n++
			}
		}
	}
	return cue
}

func quoteMark(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if _, ok := quotes[r]; ok {
		return true
	}
	for _, c := range quotes {
		if c == r {
			return true
		}
	}
	return false
}

// applyCases gives each "in lowercase" (caseWords) to the value it
// refers to: the nearest before it in its sentence, else the nearest
// after it there, else every text value of the goal.
func applyCases(goal string, toks []gtoken, vals []Value) {
	for k := 0; k < len(toks); k++ {
		if toks[k].word != "in" {
			continue
		}
		kase, n := caseAt(toks, k+1)
		if n == 0 {
			continue
		}
		at := toks[k].start
		sent := sentenceOf(toks, k)
		best := -1
		for i, v := range vals {
			if v.End <= at && sentenceAt(toks, v.Start) == sent && textual(v.Kind) {
				best = i // the last one before wins
			}
		}
		if best < 0 {
			for i, v := range vals {
				if v.Start > at && sentenceAt(toks, v.Start) == sent && textual(v.Kind) {
					best = i
					break
				}
			}
		}
		if best >= 0 {
			for i := range vals {
				if vals[i].Start == vals[best].Start {
					vals[i].Case = kase
				}
			}
		} else {
			for i := range vals {
				if textual(vals[i].Kind) && vals[i].Case == "" {
					vals[i].Case = kase
				}
			}
		}
		k += n
	}
}

// textual kinds have letters whose case can be asked for.
func textual(k ValueKind) bool {
	return k == ValueText || k == ValueName || k == ValueEmail || k == ValueURL
}

// caseAt reads a case phrase starting at toks[k]: its case and length.
func caseAt(toks []gtoken, k int) (string, int) {
	best, n := "", 0
	for _, c := range caseWords {
		if k+len(c.words) > len(toks) || len(c.words) <= n {
			continue
		}
		ok := true
		for i, w := range c.words {
			if strings.ReplaceAll(toks[k+i].word, "-", "") != w && toks[k+i].word != w {
				ok = false
				break
			}
		}
		if ok {
			best, n = c.kase, len(c.words)
		}
	}
	if n == 0 && k < len(toks) {
		// "in lower-case" is one gtoken.
		switch strings.ReplaceAll(toks[k].word, "-", "") {
		case "lowercase":
			return CaseLower, 1
		case "uppercase":
			return CaseUpper, 1
		}
	}
	return best, n
}

// sentenceOf is the index of the sentence gtoken k is in.
func sentenceOf(toks []gtoken, k int) int {
	n := 0
	for i := 0; i <= k && i < len(toks); i++ {
		if toks[i].sentence && i > 0 {
			n++
		}
	}
	return n
}

// sentenceAt is the index of the sentence holding byte offset at.
func sentenceAt(toks []gtoken, at int) int {
	for k, t := range toks {
		if t.end > at {
			return sentenceOf(toks, k)
		}
	}
	return sentenceOf(toks, len(toks)-1)
}

// withCase writes s in the letter case c.
func withCase(s, c string) string {
	switch c {
	case CaseLower:
		return strings.ToLower(s)
	case CaseUpper:
		return strings.ToUpper(s)
	case CaseTitle:
		ws := strings.Fields(strings.ToLower(s))
		for i, w := range ws {
			r, n := utf8.DecodeRuneInString(w)
			ws[i] = string(unicode.ToTitle(r)) + w[n:]
		}
		return strings.Join(ws, " ")
	}
	return s
}

// Written reports how a value is written into a control of the
// affordance's kind and input type: a date input takes 2011-10-11, a time
// input 20:04, a month input 2011-10, a week input 2011-W41, a number or
// range input a plain number, an email input only an e-mail address, a
// text field the value as written; a select takes the value of the option
// it names (by text or value, case and spaces aside, a date or number in
// any format). ok is false when the value cannot be written there: it
// does not bind to that control.
func Written(a branch.Affordance, v Value) (string, bool) {
	if a.Kind == branch.ElemSelect {
		return optionFor(a, v)
	}
	switch inputType(a) {
	case "date":
		if v.Kind == ValueDate && len(v.Norm) == 10 && v.Norm[0] != '-' {
			return v.Norm, true
		}
	case "month":
		if v.Kind == ValueDate && len(v.Norm) >= 7 && v.Norm[0] != '-' {
			return v.Norm[:7], true
		}
	case "week":
		if y, m, d, ok := ymd(v); ok && v.Kind == ValueDate {
			wy, wk := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).ISOWeek()
			return fmt.Sprintf("%04d-W%02d", wy, wk), true
		}
	case "time":
		if v.Kind == ValueTime {
			return v.Norm, true
		}
	case "datetime-local":
		if v.Kind == ValueDateTime {
			return v.Norm, true
		}
	case "number", "range":
		if v.Kind == ValueNumber || v.Kind == ValueAmount {
			return v.Norm, true
		}
	case "email":
		if v.Kind == ValueEmail {
			return withCase(v.Text, v.Case), true
		}
	case "tel":
		if v.Kind == ValuePhone || v.Kind == ValueNumber && len(v.Norm) >= 5 && !strings.Contains(v.Norm, ".") {
			return v.Text, true
		}
	case "url":
		if v.Kind == ValueURL {
			return v.Text, true
		}
	case "color", "file", "hidden", "checkbox", "radio", "submit", "button", "reset", "image", "password":
		return "", false
	default:
		if a.Kind.TakesText() && v.Kind != ValueDateTime {
			return withCase(v.Text, v.Case), true
		}
	}
	return "", false
}

// inputType is the affordance's input type, from its kind when the page
// gave none.
func inputType(a branch.Affordance) string {
	if t := strings.ToLower(a.InputType); t != "" {
		return t
	}
	switch a.Kind {
	case branch.ElemNumber, branch.ElemEmail:
		return string(a.Kind) // the input type these kinds come from
	}
	return "text"
}

// ymd is a full date value's year, month and day.
func ymd(v Value) (int, int, int, bool) {
	if v.Kind != ValueDate || len(v.Norm) != 10 || v.Norm[0] == '-' {
		return 0, 0, 0, false
	}
	return atoi(v.Norm[:4]), atoi(v.Norm[5:7]), atoi(v.Norm[8:]), true
}

// squash folds text for option matching: case and spaces aside.
func squash(s string) string {
	return strings.Join(strings.Fields(Fold(s)), " ")
}

// optionFor is the value of the select option a value names: by text or
// value as written, or in the option's own format for dates, numbers and
// times ("2011-10-11" names "10/11/2011"; "1,000" names "1000").
func optionFor(a branch.Affordance, v Value) (string, bool) {
	want := []string{squash(withCase(v.Text, v.Case)), squash(v.Norm)}
	for _, o := range a.Options {
		for _, w := range want {
			if w != "" && (squash(o.Text) == w || squash(o.Value) == w) {
				return o.Value, true
			}
		}
	}
	if v.Kind == ValueText || v.Kind == ValueName {
		return "", false
	}
	for _, o := range a.Options {
		for _, s := range []string{o.Text, o.Value} {
			for _, ov := range typedValues(strings.TrimSpace(s)) {
				if ov.Kind == v.Kind && ov.Norm == v.Norm || ov.Kind == ValueNumber && v.Kind == ValueAmount && ov.Norm == v.Norm {
					return o.Value, true
				}
			}
		}
	}
	return "", false
}

// datePart is the part of a date value a select named for one part
// takes ("Month", "Day", "Year"), in the option's format.
func datePart(a branch.Affordance, v Value) (string, bool) {
	if a.Kind != branch.ElemSelect || v.Kind != ValueDate {
		return "", false
	}
	parts := strings.Split(strings.TrimPrefix(v.Norm, "--"), "-")
	var y, m, d int
	switch {
	case strings.HasPrefix(v.Norm, "--") && len(parts) == 2:
		m, d = atoi(parts[0]), atoi(parts[1])
	case len(parts) == 3:
		y, m, d = atoi(parts[0]), atoi(parts[1]), atoi(parts[2])
	case len(parts) == 2:
		y, m = atoi(parts[0]), atoi(parts[1])
	}
	var want []string
	for _, w := range fieldWords(a) {
		switch w {
		case "year", "yyyy", "yy":
			if y > 0 {
				want = []string{strconv.Itoa(y), fmt.Sprintf("%02d", y%100)}
			}
		case "month", "mm", "mon":
			if m > 0 {
				name := time.Month(m).String()
				want = []string{strconv.Itoa(m), fmt.Sprintf("%02d", m), name, name[:3]}
			}
		case "day", "dd":
			if d > 0 {
				want = []string{strconv.Itoa(d), fmt.Sprintf("%02d", d)}
			}
		}
		if want != nil {
			break
		}
	}
	for _, o := range a.Options {
		for _, w := range want {
			if squash(o.Text) == squash(w) || squash(o.Value) == squash(w) {
				return o.Value, true
			}
		}
	}
	return "", false
}

// fieldWords are the folded words that name a field: its accessible
// name, name attribute, id (camelCase and snake_case split) and
// aria-label.
func fieldWords(a branch.Affordance) []string {
	var out []string
	for _, s := range []string{a.Target.Name, a.Target.Field, a.Target.ID, a.Target.AriaLabel, a.Target.Hint} {
		out = append(out, Words(splitCamel(s))...)
	}
	return out
}

// splitCamel puts a space inside camelCase words ("departCity").
func splitCamel(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// wordAffinity is how well a cue word of the goal names a label word of
// a field, in [0, 1]: the word itself, one stem ("directed",
// "director"), one inside the other, or a synonym (cueSynonyms).
func (wt *Weights) wordAffinity(cue, label string) float64 {
	switch {
	case cue == label:
		return 1
	case stemLike(cue, label):
		return wt.AffinityStem
	case slices.Contains(cueSynonyms[cue], label):
		return wt.AffinitySynonym
	case len(cue) >= 4 && len(label) >= 4 && (strings.Contains(label, cue) || strings.Contains(cue, label)):
		return wt.AffinityPartial
	}
	return 0
}

// stemLike reports whether two words share a stem: a common prefix of at
// least five letters covering three quarters of the shorter word.
func stemLike(a, b string) bool {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 5 && 4*n >= 3*min(len(a), len(b))
}

// affinity is how well a value's cue words (and the words its kind asks
// for) name the field, in [0, 1]: the best word pair, weighed down with
// the cue word's distance from the value; the field's neighbourhood
// counts less than its own label.
func (wt *Weights) affinity(a branch.Affordance, v Value) float64 {
	own := fieldWords(a)
	near := Words(a.Target.Near)
	best := 0.0
	score := func(cue string, weight float64) {
		if stopwords[cue] && cue != "from" && cue != "to" && cue != "by" && cue != "at" && cue != "on" {
			return
		}
		for _, w := range own {
			best = max(best, weight*wt.wordAffinity(cue, w))
		}
		for _, w := range near {
			best = max(best, wt.AffinityNear*weight*wt.wordAffinity(cue, w))
		}
	}
	for i, c := range v.Cue {
		score(c, 1-wt.AffinityDistance*float64(i))
	}
	for _, c := range kindCues[v.Kind] {
		score(c, wt.AffinityKind)
	}
	return best
}

// typeFit is how well a value's kind fits a control: 1 when the control
// asks for exactly that kind (a date input, a field named for e-mail
// taking an address), TypeFitLoose for a plain text field taking a typed
// value as written.
func (wt *Weights) typeFit(a branch.Affordance, v Value) float64 {
	switch inputType(a) {
	case "text", "search", "":
		if a.Kind == branch.ElemSelect {
			return 1
		}
		if v.Kind == ValueText || v.Kind == ValueName || namedForKind(a, v.Kind) {
			return 1
		}
		return wt.TypeFitLoose
	}
	return 1
}

// namedForKind reports whether a text field's name asks for a kind of
// value (kind_cues): "Appointment date" asks for a date.
func namedForKind(a branch.Affordance, k ValueKind) bool {
	for _, w := range Words(a.Target.Name + " " + a.Target.Hint + " " + a.Target.Field + " " + a.Target.ID) {
		if slices.Contains(kindCues[k], w) {
			return true
		}
	}
	return false
}

// valueField reports whether an affordance is a control a stated value
// may be written into.
func valueField(a branch.Affordance) bool {
	return (a.Kind.TakesText() || a.Kind == branch.ElemSelect || settableKinds[a.Kind]) && a.Region != branch.RegionObscured
}

// alwaysHolds reports whether a control always holds a value, so an
// empty one cannot tell it is still to fill: a select, a range.
func alwaysHolds(a branch.Affordance) bool {
	return a.Kind == branch.ElemSelect || settableKinds[a.Kind] || inputType(a) == "range" || inputType(a) == "color"
}

// fieldAction is the action that writes value into the control: set on
// a slider, a spin button or an input with a format of its own (date,
// time, month, week, colour: widgets.go), typed into a text-like field,
// chosen in a select. ok is false for a control it cannot write.
func fieldAction(a branch.Affordance, value string) (branch.Action, bool) {
	t := targetOf(a)
	switch {
	case settableKinds[a.Kind] || inputFormats[a.InputType] != nil:
		return setAction(a, value)
	case a.Kind == branch.ElemTextbox && (a.InputType == "" || a.InputType == "text") && dateValue.MatchString(value):
		// A date into a text field: it may open a date picker, and it
		// takes the date in the format its placeholder shows.
		return setAction(a, value)
	case a.Kind == branch.ElemSelect:
		text := value
		for _, o := range a.Options {
			if o.Value == value && o.Text != "" {
				text = o.Text
				break
			}
		}
		return branch.Action{Kind: branch.KindSelect, Target: t, Value: value, Label: fmt.Sprintf("select %q in %s", text, label(a))}, true
	case a.Kind.TakesText():
		return branch.Action{Kind: branch.KindType, Target: t, Value: value, Label: fmt.Sprintf("type %q into %s", value, label(a))}, true
	}
	return branch.Action{}, false
}

// binding is one value proposed for one field.
type binding struct {
	v       Value
	pk      int // index in the pool of stated values, -1 for one read after the field's label
	written string
	score   float64 // affinity plus type fit
	aff     float64
}

// valueCandidates writes the values the goal states into the page's
// fields that nothing else fills: no task input (ruleFor), no goal step
// that names them with a value. Per form, only the first such field in
// page order that some value binds to is proposed (one canonical order);
// a form whose task-input fill is still pending waits for it. When one
// value binds clearly best, it alone is proposed (and the form counts as
// pending, so its submit waits); otherwise up to ValueBranches values,
// with falling priors: the search and the task's predicates decide.
func (p *Proposer) valueCandidates(obs *branch.Observation, h History, pending map[int]bool, add func(Candidate)) {
	open := p.openFields(obs, pending)
	if len(open) == 0 {
		return
	}
	pool := p.statedValues(obs)
	pool = append(pool, dateTimes(p.g.text, pool)...)
	binds, bestOf := p.bindValues(obs, pool, open)
	choices, sure, chosen := p.w.chooseFields(obs, open, binds, bestOf)
	for _, i := range slices.Sorted(maps.Values(chosen)) {
		p.proposeValues(obs.Affordances[i], choices[i], sure[i], pending, add)
	}
}

// openFields are the fields values may be proposed for, by affordance
// index: empty value fields (or ones that always hold a value: a select,
// a slider) that no step, pending form, task input or site search
// covers.
func (p *Proposer) openFields(obs *branch.Observation, pending map[int]bool) map[int]bool {
	covered := p.stepFields(obs)
	open := map[int]bool{}
	for i, a := range obs.Affordances {
		if !valueField(a) || covered[i] || pending[a.Form] || !alwaysHolds(a) && a.Value != "" {
			continue
		}
		if searchField(a) {
			continue // a site's search box: the site search and "search for X" type there
		}
		if _, ok := p.ruleFor(a); ok {
			continue
		}
		open[i] = true
	}
	return open
}

// bindValues binds the pool's values (and, for an open field, the values
// its own label offers) to every value field, the filled and the covered
// ones too: a value that plainly belongs to another field (one that holds
// it already, in a form the page may have scrubbed or rewritten) is not
// guessed into this one. It returns the open fields' bindings and, per
// pool index, its best score over all fields.
func (p *Proposer) bindValues(obs *branch.Observation, pool []Value, open map[int]bool) (map[int][]binding, map[int]float64) {
	used := map[string]bool{} // values some field holds already
	for _, a := range obs.Affordances {
		if a.Value != "" && a.Kind.TakesText() && !alwaysHolds(a) {
			used[squash(a.Value)] = true
		}
	}
	fieldNames := valueFieldNames(obs)
	binds := map[int][]binding{}
	bestOf := map[int]float64{} // pool index -> its best score over the fields
	for i, a := range obs.Affordances {
		if !valueField(a) {
			continue
		}
		vals := pool
		if open[i] {
			vals = append(append([]Value(nil), pool...), p.labelValues(a)...)
		}
		for k, v := range vals {
			if fieldNames[strings.Join(Words(v.Text), " ")] {
				continue // "Postcode: 13008": a field's name is not a value
			}
			b, ok := p.w.bindOne(a, v, k >= len(pool))
			if !ok {
				continue
			}
			if k < len(pool) {
				b.pk = k
				bestOf[k] = max(bestOf[k], b.score)
			}
			if !open[i] || used[squash(v.Text)] || used[squash(v.Norm)] || used[squash(b.written)] {
				continue
			}
			if alwaysHolds(a) && b.aff == 0 || a.Kind == branch.ElemSelect && selected(a, b.written) {
				continue // a select or slider moves only for a value meant for it
			}
			binds[i] = append(binds[i], b)
		}
	}
	return binds, bestOf
}

// bindOne binds value v to field a: how it is written there, its
// affinity (a value from the field's own label counts its label's
// affinity; a select's choice that spells the value counts as meant for
// it) and its score. ok is false when the field cannot hold it.
func (wt *Weights) bindOne(a branch.Affordance, v Value, fromLabel bool) (binding, bool) {
	w, ok := Written(a, v)
	if !ok {
		w, ok = datePart(a, v)
	}
	if !ok {
		return binding{}, false
	}
	aff := wt.affinity(a, v)
	if fromLabel {
		aff = max(aff, wt.labelAffinity(v))
	}
	if a.Kind == branch.ElemSelect && v.Kind != ValueNumber {
		aff = max(aff, wt.AffinityOption) // one of its choices spells the value
	}
	return binding{v: v, pk: -1, written: w, aff: aff, score: aff + wt.BindTypeWeight*wt.typeFit(a, v)}, true
}

// valueFieldNames are the names and hints of the page's value fields,
// word for word.
func valueFieldNames(obs *branch.Observation) map[string]bool {
	names := map[string]bool{}
	for _, a := range obs.Affordances {
		if valueField(a) {
			for _, n := range []string{a.Target.Name, a.Target.Hint} {
				if ws := Words(n); len(ws) > 0 {
					names[strings.Join(ws, " ")] = true
				}
			}
		}
	}
	return names
}

// chooseFields picks one field per form, in one canonical order: the
// first field a value surely belongs to, else the first that any value
// may fit (a guess into a field nothing names waits until the sure ones
// are in). It returns each open field's values, best first, whether the
// best is sure, and the field chosen per form.
func (wt *Weights) chooseFields(obs *branch.Observation, open map[int]bool, binds map[int][]binding, bestOf map[int]float64) (map[int][]binding, map[int]bool, map[int]int) {
	choices := map[int][]binding{} // field -> its values, best first
	sure := map[int]bool{}
	chosen := map[int]int{} // form -> the field proposed for
	for i, a := range obs.Affordances {
		if !open[i] {
			continue
		}
		uniq := wt.fieldChoices(binds[i], bestOf)
		if len(uniq) == 0 {
			continue
		}
		choices[i] = uniq
		sure[i] = uniq[0].aff >= wt.BindSure && (len(uniq) == 1 || uniq[0].score-uniq[1].score >= wt.BindMargin)
		if f, ok := chosen[a.Form]; !ok || sure[i] && !sure[f] {
			chosen[a.Form] = i
		}
	}
	return choices, sure, chosen
}

// fieldChoices are a field's bindings that do not belong to another
// field better, best first, one per written string (two readings of a
// date write the same text into a text field).
func (wt *Weights) fieldChoices(binds []binding, bestOf map[int]float64) []binding {
	var bs []binding
	for _, b := range binds {
		if b.pk >= 0 && b.score+wt.BindMargin < bestOf[b.pk] {
			continue // it belongs to another field
		}
		bs = append(bs, b)
	}
	sort.SliceStable(bs, func(x, y int) bool { return bs[x].score > bs[y].score })
	var uniq []binding
	seen := map[string]bool{}
	for _, b := range bs {
		if !seen[b.written] {
			seen[b.written] = true
			uniq = append(uniq, b)
		}
	}
	return uniq
}

// proposeValues proposes writing a field's values: the one that surely
// belongs to it, else up to ValueBranches guesses.
func (p *Proposer) proposeValues(a branch.Affordance, uniq []binding, sure bool, pending map[int]bool, add func(Candidate)) {
	if sure {
		uniq = uniq[:1]
		pending[a.Form] = pending[a.Form] || a.Form >= 0
	}
	for n, b := range uniq {
		if n >= p.w.ValueBranches {
			break
		}
		act, ok := fieldAction(a, b.written)
		if !ok {
			continue
		}
		c := Candidate{Action: act, Prior: p.w.ValueSurePrior, Named: sure,
			Reason: fmt.Sprintf("the goal states %s %q (%s) for %s", b.v.Kind, b.v.Text, b.v.Source, label(a))}
		switch {
		case sure:
			c.from = placed(p.g.runeAt(b.v.Start))
		case b.aff > 0:
			c.Prior = p.w.ValueGuessPrior * pow(p.w.ValueGuessDecay, n)
			c.Reason += "; one of several values that may fit"
		default:
			c.Prior = p.w.ValueLoosePrior * pow(p.w.ValueGuessDecay, n)
			c.Reason += "; nothing in the goal names the field"
		}
		add(c)
	}
}

func pow(x float64, n int) float64 {
	r := 1.0
	for i := 0; i < n; i++ {
		r *= x
	}
	return r
}

// selected reports whether the select shows the option of value w.
func selected(a branch.Affordance, w string) bool {
	if a.Value != "" {
		return a.Value == w
	}
	for _, o := range a.Options {
		if o.Selected {
			return o.Value == w
		}
	}
	return false
}

// labelAffinity is the affinity of a value read after a field's own
// label: sure for a typed or capitalized value, a guess for lower-case
// words.
func (wt *Weights) labelAffinity(v Value) float64 {
	if v.Kind != ValueText {
		return 1
	}
	r, _ := utf8.DecodeRuneInString(v.Text)
	if unicode.IsUpper(r) || unicode.IsDigit(r) {
		return 1
	}
	return wt.AffinityLowerLabel
}

// stepFields are the fields a type step of the goal fills with a value
// it spells or refers to, by name: the step proposes them.
func (p *Proposer) stepFields(obs *branch.Observation) map[int]bool {
	out := map[int]bool{}
	for _, st := range p.g.Steps {
		if st.Verb != VerbType || st.Value == "" && len(st.Refers) == 0 {
			continue
		}
		for i, m := range p.pick(obs, st) {
			if m > 0 && obs.Affordances[i].Kind.TakesText() {
				out[i] = true
			}
		}
	}
	return out
}

// statedValues are the goal's values that may fill a field: not one a
// type step already writes into a field it names, not the target of a
// step that clicks or chooses ("Click Submit"), and not the name of an
// element on the page (a value names no button).
func (p *Proposer) statedValues(obs *branch.Observation) []Value {
	taken := map[string]bool{}
	for _, st := range p.g.Steps {
		if st.Verb == VerbType && st.Value != "" && len(p.pick(obs, st)) > 0 {
			taken[squash(st.Value)] = true
		}
	}
	var out []Value
	for _, v := range p.g.Stated {
		if taken[squash(v.Text)] || p.names(obs, v) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// names reports whether a text value is what a step acts on rather than
// a value to write: every word of it is in the target of a step that is
// not a type step, or it is the exact name of an element on the page.
func (p *Proposer) names(obs *branch.Observation, v Value) bool {
	if v.Kind != ValueText && v.Kind != ValueName {
		return false
	}
	ws := Words(v.Text)
	shown := false // an element of the page bears the value's words
	for _, a := range obs.Affordances {
		shown = shown || nameMatch(ws, a) > 0 && !a.Kind.TakesText()
	}
	for _, st := range p.g.Steps {
		// "Choose Spokane as your destination" on a page that shows no
		// Spokane yet: a value to write, for the field the page offers.
		if st.Verb != VerbType && within(ws, st.Target) && shown {
			return true
		}
	}
	for _, a := range obs.Affordances {
		if clickKinds[a.Kind] && Match(ws, a.Target.Name) == 1 || a.Kind != branch.ElemSelect && Match(ws, a.Target.Name) == 1 {
			return true
		}
	}
	return false
}

// labelValues are the values the goal states right after the field's own
// label: "with the title Jaws" for a field named Title, "year 1995" for
// Year. They bind to that field.
func (p *Proposer) labelValues(a branch.Affordance) []Value {
	var heads []string
	name := a.Target.Name
	if name == "" {
		name = a.Target.Hint // a label beside the field, not tied to it
	}
	for _, w := range Words(name) {
		if len(w) >= 3 && !stopwords[w] && !roleNounSet[w] && !labelFillers[w] {
			heads = append(heads, w)
		}
	}
	if len(heads) == 0 {
		return nil
	}
	toks := wordTokens(p.g.text)
	var out []Value
	for k, t := range toks {
		if !slices.Contains(heads, t.word) {
			continue
		}
		j := k + 1
		for j < len(toks) && (labelFillers[toks[j].word] || toks[j].raw == ":" || toks[j].raw == "=" || slices.Contains(heads, toks[j].word)) {
			j++
		}
		s, e := -1, -1
		for n := 0; j < len(toks) && n < 5; j, n = j+1, n+1 {
			t := toks[j]
			if t.word == "" && !(t.raw == "-" || t.raw == "'") || phraseStops[t.word] || prepositions[t.word] || verbOf(t.word) != "" ||
				roleNounSet[t.word] || cueSkip[t.word] {
				break
			}
			if s < 0 {
				s = t.start
			}
			e = t.end
		}
		if s < 0 {
			continue
		}
		text := p.g.text[s:e]
		v := Value{Kind: ValueText, Source: SourceLabel, Text: text, Norm: text, Start: s, End: e, Cue: []string{t.word}}
		// A typed value there keeps its type and its whole extent ("year
		// 1995", "email jo.li@x.org": not the word before the dot).
		for _, sv := range p.g.Stated {
			if sv.Start == s && (sv.End == e || sv.End > e && sv.Source == SourcePattern) {
				v = sv
				v.Cue = append([]string{t.word}, sv.Cue...)
				v.Source = SourceLabel
			}
		}
		for _, sv := range p.g.Stated {
			if sv.Start <= s && e <= sv.End && sv.Case != "" {
				v.Case = sv.Case
			}
		}
		out = append(out, v)
	}
	return out
}

// strictTypes are the input types whose value must be in the control's
// own format: the browser refuses anything else.
var strictTypes = map[string]bool{"date": true, "time": true, "month": true, "week": true, "number": true, "range": true, "datetime-local": true}

// inFormat is a literal a goal step spells, written in the control's own
// format ("8:04 PM" into a time input is 20:04); a plain field takes it
// as written. ok is false when a strict control cannot take it.
func inFormat(a branch.Affordance, literal string) (string, bool) {
	if !strictTypes[inputType(a)] {
		return literal, true
	}
	trimmed := strings.TrimSpace(literal)
	vs := typedValues(trimmed)
	vs = append(vs, dateTimes(trimmed, vs)...)
	for _, v := range vs {
		if v.Start == 0 && v.End == len(trimmed) {
			if w, ok := Written(a, v); ok {
				return w, true
			}
		}
	}
	return "", false
}

// dateTimeLimit bounds the dates joined with times (dateTimes): twice
// the values a field is offered by default.
const dateTimeLimit = 6

// dateTimes joins each full date with each time of the values, in text
// order, for a datetime-local input: 2011-10-11T20:04. Text spans from
// the first of the two to the last, for up to dateTimeLimit joins.
func dateTimes(text string, vals []Value) []Value {
	var out []Value
	for _, d := range vals {
		if _, _, _, ok := ymd(d); !ok {
			continue
		}
		for _, t := range vals {
			if t.Kind != ValueTime || len(out) >= dateTimeLimit {
				continue
			}
			s, e := min(d.Start, t.Start), max(d.End, t.End)
			out = append(out, Value{Kind: ValueDateTime, Source: d.Source, Text: text[s:e], Start: s, End: e,
				Norm: d.Norm + "T" + t.Norm, Reading: d.Reading, Cue: d.Cue, Case: d.Case})
		}
	}
	return out
}
