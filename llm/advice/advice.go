// Package advice is the language model's side of the planner's Advisor:
// the question a model is asked about a page (its system text, the page
// and menu written out, the answer's JSON schema) and the reading of its
// answer. The planner knows nothing of models; the orchestrator puts an
// llm.Caller and this package together.
package advice

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// The prompt a language-model advisor is asked with. A change of the
// system text, the layout of the page or the answer schema changes
// PromptVersion, which every cassette entry carries: recorded answers
// then miss visibly instead of answering another question.
const (
	systemPrompt = `You choose the next action of a browser agent working on a task in a web page.
You are shown the task's goal, the actions taken so far, the page, and a numbered menu of actions the agent can take on it.
Rank the menu entries worth trying, best first, by how directly they advance the goal. Leave out entries that lead away from it.
Some empty form fields may be listed after the menu: to type into one, rank its number and give the value to type.
Only use numbers from the lists. Never give a value for a password, card or other secret field. Answer in JSON.`
	// maxMenu bounds the entries a prompt lists, fields included: the
	// model sees the whole menu of a page (a page offers at most 120
	// affordances), the proposer's order first.
	maxMenu = 160
	// maxLabel bounds the length of one entry's description.
	maxLabel = 120
)

// adviceSchema is the JSON schema of an answer.
var adviceSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["ranking","values"],` +
	`"properties":{"ranking":{"type":"array","items":{"type":"integer"}},` +
	`"values":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["id","value"],` +
	`"properties":{"id":{"type":"integer"},"value":{"type":"string"}}}}}}`)

// PromptVersion is the hash of the prompt template: the system text, the
// answer schema and the layout of the question, read off the question
// written for a sample page, so a change of any of them changes it.
var PromptVersion = func() string {
	sample := planner.Query{Goal: "goal", Done: []string{"done"}, Obs: &branch.Observation{URL: "url", Title: "title",
		Predicates: map[string]bool{"check": true}},
		Menu: []planner.Candidate{{Action: branch.Action{Label: "entry"}}}, Fields: []branch.Affordance{{Kind: branch.ElemTextbox}}}
	h := sha256.New()
	h.Write([]byte("multiverse/prompt/v1\x00" + systemPrompt + "\x00"))
	h.Write(adviceSchema)
	h.Write([]byte("\x00" + userPrompt(sample)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}()

// Params are the decoding parameters of an advisor's requests.
type Params struct {
	Model       string
	Temperature float64
	Seed        *int64
	MaxTokens   int
}

// Request writes the chat request asking a model about q. It is a
// pure function of q and p: the same page asked twice is the same
// request, and so the same cassette fingerprint.
func Request(q planner.Query, p Params) llm.Request {
	return llm.Request{Model: p.Model, Temperature: p.Temperature, Seed: p.Seed, MaxTokens: p.MaxTokens,
		SchemaName: "ranking", Schema: adviceSchema, PromptVersion: PromptVersion,
		Messages: []llm.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: userPrompt(q)}}}
}

func userPrompt(q planner.Query) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n", oneLine(q.Goal, 600))
	if len(q.Done) > 0 {
		b.WriteString("\nDone so far:\n")
		for i, d := range q.Done {
			fmt.Fprintf(&b, "%d. %s\n", i+1, oneLine(d, maxLabel))
		}
	}
	if o := q.Obs; o != nil {
		// The same question whatever port the site is on.
		page := task.FoldOrigin(o.URL, q.Site)
		fmt.Fprintf(&b, "\nPage: %s\nTitle: %s\n", oneLine(page, 300), oneLine(o.Title, maxLabel))
		if len(o.Predicates) > 0 {
			names := make([]string, 0, len(o.Predicates))
			for n := range o.Predicates {
				names = append(names, n)
			}
			sort.Strings(names)
			b.WriteString("Goal checks on this page:")
			for _, n := range names {
				fmt.Fprintf(&b, " %s=%t", n, o.Predicates[n])
			}
			b.WriteString("\n")
		}
	}
	menu, fields := shown(q)
	b.WriteString("\nMenu:\n")
	for i := range menu {
		c := q.Menu[i]
		fmt.Fprintf(&b, "[%d] %s\n", i, oneLine(c.Action.Describe(), maxLabel))
	}
	if fields > 0 {
		b.WriteString("\nEmpty fields (rank one and give its value to type into it):\n")
		for i := range fields {
			f := q.Fields[i]
			fmt.Fprintf(&b, "[%d] %s %s\n", len(q.Menu)+i, f.Kind, oneLine(planner.FieldLabel(f), maxLabel))
		}
	}
	b.WriteString("\nAnswer {\"ranking\": [numbers, best first], \"values\": [{\"id\": number, \"value\": text}]}.\n")
	return b.String()
}

// shown is how many menu entries and fields a prompt lists: at most
// maxMenu in all, the menu first.
func shown(q planner.Query) (menu, fields int) {
	menu = min(len(q.Menu), maxMenu)
	return menu, min(len(q.Fields), maxMenu-menu)
}

// oneLine is s on one line, cut to n bytes (never inside a character).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// unfence strips the Markdown code fence some models wrap JSON in
// ("```json ... ```") even when a schema is asked for.
func unfence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
}

// ErrAnswer: a model's answer is not a ranking of the menu it was shown.
var ErrAnswer = errors.New("advice: the answer is not a ranking of the menu")

// Parse reads a model's answer to the request Request wrote
// for q. A number outside what the prompt listed, a value for a menu
// entry, or an answer that is not the schema's JSON is ErrAnswer: the
// caller falls back to the proposer's order. Repeated numbers count once;
// a field given a value but not ranked is ranked after the others.
func Parse(content string, q planner.Query) (planner.Advice, error) {
	var a struct {
		Ranking []int `json:"ranking"`
		Values  []struct {
			ID    int    `json:"id"`
			Value string `json:"value"`
		} `json:"values"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(unfence(content))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return planner.Advice{}, fmt.Errorf("%w: %v", ErrAnswer, err)
	}
	menu, fields := shown(q)
	listed := func(id int) bool { return id >= 0 && id < menu || id >= len(q.Menu) && id < len(q.Menu)+fields }
	adv := planner.Advice{Values: map[int]string{}}
	seen := map[int]bool{}
	for _, id := range a.Ranking {
		if !listed(id) {
			return planner.Advice{}, fmt.Errorf("%w: it names %d, which the prompt did not list", ErrAnswer, id)
		}
		if !seen[id] {
			seen[id] = true
			adv.Order = append(adv.Order, id)
		}
	}
	for _, v := range a.Values {
		if v.ID < len(q.Menu) || !listed(v.ID) {
			return planner.Advice{}, fmt.Errorf("%w: it gives a value for %d, which is not an empty field", ErrAnswer, v.ID)
		}
		adv.Values[v.ID] = v.Value
		if !seen[v.ID] {
			seen[v.ID] = true
			adv.Order = append(adv.Order, v.ID)
		}
	}
	return adv, nil
}
