package planner

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The planner's word data (words.json): every English word the goal
// reader, the value extractor and the proposer read, in tables that each
// say which construction they serve, and the opt-in profiles a task
// names in planner.profiles. Domain words live in profiles, never in
// code. The code below decodes the data once and builds from each table
// the map or set its readers index; the grammar that reads the goal
// with these tables is written down in doc.go.

//go:embed words.json
var wordsJSON []byte

// wordData is words.json: one field per table, named by its JSON key.
// Every field's type has a check method (see readWords).
type wordData struct {
	Lexicon wordTable `json:"lexicon"`
	// SiteSearch is the generic search of a site; its query is empty:
	// the goal's own named value is typed.
	SiteSearch siteSearch `json:"site_search"`

	// The goal reader (goal.go).
	Stopwords    wordSet    `json:"stopwords"`
	Verbs        wordGroups `json:"verbs"`
	TwoWordVerbs wordGroups `json:"two_word_verbs"`
	ControlVerbs wordSet    `json:"control_verbs"`
	Keys         wordGroups `json:"keys"`
	Ordinals     wordNumber `json:"ordinals"`
	RoleNouns    wordGroups `json:"role_nouns"`
	Articles     wordSet    `json:"articles"`
	IntoWords    wordSet    `json:"into_words"`
	StrongInto   wordSet    `json:"strong_into_words"`
	Pronouns     wordSet    `json:"pronouns"`
	Quantifiers  wordSet    `json:"quantifiers"`
	Determiners  wordSet    `json:"determiners"`

	// The value extractor (values.go).
	NameJoiners  wordSet    `json:"name_joiners"`
	Prepositions wordSet    `json:"prepositions"`
	PhraseStops  wordSet    `json:"phrase_stops"`
	LabelFillers wordSet    `json:"label_fillers"`
	CueSkip      wordSet    `json:"cue_skip"`
	AfterCue     wordSet    `json:"after_cue"`
	CueSynonyms  wordLists  `json:"cue_synonyms"`
	KindCues     wordLists  `json:"kind_cues"`
	Cases        wordGroups `json:"cases"`
	Months       wordNumber `json:"months"`
	TimeWords    wordMap    `json:"time_words"`

	// The proposer's words for pages (proposer.go, position.go,
	// widgets.go, search.go).
	LoginWords     wordSet    `json:"login_words"`
	DismissWords   wordSet    `json:"dismiss_words"`
	PagerWords     wordSet    `json:"pager_words"`
	RecencyWords   wordNumber `json:"recency_words"`
	WidgetNouns    wordGroups `json:"widget_nouns"`
	StepperWords   wordGroups `json:"stepper_words"`
	TrackingParams wordSet    `json:"tracking_params"`

	Profiles profiles `json:"profiles"`
}

// wordTable is a table of word weights and the construction it serves.
type wordTable struct {
	Serves string             `json:"serves"`
	Words  map[string]float64 `json:"words"`
}

func (t wordTable) check() error {
	if t.Serves == "" || len(t.Words) == 0 {
		return errors.New("serves and words are required")
	}
	for _, w := range slices.Sorted(maps.Keys(t.Words)) {
		if err := checkWord(w, 1); err != nil {
			return err
		}
	}
	return nil
}

// profile is an opt-in word profile.
type profile struct {
	Serves     string      `json:"serves"`
	Lexicon    wordTable   `json:"lexicon"`
	SiteSearch *siteSearch `json:"site_search,omitempty"`
}

// profiles are the opt-in profiles by the name a task gives.
type profiles map[string]profile

func (ps profiles) check() error {
	names := make([]string, 0, len(ps))
	for name := range ps {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := ps[name]
		if p.Serves == "" || p.Lexicon.Serves == "" {
			return fmt.Errorf("%s: serves is required", name)
		}
		if err := p.Lexicon.check(); err != nil {
			return fmt.Errorf("%s: lexicon: %w", name, err)
		}
		if s := p.SiteSearch; s != nil && (s.Serves == "" || s.Query == "" || len(s.When) == 0) {
			return fmt.Errorf("%s: site_search: serves, when and query are required", name)
		}
	}
	return nil
}

// siteSearch is a profile's search of the site: the query typed into a
// search field when the goal holds one of the When words.
type siteSearch struct {
	Serves string   `json:"serves"`
	When   []string `json:"when"`
	Query  string   `json:"query"`
}

func (s siteSearch) check() error {
	if s.Serves == "" || len(s.When) == 0 {
		return errors.New("serves and when are required")
	}
	return nil
}

// wordSet is a set of words: {"serves": ..., "words": [...]}.
type wordSet struct {
	Serves string   `json:"serves"`
	Words  []string `json:"words"`
}

func (t wordSet) check() error {
	if err := checkServes(t.Serves, len(t.Words)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, w := range t.Words {
		if err := checkWord(w, 1); err != nil {
			return err
		}
		if seen[w] {
			return fmt.Errorf("%q is listed twice", w)
		}
		seen[w] = true
	}
	return nil
}

// set is the table as a set.
func (t wordSet) set() map[string]bool {
	m := make(map[string]bool, len(t.Words))
	for _, w := range t.Words {
		m[w] = true
	}
	return m
}

// wordGroups are words grouped by what each stands for: {"serves": ...,
// "words": {canonical: [word, ...]}}. A word stands for one thing only;
// an entry may be a phrase of several words (two-word verbs, case
// phrases).
type wordGroups struct {
	Serves string              `json:"serves"`
	Words  map[string][]string `json:"words"`
}

func (t wordGroups) check() error {
	if err := checkServes(t.Serves, len(t.Words)); err != nil {
		return err
	}
	of := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(t.Words)) {
		if len(t.Words[key]) == 0 {
			return fmt.Errorf("%q: no words", key)
		}
		for _, w := range t.Words[key] {
			if err := checkWord(w, 3); err != nil {
				return fmt.Errorf("%q: %w", key, err)
			}
			if k, ok := of[w]; ok {
				return fmt.Errorf("%q stands for both %q and %q", w, k, key)
			}
			of[w] = key
		}
	}
	return nil
}

// byWord is the table as word -> what it stands for.
func (t wordGroups) byWord() map[string]string {
	m := map[string]string{}
	for key, ws := range t.Words {
		for _, w := range ws {
			m[w] = key
		}
	}
	return m
}

// byPair is a table of two-word phrases as [first, second] -> what the
// phrase stands for.
func (t wordGroups) byPair() map[[2]string]string {
	m := map[[2]string]string{}
	for w, key := range t.byWord() {
		if f := strings.Fields(w); len(f) == 2 {
			m[[2]string{f[0], f[1]}] = key
		}
	}
	return m
}

// wordLists map a word to a list of words that answer it, in order:
// {"serves": ..., "words": {word: [word, ...]}}. A listed word may answer
// several keys.
type wordLists struct {
	Serves string              `json:"serves"`
	Words  map[string][]string `json:"words"`
}

func (t wordLists) check() error {
	if err := checkServes(t.Serves, len(t.Words)); err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(t.Words)) {
		if err := checkWord(key, 1); err != nil {
			return err
		}
		if len(t.Words[key]) == 0 {
			return fmt.Errorf("%q: no words", key)
		}
		for _, w := range t.Words[key] {
			if err := checkWord(w, 1); err != nil {
				return fmt.Errorf("%q: %w", key, err)
			}
		}
	}
	return nil
}

// wordNumber maps words to numbers: {"serves": ..., "words": {word: n}}.
type wordNumber struct {
	Serves string         `json:"serves"`
	Words  map[string]int `json:"words"`
}

func (t wordNumber) check() error {
	if err := checkServes(t.Serves, len(t.Words)); err != nil {
		return err
	}
	for _, w := range slices.Sorted(maps.Keys(t.Words)) {
		if err := checkWord(w, 1); err != nil {
			return err
		}
		if t.Words[w] == 0 {
			return fmt.Errorf("%q: 0 is no number here", w)
		}
	}
	return nil
}

// wordMap maps words to a string each: {"serves": ..., "words": {word: s}}.
type wordMap struct {
	Serves string            `json:"serves"`
	Words  map[string]string `json:"words"`
}

func (t wordMap) check() error {
	if err := checkServes(t.Serves, len(t.Words)); err != nil {
		return err
	}
	for _, w := range slices.Sorted(maps.Keys(t.Words)) {
		if err := checkWord(w, 1); err != nil {
			return err
		}
		if t.Words[w] == "" {
			return fmt.Errorf("%q: an empty value", w)
		}
	}
	return nil
}

func checkServes(serves string, n int) error {
	switch {
	case strings.TrimSpace(serves) == "":
		return errors.New("serves is required: name the construction that reads the table")
	case n == 0:
		return errors.New("words are required")
	}
	return nil
}

// checkWord refuses an entry the readers could never meet: empty, with
// more than max words, or not folded the way the goal's words are
// (Fold).
func checkWord(w string, max int) error {
	f := strings.Fields(w)
	switch {
	case len(f) == 0:
		return errors.New("an empty word")
	case len(f) > max || strings.Join(f, " ") != w:
		return fmt.Errorf("%q: more than %d word(s) or stray spaces", w, max)
	case Fold(w) != w:
		return fmt.Errorf("%q is not folded (write %q)", w, Fold(w))
	}
	return nil
}

// checker is a table that checks its own entries.
type checker interface{ check() error }

// readWords decodes word data. Each table is decoded on its own,
// refusing unknown fields, and checked: it must say what it serves and
// hold well-formed entries. Every error names the table.
func readWords(b []byte) (wordData, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return wordData{}, fmt.Errorf("planner: words.json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return wordData{}, fmt.Errorf("planner: words.json: data after the top-level object")
	}
	var d wordData
	v := reflect.ValueOf(&d).Elem()
	known := map[string]bool{}
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		if !known[name] {
			return wordData{}, fmt.Errorf("planner: words.json: unknown field %q: no such table", name)
		}
	}
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		field := v.Field(i).Addr().Interface()
		if msg, ok := raw[name]; ok {
			dec := json.NewDecoder(bytes.NewReader(msg))
			dec.DisallowUnknownFields()
			if err := dec.Decode(field); err != nil {
				return wordData{}, fmt.Errorf("planner: words.json: %s: %w", name, err)
			}
		}
		if err := field.(checker).check(); err != nil {
			return wordData{}, fmt.Errorf("planner: words.json: %s: %w", name, err)
		}
	}
	if err := d.checkKeys(); err != nil {
		return wordData{}, fmt.Errorf("planner: words.json: %w", err)
	}
	return d, nil
}

// checkKeys refuses groups keyed by something their readers do not know:
// a verb that is no Verb constant, a case, a value kind.
func (d wordData) checkKeys() error {
	verbs := []string{VerbClick, VerbSelect, VerbType, VerbCheck, VerbUncheck, VerbExpand, VerbOpen, VerbClose, VerbLogin, VerbFocus, VerbSubmit}
	kinds := []string{string(ValueText), string(ValueName), string(ValueNumber), string(ValueAmount), string(ValueDate),
		string(ValueTime), string(ValueEmail), string(ValuePhone), string(ValueURL), string(ValueDateTime)}
	for _, c := range []struct {
		table string
		keys  []string
		known []string
	}{
		{"verbs", slices.Sorted(maps.Keys(d.Verbs.Words)), verbs},
		{"two_word_verbs", slices.Sorted(maps.Keys(d.TwoWordVerbs.Words)), verbs},
		{"cases", slices.Sorted(maps.Keys(d.Cases.Words)), []string{CaseLower, CaseUpper, CaseTitle}},
		{"kind_cues", slices.Sorted(maps.Keys(d.KindCues.Words)), kinds},
	} {
		for _, k := range c.keys {
			if !containsString(c.known, k) {
				return fmt.Errorf("%s: %q is none of %s", c.table, k, strings.Join(c.known, ", "))
			}
		}
	}
	for _, w := range slices.Sorted(maps.Keys(d.Verbs.byWord())) {
		if strings.Contains(w, " ") {
			return fmt.Errorf("verbs: %q is not one word (two_word_verbs holds phrases)", w)
		}
	}
	for _, w := range slices.Sorted(maps.Keys(d.TwoWordVerbs.byWord())) {
		if len(strings.Fields(w)) != 2 {
			return fmt.Errorf("two_word_verbs: %q is not two words", w)
		}
	}
	for _, w := range slices.Sorted(maps.Keys(d.Months.Words)) {
		if n := d.Months.Words[w]; n < 1 || n > 12 {
			return fmt.Errorf("months: %q is month %d", w, n)
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// words is the embedded word data; a build whose words.json does not
// read fails its tests (TestWordData), not a user's run.
var words = func() wordData {
	d, err := readWords(wordsJSON)
	if err != nil {
		panic(err)
	}
	return d
}()

// casePhrases are the cases table as folded word sequences, in a fixed
// order (case, then the table's order).
func casePhrases(t wordGroups) []casePhrase {
	var out []casePhrase
	for _, kase := range slices.Sorted(maps.Keys(t.Words)) {
		for _, p := range t.Words[kase] {
			out = append(out, casePhrase{words: strings.Fields(p), kase: kase})
		}
	}
	return out
}

// casePhrase is a phrase of the cases table.
type casePhrase struct {
	words []string
	kase  string
}

// kindLists are the kind_cues table keyed by value kind.
func kindLists(t wordLists) map[ValueKind][]string {
	m := make(map[ValueKind][]string, len(t.Words))
	for k, ws := range t.Words {
		m[ValueKind(k)] = ws
	}
	return m
}

// wordAlternation is a regular expression group, (?:a|b|...), that
// matches any key of a table: longer words first, so "september" is
// preferred to "sep" where both match.
func wordAlternation[V any](m map[string]V) string {
	ws := slices.Sorted(maps.Keys(m))
	sort.SliceStable(ws, func(i, j int) bool { return len(ws[i]) > len(ws[j]) })
	for i, w := range ws {
		ws[i] = regexp.QuoteMeta(w)
	}
	return "(?:" + strings.Join(ws, "|") + ")"
}

// stemmedSet is a set of the stems of a table's words.
func stemmedSet(t wordSet) map[string]bool {
	m := make(map[string]bool, len(t.Words))
	for _, w := range t.Words {
		m[stem(w)] = true
	}
	return m
}

// stemmedTable adds a table's weights to into, keyed by stems. Words that
// share a stem ("price", "pricing") weigh what the strongest of them
// weighs, whatever the order the table is read in.
func stemmedTable(t wordTable, into map[string]float64) {
	for k, v := range t.Words {
		s := stem(k)
		if old, ok := into[s]; !ok || math.Abs(v) > math.Abs(old) || math.Abs(v) == math.Abs(old) && v > old {
			into[s] = v
		}
	}
}
