package planner

import (
	"strings"
	"unicode"
)

var stopwords = map[string]bool{"the": true, "a": true, "an": true, "for": true, "with": true, "and": true,
	"to": true, "of": true, "in": true, "on": true, "at": true, "by": true, "our": true, "my": true, "your": true,
	"keep": true, "it": true, "is": true, "be": true, "this": true, "that": true, "from": true, "or": true,
	"company": true, "team's": true, "all": true}

// tokens splits text into lower-case stemmed words without stopwords.
func tokens(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := f[:0]
	for _, w := range f {
		if stopwords[w] || len(w) < 2 {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem folds common English suffixes so "plans" matches "plan".
func stem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses"):
		return w[:len(w)-1]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// lexicon scores words by how they usually relate to completing a
// purchase or form flow: positive words lead forward, negative ones lead
// away (docs, careers, legal pages).
var lexicon = map[string]float64{
	"pricing": 0.8, "price": 0.6, "plan": 0.5, "checkout": 0.9, "buy": 0.5, "subscribe": 0.5,
	"continue": 0.7, "review": 0.6, "next": 0.5, "cart": 0.6, "upgrade": 0.4, "choose": 0.5,
	"select": 0.3, "proceed": 0.6, "order": 0.2, "start": 0.05, "get": 0.05, "search": 0.1,
	"doc": -0.1, "documentation": -0.2, "blog": -0.7, "career": -0.8, "job": -0.7, "statu": -0.6, "status": -0.6,
	"support": -0.3, "help": -0.4, "privacy": -0.8, "term": -0.7,
	"legal": -0.8, "cookie": -0.3, "login": -0.3, "sign": -0.2, "customer": -0.5, "about": -0.5,
	"trial": -0.3, "back": -0.4, "edit": -0.3, "home": -0.4, "logo": -0.4, "news": -0.6, "press": -0.6,
	"faq": -0.4, "api": -0.5, "guide": -0.5, "community": -0.6, "event": -0.6, "partner": -0.5,
	"accept": 0.1,
}

// stemmedLexicon is lexicon keyed by stems.
var stemmedLexicon = func() map[string]float64 {
	m := make(map[string]float64, len(lexicon))
	for k, v := range lexicon {
		m[stem(k)] = v
	}
	return m
}()
