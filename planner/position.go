package planner

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Picking by position. "The first post in the list", "the 3rd result",
// "the most recent message" name an element by where it stands among
// its peers, not by its words: the items of a list are told apart by
// their titles, which the goal does not know. The page's lists are read
// from the structure every list, table and feed shares: controls of one
// kind whose paths differ only in the position of one ancestor among its
// siblings (the rows, items or cards).

// Weights of picking by position: a list's fit starts at positionBase,
// gains positionNamed times how well the target's remaining words name
// its items, positionMain in the main region and positionLength per item
// (up to ten); the positionLists best lists are picked from, each next
// one positionStep lower, and the other end of a list that may run
// either way at positionOtherEnd of its first. A list whose items are all
// named alike (a row's "Edit") loses positionAlike.
const (
	positionBase     = 0.2
	positionNamed    = 0.5
	positionMain     = 0.1
	positionLength   = 0.02
	positionLists    = 2
	positionStep     = 0.25
	positionOtherEnd = 0.9
	positionAlike    = 0.15
)

// recordDigits are the digits of a record's id in an element id.
var recordDigits = regexp.MustCompile(`[0-9]+`)

// listOf is a list of the page: the affordance indexes of its items, in
// document order.
type listOf struct {
	key   string
	items []int
}

// pageLists groups the affordances into lists of at least two items. An
// affordance belongs to the largest list it can be read into (a link in
// a table cell is an item of its column rather than of its row, when the
// table has more rows than columns).
func pageLists(obs *branch.Observation) []listOf {
	groups := map[string][]int{}
	keys := make([][]string, len(obs.Affordances))
	for i, a := range obs.Affordances {
		if a.Region == branch.RegionObscured || a.Target.CSS == "" || strings.Contains(a.Target.CSS, " >> ") {
			continue
		}
		parts := strings.Split(a.Target.CSS, " > ")
		for j, p := range parts {
			gen := ""
			if at := strings.Index(p, ":nth-of-type("); at >= 0 {
				gen = p[:at] + ":nth-of-type(*)"
			} else if j < len(parts)-1 && strings.HasPrefix(p, "#") && strings.ContainsAny(p, "0123456789") {
				// A row named by its record ("#post-141"): rows differ
				// in the number.
				gen = recordDigits.ReplaceAllString(p, "#")
			}
			if gen == "" {
				continue
			}
			g := make([]string, len(parts))
			copy(g, parts)
			g[j] = gen
			k := string(a.Kind) + "|" + strings.Join(g, " > ")
			groups[k] = append(groups[k], i)
			keys[i] = append(keys[i], k)
		}
	}
	best := make([]string, len(obs.Affordances))
	for i, ks := range keys {
		for _, k := range ks {
			if n, b := len(groups[k]), len(groups[best[i]]); n > b || n == b && n > 0 && k > best[i] {
				best[i] = k
			}
		}
	}
	members := map[string][]int{}
	for i, k := range best {
		if k != "" && len(groups[k]) >= 2 {
			members[k] = append(members[k], i)
		}
	}
	var out []listOf
	for k, items := range members {
		if len(items) >= 2 {
			out = append(out, listOf{key: k, items: items})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].items[0] < out[j].items[0] })
	return out
}

// recencyWords say that the goal picks by age: +1 the newest, -1 the
// oldest. "Most" before them is a word of the phrase, not of the name.
var recencyWords = words.RecencyWords.Words

// recency splits a target into how it picks by age (0 for none) and the
// words that name the element.
func recency(target []string) (int, []string) {
	dir := 0
	var rest []string
	for _, w := range target {
		if d, ok := recencyWords[w]; ok {
			dir = d
			continue
		}
		if w == "most" {
			continue
		}
		rest = append(rest, w)
	}
	if dir == 0 {
		return 0, target
	}
	return dir, rest
}

// listFit scores how well a list answers a phrase that picks by
// position: its items fit the verb and the role, the words that remain
// of the target name its items or their neighbourhood (a "post" of a
// list under the heading "Posts"), and a longer list in the main region
// is more likely the one meant.
func listFit(obs *branch.Observation, l listOf, st Step, words []string) float64 {
	a := obs.Affordances[l.items[0]]
	// "The first post in the list": the role noun names the list, not
	// the item.
	inList := slices.Contains(st.Target, "list")
	if verbFits(st.Verb, a.Kind) == 0 || roleFits(st.Role, a.Kind) == 0 && !inList {
		return 0
	}
	fit := positionBase
	for _, i := range l.items {
		it := obs.Affordances[i]
		fit = max(fit, positionBase+positionNamed*max(Match(words, it.Target.Name), Match(words, it.Target.Near)))
	}
	if a.Region == branch.RegionMain {
		fit += positionMain
	}
	if sameNames(obs, l) && Match(words, a.Target.Name) == 0 {
		// Every item is named alike (a row's "Edit"): actions on the
		// items, not the items an ordinal counts.
		fit -= positionAlike
	}
	return fit + positionLength*float64(min(len(l.items), 10))
}

// byPosition picks, for a phrase that names its element by position (an
// ordinal, or recency) when no element's words do, the item at that
// position of the lists that fit it best: the Nth item, the last one,
// or, for the newest and the oldest, both ends of the list (a list may
// run either way; the predicates tell which one the goal meant).
func byPosition(obs *branch.Observation, st Step, dir int, words []string) map[int]float64 {
	lists := pageLists(obs)
	fits := make([]float64, len(lists))
	for i, l := range lists {
		fits[i] = listFit(obs, l, st, words)
	}
	order := make([]int, len(lists))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return fits[order[x]] > fits[order[y]] })
	picked := map[int]float64{}
	for rank, li := range order {
		if rank >= positionLists || fits[li] == 0 {
			break
		}
		items := lists[li].items
		m := fallbackMatch * (1 - positionStep*float64(rank))
		switch {
		case dir != 0:
			if at, ok := byDate(obs, items, dir); ok {
				picked[at] = m // the items say when: no guess at the list's order
				continue
			}
			first, last := items[0], items[len(items)-1]
			if dir < 0 {
				first, last = last, first
			}
			picked[first] = m
			picked[last] = max(picked[last], m*positionOtherEnd)
		case st.Ordinal > 0 && st.Ordinal <= len(items):
			picked[items[st.Ordinal-1]] = m
		case st.Ordinal < 0 && -st.Ordinal <= len(items):
			picked[items[len(items)+st.Ordinal]] = m
		}
	}
	return picked
}

// sameNames reports whether every item of a list has the same name.
func sameNames(obs *branch.Observation, l listOf) bool {
	first := Fold(obs.Affordances[l.items[0]].Target.Name)
	for _, i := range l.items[1:] {
		if Fold(obs.Affordances[i].Target.Name) != first {
			return false
		}
	}
	return true
}

// spansLists reports whether the affordances stand in more than one of
// the page's lists.
func spansLists(obs *branch.Observation, idx []int) bool {
	of := map[int]string{}
	for _, l := range pageLists(obs) {
		for _, i := range l.items {
			of[i] = l.key
		}
	}
	seen := ""
	for _, i := range idx {
		k, ok := of[i]
		if !ok {
			continue
		}
		if seen != "" && k != seen {
			return true
		}
		seen = k
	}
	return false
}

// byDate picks the newest (dir 1) or oldest (dir -1) of a list's items by
// the dates their text or neighbourhood shows ("Posted 2026-03-02", "Mar
// 2, 2026"), when at least two items show a full date.
func byDate(obs *branch.Observation, items []int, dir int) (int, bool) {
	best, at, dated := "", -1, 0
	for _, i := range items {
		a := obs.Affordances[i]
		d := ""
		for _, v := range ExtractValues(a.Target.Name + " · " + a.Target.Near) {
			if (v.Kind == ValueDate || v.Kind == ValueDateTime) && v.Reading == 0 && !strings.HasPrefix(v.Norm, "--") && len(v.Norm) >= 10 {
				d = v.Norm
				break
			}
		}
		if d == "" {
			continue
		}
		dated++
		if at < 0 || dir > 0 && d > best || dir < 0 && d < best {
			best, at = d, i
		}
	}
	return at, dated >= 2
}
