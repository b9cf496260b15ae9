package planner

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
)

// The planner's word data (words.json): the generic lexicon and the
// opt-in profiles a task names in planner.profiles. Each table says
// which construction it serves. Domain words live in profiles, never in
// code.

//go:embed words.json
var wordsJSON []byte

// wordData is words.json.
type wordData struct {
	Lexicon wordTable `json:"lexicon"`
	// SiteSearch is the generic search of a site; its query is empty:
	// the goal's own named value is typed.
	SiteSearch siteSearch         `json:"site_search"`
	Profiles   map[string]profile `json:"profiles"`
}

// wordTable is a table of word weights and the construction it serves.
type wordTable struct {
	Serves string             `json:"serves"`
	Words  map[string]float64 `json:"words"`
}

// profile is an opt-in word profile.
type profile struct {
	Serves     string      `json:"serves"`
	Lexicon    wordTable   `json:"lexicon"`
	SiteSearch *siteSearch `json:"site_search,omitempty"`
}

// siteSearch is a profile's search of the site: the query typed into a
// search field when the goal holds one of the When words.
type siteSearch struct {
	Serves string   `json:"serves"`
	When   []string `json:"when"`
	Query  string   `json:"query"`
}

// readWords decodes word data, refusing unknown fields and tables that do
// not say what they serve.
func readWords(b []byte) (wordData, error) {
	var d wordData
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return wordData{}, fmt.Errorf("planner: words.json: %w", err)
	}
	if d.Lexicon.Serves == "" || len(d.Lexicon.Words) == 0 {
		return wordData{}, fmt.Errorf("planner: words.json: lexicon: serves and words are required")
	}
	if s := d.SiteSearch; s.Serves == "" || len(s.When) == 0 {
		return wordData{}, fmt.Errorf("planner: words.json: site_search: serves and when are required")
	}
	for name, p := range d.Profiles {
		if p.Serves == "" || p.Lexicon.Serves == "" {
			return wordData{}, fmt.Errorf("planner: words.json: profiles.%s: serves is required", name)
		}
		if s := p.SiteSearch; s != nil && (s.Serves == "" || s.Query == "" || len(s.When) == 0) {
			return wordData{}, fmt.Errorf("planner: words.json: profiles.%s.site_search: serves, when and query are required", name)
		}
	}
	return d, nil
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
