package rerun

import (
	"fmt"
	"io"
)

// Comparison sets a rerun's decisions beside the original run's.
type Comparison struct {
	Original int `json:"original"`
	Rerun    int `json:"rerun"`
	// Same holds when the two lists are the same decisions in the same
	// order; otherwise First is the index of the first that differs and
	// Want and Got are the two sides there (nil past the end of one).
	Same  bool      `json:"same"`
	First int       `json:"first"`
	Want  *Decision `json:"want,omitempty"`
	Got   *Decision `json:"got,omitempty"`
	// OnlyOriginal and OnlyRerun are the decisions one side made and the
	// other did not, whatever the order (a multiset difference).
	OnlyOriginal []Decision `json:"only_original,omitempty"`
	OnlyRerun    []Decision `json:"only_rerun,omitempty"`
	// WinnerOriginal and WinnerRerun are the winners' plan digests.
	WinnerOriginal string `json:"winner_original"`
	WinnerRerun    string `json:"winner_rerun"`
}

// Compare compares two decision lists.
func Compare(orig, re []Decision) Comparison {
	c := Comparison{Original: len(orig), Rerun: len(re), First: -1, WinnerOriginal: winnerOf(orig), WinnerRerun: winnerOf(re)}
	for i := 0; i < max(len(orig), len(re)); i++ {
		if i < len(orig) && i < len(re) && same(orig[i], re[i]) {
			continue
		}
		c.First = i
		if i < len(orig) {
			w := orig[i]
			c.Want = &w
		}
		if i < len(re) {
			g := re[i]
			c.Got = &g
		}
		break
	}
	c.Same = c.First < 0
	c.OnlyOriginal, c.OnlyRerun = minus(orig, re), minus(re, orig)
	return c
}

// minus is the decisions of a that b does not make, counting repeats (a
// multiset difference), in a's order.
func minus(a, b []Decision) []Decision {
	key := func(d Decision) string { return d.Kind + "\x00" + d.Plan + "\x00" + d.Parent + "\x00" + d.What }
	count := map[string]int{}
	for _, d := range b {
		count[key(d)]++
	}
	var out []Decision
	for _, d := range a {
		if count[key(d)] > 0 {
			count[key(d)]--
			continue
		}
		out = append(out, d)
	}
	return out
}

func winnerOf(ds []Decision) string {
	for _, d := range ds {
		if d.Kind == "winner" {
			return d.Plan
		}
	}
	return ""
}

// Print writes the comparison for a reader: the verdict, the first
// decision that differs, then up to limit decisions only one side made.
func (c Comparison) Print(w io.Writer, limit int) {
	if c.Same {
		fmt.Fprintf(w, "decisions  all %d the same, in the same order\n", c.Original)
	} else {
		fmt.Fprintf(w, "decisions  %d recorded, %d rerun; the first that differs is #%d\n", c.Original, c.Rerun, c.First+1)
		fmt.Fprintf(w, "  recorded  %s\n  rerun     %s\n", orNone(c.Want), orNone(c.Got))
	}
	switch {
	case c.WinnerOriginal == c.WinnerRerun && c.WinnerOriginal != "":
		fmt.Fprintf(w, "winner     the same: %s\n", short(c.WinnerOriginal))
	case c.WinnerOriginal == c.WinnerRerun:
		fmt.Fprintf(w, "winner     none on either side\n")
	default:
		fmt.Fprintf(w, "winner     recorded %s, rerun %s\n", orDash(short(c.WinnerOriginal)), orDash(short(c.WinnerRerun)))
	}
	list := func(title string, ds []Decision) {
		if len(ds) == 0 {
			return
		}
		// What the search chose (forks, prunes, questions, the winner)
		// before the scores that led there.
		var choices, scores []Decision
		for _, d := range ds {
			if d.Kind == "score" {
				scores = append(scores, d)
			} else {
				choices = append(choices, d)
			}
		}
		fmt.Fprintf(w, "%s: %d choices, %d scores\n", title, len(choices), len(scores))
		for i, d := range append(choices, scores...) {
			if i == limit {
				fmt.Fprintf(w, "  … %d more\n", len(ds)-limit)
				break
			}
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	list("only recorded", c.OnlyOriginal)
	list("only in the rerun", c.OnlyRerun)
}

func orNone(d *Decision) string {
	if d == nil {
		return "(none: the list ended)"
	}
	return d.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
