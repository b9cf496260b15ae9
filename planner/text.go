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

// stem folds common English suffixes so that the forms of one word meet:
// "plans" and "plan", "changed", "changes" and "change", "recently" and
// "recent", "adding" and "add". It is the one word normalization of the
// planner: goal words, element names and the lexicon all go through it.
// Words of four letters or fewer stay as they are.
func stem(w string) string {
	if len(w) <= 4 {
		if len(w) > 3 {
			w = strings.TrimSuffix(strings.TrimSuffix(w, "s"), "e")
		}
		return w
	}
	w = unsuffix(w)
	if strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed") {
		w = unsuffix(w) // "settings" -> "setting" -> "sett"
	}
	w = strings.TrimSuffix(w, "e")
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1] // "stopped" -> "stopp" -> "stop"
	}
	return w
}

// unsuffix takes one inflectional suffix off a word, keeping at least
// three letters.
func unsuffix(w string) string {
	for _, suf := range []string{"ingly", "edly", "ing", "ies", "ed", "es", "ly", "s"} {
		if !strings.HasSuffix(w, suf) || len(w)-len(suf) < 3 {
			continue
		}
		switch {
		case suf == "s" && (strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is")):
			return w
		case suf == "es" && !strings.HasSuffix(w, "ches") && !strings.HasSuffix(w, "shes") && !strings.HasSuffix(w, "xes") &&
			!strings.HasSuffix(w, "sses") && !strings.HasSuffix(w, "zes"):
			return w[:len(w)-1] // "changes", "pages": the e belongs to the word
		case suf == "ies":
			return w[:len(w)-3] + "y"
		}
		return w[:len(w)-len(suf)]
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
