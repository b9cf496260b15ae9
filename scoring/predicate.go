package scoring

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// ErrUnknownPredicate is returned for a predicate with no kind or an
// unknown one.
var ErrUnknownPredicate = errors.New("scoring: unknown predicate")

// Predicate kinds, as written in task files.
const (
	PredURLMatches   = "url_matches"
	PredTitleMatches = "title_matches"
	PredVisible      = "visible"
	PredHidden       = "hidden"
	PredText         = "text"
	PredValue        = "value"
	PredCount        = "count"
	PredRequestSeen  = "request_seen"
	PredJS           = "js"
	PredAll          = "all"
	PredAny          = "any"
	PredNot          = "not"
)

// Kinds lists the predicate kinds in a stable order.
var Kinds = []string{PredURLMatches, PredTitleMatches, PredVisible, PredHidden, PredText, PredValue,
	PredCount, PredRequestSeen, PredJS, PredAll, PredAny, PredNot}

// Predicate is a condition on the state of a branch. Exactly one kind field
// is set. Name, Weight and Sticky matter for goal predicates: the weight is
// its share of progress; a sticky predicate counts once it was true at any
// step of the branch (a milestone).
type Predicate struct {
	Name   string  `json:"name,omitempty"`
	Weight float64 `json:"weight,omitempty"`
	Sticky bool    `json:"sticky,omitempty"`

	URLMatches   string        `json:"url_matches,omitempty"`
	TitleMatches string        `json:"title_matches,omitempty"`
	Visible      string        `json:"visible,omitempty"`
	Hidden       string        `json:"hidden,omitempty"`
	Text         *TextMatch    `json:"text,omitempty"`
	Value        *TextMatch    `json:"value,omitempty"`
	Count        *CountMatch   `json:"count,omitempty"`
	RequestSeen  *RequestMatch `json:"request_seen,omitempty"`
	JS           string        `json:"js,omitempty"`
	All          []Predicate   `json:"all,omitempty"`
	Any          []Predicate   `json:"any,omitempty"`
	Not          *Predicate    `json:"not,omitempty"`
}

// TextMatch compares the text (or, for value predicates, the form value) of
// the first element matching Selector; with no selector, the page text.
// Set one of Equals, Contains, Matches (a regular expression, RE2 syntax).
type TextMatch struct {
	Selector string `json:"selector,omitempty"`
	Equals   string `json:"equals,omitempty"`
	Contains string `json:"contains,omitempty"`
	Matches  string `json:"matches,omitempty"`
}

// CountMatch counts the elements matching Selector. Nil bounds are open.
type CountMatch struct {
	Selector string `json:"selector"`
	Min      *int   `json:"min,omitempty"`
	Max      *int   `json:"max,omitempty"`
	Equals   *int   `json:"equals,omitempty"`
}

// RequestMatch is satisfied when the branch saw a response whose method,
// URL (regular expression) and status match. Status is "", a code ("201")
// or a class ("2xx").
type RequestMatch struct {
	Method string `json:"method,omitempty"`
	URL    string `json:"url"`
	Status string `json:"status,omitempty"`
}

// Kind returns the kind of p, or "" when none or several are set.
func (p *Predicate) Kind() string {
	kinds := p.kinds()
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

func (p *Predicate) kinds() []string {
	var kinds []string
	if p.URLMatches != "" {
		kinds = append(kinds, PredURLMatches)
	}
	if p.TitleMatches != "" {
		kinds = append(kinds, PredTitleMatches)
	}
	if p.Visible != "" {
		kinds = append(kinds, PredVisible)
	}
	if p.Hidden != "" {
		kinds = append(kinds, PredHidden)
	}
	if p.Text != nil {
		kinds = append(kinds, PredText)
	}
	if p.Value != nil {
		kinds = append(kinds, PredValue)
	}
	if p.Count != nil {
		kinds = append(kinds, PredCount)
	}
	if p.RequestSeen != nil {
		kinds = append(kinds, PredRequestSeen)
	}
	if p.JS != "" {
		kinds = append(kinds, PredJS)
	}
	if p.All != nil {
		kinds = append(kinds, PredAll)
	}
	if p.Any != nil {
		kinds = append(kinds, PredAny)
	}
	if p.Not != nil {
		kinds = append(kinds, PredNot)
	}
	return kinds
}

// FieldError locates a problem inside a predicate: Path is relative to the
// predicate ("text.matches", "all[2].url_matches").
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Validate checks the predicate recursively: exactly one kind, compilable
// regular expressions, selectors where needed, sane bounds.
func (p *Predicate) Validate() error {
	return p.validate("")
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func (p *Predicate) validate(path string) error {
	kind := p.Kind()
	if kind == "" {
		if ks := p.kinds(); len(ks) > 1 {
			return &FieldError{Path: path, Msg: fmt.Sprintf("a predicate has exactly one kind, found %s", strings.Join(ks, " and "))}
		}
		return &FieldError{Path: path, Msg: fmt.Sprintf("a predicate needs one of %s", strings.Join(Kinds, ", "))}
	}
	if p.Weight < 0 {
		return &FieldError{Path: join(path, "weight"), Msg: "weight must not be negative"}
	}
	re := func(field, expr string) error {
		if _, err := compile(expr); err != nil {
			return &FieldError{Path: join(path, field), Msg: fmt.Sprintf("bad regular expression: %v", err)}
		}
		return nil
	}
	switch kind {
	case PredURLMatches:
		return re(PredURLMatches, p.URLMatches)
	case PredTitleMatches:
		return re(PredTitleMatches, p.TitleMatches)
	case PredText, PredValue:
		m := p.Text
		if kind == PredValue {
			m = p.Value
			if m.Selector == "" {
				return &FieldError{Path: join(path, "value.selector"), Msg: "a value predicate needs a selector"}
			}
		}
		n := 0
		for _, s := range []string{m.Equals, m.Contains, m.Matches} {
			if s != "" {
				n++
			}
		}
		if n > 1 {
			return &FieldError{Path: join(path, kind), Msg: "set only one of equals, contains, matches"}
		}
		if n == 0 && kind == PredText && m.Selector == "" {
			return &FieldError{Path: join(path, kind), Msg: "a text predicate needs a selector or one of equals, contains, matches"}
		}
		if m.Matches != "" {
			return re(kind+".matches", m.Matches)
		}
	case PredCount:
		if p.Count.Selector == "" {
			return &FieldError{Path: join(path, "count.selector"), Msg: "a count predicate needs a selector"}
		}
		if p.Count.Min != nil && p.Count.Max != nil && *p.Count.Min > *p.Count.Max {
			return &FieldError{Path: join(path, "count"), Msg: "min is greater than max"}
		}
	case PredRequestSeen:
		if p.RequestSeen.URL == "" {
			return &FieldError{Path: join(path, "request_seen.url"), Msg: "request_seen needs a url pattern"}
		}
		if err := re("request_seen.url", p.RequestSeen.URL); err != nil {
			return err
		}
		if s := p.RequestSeen.Status; s != "" && !validStatus(s) {
			return &FieldError{Path: join(path, "request_seen.status"), Msg: fmt.Sprintf("status %q is not a code (201) or a class (2xx)", s)}
		}
	case PredAll, PredAny:
		list := p.All
		if kind == PredAny {
			list = p.Any
		}
		if len(list) == 0 {
			return &FieldError{Path: join(path, kind), Msg: "needs at least one predicate"}
		}
		for i := range list {
			if err := list[i].validate(fmt.Sprintf("%s[%d]", join(path, kind), i)); err != nil {
				return err
			}
		}
	case PredNot:
		return p.Not.validate(join(path, PredNot))
	}
	return nil
}

func validStatus(s string) bool {
	if len(s) == 3 && s[1:] == "xx" && s[0] >= '1' && s[0] <= '5' {
		return true
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 100 && n <= 599
}

var reCache sync.Map // string -> *regexp.Regexp

func compile(expr string) (*regexp.Regexp, error) {
	if v, ok := reCache.Load(expr); ok {
		return v.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	reCache.Store(expr, re)
	return re, nil
}

// MatchString reports whether the regular expression expr matches s; an
// invalid expression never matches.
func MatchString(expr, s string) bool {
	re, err := compile(expr)
	return err == nil && re.MatchString(s)
}
