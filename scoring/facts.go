package scoring

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Probe kinds: questions the browser answers about a page.
const (
	ProbeElement = "element" // first element matching Selector: found, visible, text, value; and the count
	ProbeJS      = "js"      // evaluate Script as an expression in the page
	ProbeBody    = "body"    // the page's visible text
)

// Probe is one question to ask the page. Probes are comparable and serve as
// map keys.
type Probe struct {
	Kind     string `json:"kind"`
	Selector string `json:"selector,omitempty"`
	Script   string `json:"script,omitempty"`
}

// Answer is the page's answer to a Probe.
type Answer struct {
	Found   bool   `json:"found,omitempty"`
	Visible bool   `json:"visible,omitempty"`
	Count   int    `json:"count,omitempty"`
	Text    string `json:"text,omitempty"`
	Value   string `json:"value,omitempty"`
	// Truthy is the JavaScript truthiness of a js probe's result.
	Truthy bool   `json:"truthy,omitempty"`
	Err    string `json:"error,omitempty"`
}

// RequestFact is a response the branch saw.
type RequestFact struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status"`
}

// Facts are what Eval needs to know about a page and its branch.
type Facts struct {
	URL      string
	Title    string
	Answers  map[Probe]Answer
	Requests []RequestFact
}

// Probes returns the distinct probes the predicates need, in a stable
// order.
func Probes(preds ...Predicate) []Probe {
	set := map[Probe]bool{}
	var walk func(p *Predicate)
	walk = func(p *Predicate) {
		switch p.Kind() {
		case PredVisible:
			set[Probe{Kind: ProbeElement, Selector: p.Visible}] = true
		case PredHidden:
			set[Probe{Kind: ProbeElement, Selector: p.Hidden}] = true
		case PredText:
			if p.Text.Selector == "" {
				set[Probe{Kind: ProbeBody}] = true
			} else {
				set[Probe{Kind: ProbeElement, Selector: p.Text.Selector}] = true
			}
		case PredValue:
			set[Probe{Kind: ProbeElement, Selector: p.Value.Selector}] = true
		case PredCount:
			set[Probe{Kind: ProbeElement, Selector: p.Count.Selector}] = true
		case PredJS:
			set[Probe{Kind: ProbeJS, Script: p.JS}] = true
		case PredAll:
			for i := range p.All {
				walk(&p.All[i])
			}
		case PredAny:
			for i := range p.Any {
				walk(&p.Any[i])
			}
		case PredNot:
			walk(p.Not)
		}
	}
	for i := range preds {
		walk(&preds[i])
	}
	out := make([]Probe, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Selector != b.Selector {
			return a.Selector < b.Selector
		}
		return a.Script < b.Script
	})
	return out
}

// Eval decides p against the facts. A probe that failed (a script that
// threw, a bad selector) makes the predicate false and is reported as the
// error; the truth value is still usable.
func (p *Predicate) Eval(f Facts) (bool, error) {
	switch p.Kind() {
	case PredURLMatches:
		return MatchString(p.URLMatches, f.URL), nil
	case PredTitleMatches:
		return MatchString(p.TitleMatches, f.Title), nil
	case PredVisible:
		a, err := f.answer(Probe{Kind: ProbeElement, Selector: p.Visible})
		return a.Found && a.Visible, err
	case PredHidden:
		a, err := f.answer(Probe{Kind: ProbeElement, Selector: p.Hidden})
		return err == nil && !(a.Found && a.Visible), err
	case PredText:
		var a Answer
		var err error
		if p.Text.Selector == "" {
			a, err = f.answer(Probe{Kind: ProbeBody})
		} else {
			a, err = f.answer(Probe{Kind: ProbeElement, Selector: p.Text.Selector})
			if err == nil && !a.Found {
				return false, nil
			}
		}
		if err != nil {
			return false, err
		}
		return p.Text.match(a.Text, p.Text.Selector != ""), nil
	case PredValue:
		a, err := f.answer(Probe{Kind: ProbeElement, Selector: p.Value.Selector})
		if err != nil || !a.Found {
			return false, err
		}
		return p.Value.match(a.Value, true), nil
	case PredCount:
		a, err := f.answer(Probe{Kind: ProbeElement, Selector: p.Count.Selector})
		if err != nil {
			return false, err
		}
		c := p.Count
		ok := (c.Min == nil || a.Count >= *c.Min) && (c.Max == nil || a.Count <= *c.Max) && (c.Equals == nil || a.Count == *c.Equals)
		if c.Min == nil && c.Max == nil && c.Equals == nil {
			ok = a.Count > 0
		}
		return ok, nil
	case PredRequestSeen:
		r := p.RequestSeen
		for _, q := range f.Requests {
			if r.Method != "" && !strings.EqualFold(r.Method, q.Method) {
				continue
			}
			if !MatchString(r.URL, q.URL) || !statusMatches(r.Status, q.Status) {
				continue
			}
			return true, nil
		}
		return false, nil
	case PredJS:
		a, err := f.answer(Probe{Kind: ProbeJS, Script: p.JS})
		return a.Truthy, err
	case PredAll:
		var firstErr error
		for i := range p.All {
			ok, err := p.All[i].Eval(f)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if !ok {
				return false, firstErr
			}
		}
		return true, firstErr
	case PredAny:
		var firstErr error
		for i := range p.Any {
			ok, err := p.Any[i].Eval(f)
			if ok {
				return true, nil
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}
		return false, firstErr
	case PredNot:
		ok, err := p.Not.Eval(f)
		if err != nil {
			return false, err
		}
		return !ok, nil
	}
	return false, ErrUnknownPredicate
}

func (f Facts) answer(p Probe) (Answer, error) {
	a, ok := f.Answers[p]
	if !ok {
		return Answer{}, fmt.Errorf("scoring: no answer for probe %s %s%s", p.Kind, p.Selector, p.Script)
	}
	if a.Err != "" {
		return a, fmt.Errorf("scoring: probe %s %s%s: %s", p.Kind, p.Selector, p.Script, a.Err)
	}
	return a, nil
}

func (m *TextMatch) match(s string, element bool) bool {
	s = normalizeSpace(s)
	switch {
	case m.Equals != "":
		return s == normalizeSpace(m.Equals)
	case m.Contains != "":
		return strings.Contains(strings.ToLower(s), strings.ToLower(m.Contains))
	case m.Matches != "":
		return MatchString(m.Matches, s)
	default:
		return element && s != "" // element present with some text
	}
}

func statusMatches(want string, got int) bool {
	if want == "" {
		return got >= 200 && got < 400
	}
	if strings.HasSuffix(want, "xx") {
		return strconv.Itoa(got)[:1] == want[:1]
	}
	n, _ := strconv.Atoi(want)
	return n == got
}

func normalizeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
