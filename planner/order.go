package planner

import (
	"unicode/utf8"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// The goal says its demands in an order: "tick Billing, Outages and
// Surveys, then save" asks for the ticks before the save, although only
// the save is a verb phrase. Each candidate that serves a part of the goal
// knows where that part stands in the text (Candidate.from): a step's
// phrase, a box whose label the goal holds, a value the goal states for a
// field. goalOrder keeps a step below whatever an earlier part of the goal
// still asks on the same page, so the search does the ticks and fills
// first and the save last, whatever either's own prior; what is already
// done is not offered, so the step comes up once nothing before it is left.

// where is the rune offset in the goal text of the words ws (folded), -1
// when the goal does not hold them: the first place all of them stand in
// a row, else the first of any of them.
func (g Goal) where(ws []string) int {
	if at := g.row(ws); at >= 0 || len(ws) == 0 {
		return at
	}
	for _, s := range g.spots {
		for _, w := range ws {
			if same(s.word, w) {
				return s.at
			}
		}
	}
	return -1
}

// row is the rune offset in the goal text where the words ws (folded)
// first stand in a row, -1 when they never do.
func (g Goal) row(ws []string) int {
	if len(ws) == 0 {
		return -1
	}
	for k := range g.spots {
		n := 0
		for n < len(ws) && k+n < len(g.spots) && same(g.spots[k+n].word, ws[n]) {
			n++
		}
		if n == len(ws) {
			return g.spots[k].at
		}
	}
	return -1
}

// same reports whether two folded words are one word (or share a stem).
func same(a, b string) bool { return a == b || stem(a) == stem(b) }

// runeAt converts a byte offset of the goal text to a rune offset.
func (g Goal) runeAt(byteOffset int) int {
	if byteOffset < 0 || byteOffset > len(g.text) {
		return -1
	}
	return utf8.RuneCountInString(g.text[:byteOffset])
}

// placed returns the from of a candidate serving the part of the goal at
// rune offset at (-1 for none).
func placed(at int) int { return at + 1 }

// placeControls places each click the goal names word for word, where no
// phrase does ("Job title: Manager. Save changes."): the control's whole
// name in the goal is a step said there.
func (g Goal) placeControls(out []Candidate) {
	for i := range out {
		c := &out[i]
		if c.from != 0 || c.Action.Kind != branch.KindClick || c.Action.Target == nil {
			continue
		}
		if at := g.row(Words(c.Action.Target.Name)); at >= 0 {
			c.from, c.phrase = placed(at), true
		}
	}
}

// goalOrder caps each step of the goal (a Named candidate of a phrase)
// below every candidate of an earlier part of the goal that is still
// to do on this page: the goal's own order, across phrases, named boxes
// and stated values.
func (wt *Weights) goalOrder(out []Candidate) {
	var earlier []Candidate // the placed candidates of no phrase: boxes, values, counts
	for _, e := range out {
		if e.from != 0 && !e.phrase {
			earlier = append(earlier, e)
		}
	}
	if len(earlier) == 0 {
		return
	}
	for i := range out {
		c := &out[i]
		if !c.phrase || c.from == 0 {
			continue
		}
		ceiling, found := 1.0, false
		for _, e := range earlier {
			if e.from < c.from {
				ceiling, found = min(ceiling, e.Prior), true
			}
		}
		if found && c.Prior > ceiling-wt.StepGap {
			c.Prior = max(0, ceiling-wt.StepGap)
			c.Reason += "; after what the goal asks before it"
		}
	}
}
