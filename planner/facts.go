package planner

import (
	"fmt"
	"slices"
	"sort"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Values read from the page. A type step may name its value by what the
// page states instead of spelling it: "enter the price of the Blue Widget
// into Amount", "find the year X was released and enter it in Year". When
// its reference names no task input, it is matched against the page's
// facts (branch.Fact: a table cell by its row and column, a definition, a
// "Label: value" line), and the values whose names it holds best are
// typed: one when one fact is named best, up to ValueBranches alike when
// several are (a table without headers names a row, not a cell), and the
// task's predicates decide.

// factShare is the least share of a fact's name the reference must hold.
const factShare = 0.5

// pageValue is a value the page states for a step, with the fact's name.
type pageValue struct {
	value, key string
}

// pageValues are the values the page states that a type step refers to,
// best first: none for a step that spells its value or refers to a task
// input.
func (p *Proposer) pageValues(obs *branch.Observation, st Step) []pageValue {
	if st.Verb != VerbType || st.Value != "" || len(st.Refers) == 0 || len(obs.Facts) == 0 {
		return nil
	}
	if _, ok := p.inputFor(st); ok {
		return nil
	}
	var ref []string
	for _, w := range st.Refers {
		if !stopwords[w] {
			ref = append(ref, w)
		}
	}
	type scored struct {
		pageValue
		share float64
		n, at int
	}
	var found []scored
	for i, f := range obs.Facts {
		var key []string
		for _, w := range Words(f.Key) {
			if !stopwords[w] {
				key = append(key, w)
			}
		}
		n := 0
		for _, w := range key {
			if slices.ContainsFunc(ref, func(r string) bool { return same(r, w) }) {
				n++
			}
		}
		if n == 0 || float64(n) < factShare*float64(len(key)) {
			continue
		}
		found = append(found, scored{pageValue{f.Value, f.Key}, float64(n) / float64(len(key)), n, i})
	}
	sort.SliceStable(found, func(x, y int) bool {
		a, b := found[x], found[y]
		if a.n != b.n {
			return a.n > b.n
		}
		return a.share > b.share
	})
	var out []pageValue
	seen := map[string]bool{}
	for _, f := range found {
		if f.n < found[0].n || f.share < found[0].share-tiedMatch || seen[f.value] {
			continue
		}
		seen[f.value] = true
		out = append(out, f.pageValue)
		if len(out) == p.w.ValueBranches {
			break
		}
	}
	return out
}

// stepVariants are the forms a step takes on this page: itself, or for
// a step whose value the page states, one step per value it may mean,
// the likeliest first, with the reason's note.
func (p *Proposer) stepVariants(obs *branch.Observation, st Step) ([]Step, []string) {
	vals := p.pageValues(obs, st)
	if len(vals) == 0 {
		return []Step{st}, []string{""}
	}
	steps := make([]Step, len(vals))
	notes := make([]string, len(vals))
	for n, v := range vals {
		steps[n] = st
		steps[n].Value, steps[n].Refers = v.value, nil
		notes[n] = fmt.Sprintf(" (the page states %q for %q)", v.value, v.key)
		if len(vals) > 1 {
			notes[n] += "; one of several values it may mean"
		}
	}
	return steps, notes
}
