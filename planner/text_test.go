package planner

import (
	"slices"
	"testing"
)

// TestTokensFoldLikeWords: tokens reads text the way Words does (NFKC,
// case folding, any script) before it stems and drops stopwords, so a
// goal word and an element name written in another width or case meet.
func TestTokensFoldLikeWords(t *testing.T) {
	cases := []struct{ a, b string }{
		{"Ｒｅｃｅｎｔ Ｃｈａｎｇｅｓ", "recently changed"}, // full-width letters
		{"STRASSE", "Straße"}, // ß folds to ss
		{"Ｓｉｇｎ ｉｎ", "sign in"},
		{"The Café's Orders", "cafés order"},
	}
	for _, c := range cases {
		if ta, tb := tokens(c.a), tokens(c.b); !slices.Equal(ta, tb) || len(ta) == 0 {
			t.Errorf("tokens(%q) = %q, tokens(%q) = %q: want the same words", c.a, ta, c.b, tb)
		}
	}
	// Stopwords and one-letter words go; every token is a stemmed word
	// of Words.
	got := tokens("Keep the 2nd item of my Orders list, x")
	want := []string{"2nd", "item", "order", "list"}
	if !slices.Equal(got, want) {
		t.Errorf("tokens = %q, want %q", got, want)
	}
}
