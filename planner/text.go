package planner

import (
	"strings"
)

var stopwords = words.Stopwords.set()

// tokens splits text into folded (Words), stemmed words without
// stopwords: the goal's words and an element's name meet by the one
// normalization of the planner, Fold, then stem.
func tokens(s string) []string {
	f := Words(s)
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
// "recent", "adding" and "add". With Fold before it (tokens, Match) it is
// the one word normalization of the planner: goal words, element names
// and the lexicon all go through it.
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
