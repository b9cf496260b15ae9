package orchestrator

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// Explain tells, in a few lines, why a branch ended as it did, from a
// run's events: where it was forked from and why, which predicates its
// actions flipped and the credit they earned, the prune rule that cut it
// with the rule's numbers, or its place in the winner ranking with every
// candidate's scores. es is the whole run (the ranking is a run event).
func Explain(es []eventlog.Event, branchID string) []string {
	short := eventlog.ShortID
	out := []string{"why " + short(branchID) + ":"}
	ended := false
	var children []string
	for _, e := range es {
		var p map[string]any
		if len(e.Payload) > 0 && json.Unmarshal(e.Payload, &p) != nil {
			continue
		}
		if e.Kind == eventlog.KindBranchFork && e.BranchID != branchID && p["parent"] == branchID {
			children = append(children, short(e.BranchID))
		}
		switch {
		case e.Kind == eventlog.KindBranchFork && e.BranchID == branchID:
			line := "  forked"
			if parent, _ := p["parent"].(string); parent != "" {
				line += " from " + short(parent)
			}
			line += fmt.Sprintf(" to %v", p["action"])
			if r, _ := p["reason"].(string); r != "" {
				line += " (" + r + ")"
			}
			out = append(out, line)
		case e.Kind == eventlog.KindMetricUpdate && e.BranchID == branchID:
			score, _ := p["score"].(map[string]any)
			line := fmt.Sprintf("  after %v: J %s, progress %s", p["action"], num(score["j"]), num(score["progress"]))
			if flips := flipList(p["flips"]); flips != "" {
				line += ", flipped " + flips + ", credit " + num(p["credit"])
			} else {
				line += ", no predicate flipped"
			}
			out = append(out, line)
		case e.Kind == eventlog.KindBranchPruned && e.BranchID == branchID:
			ended = true
			detail, _ := p["detail"].(map[string]any)
			out = append(out, fmt.Sprintf("  pruned by %v at J %s, progress %s: %s", p["rule"], num(p["j"]), num(p["progress"]), pairs(detail)))
		case e.Kind == "winner":
			ranking, _ := p["ranking"].([]any)
			pos := -1
			for i, r := range ranking {
				if m, _ := r.(map[string]any); m["branch_id"] == branchID {
					pos = i
				}
			}
			if pos < 0 {
				continue
			}
			ended = true
			verdict := "won"
			if pos > 0 {
				verdict = fmt.Sprintf("reached the boundary, ranked %d of %d", pos+1, len(ranking))
			}
			out = append(out, fmt.Sprintf("  %s; order: %v", verdict, p["order"]))
			out = append(out, "       branch      J          progress  confidence  risk  cost  steps  dominated by")
			for i, r := range ranking {
				m, _ := r.(map[string]any)
				mark := " "
				if m["branch_id"] == branchID {
					mark = "*"
				}
				dom, _ := m["dominated_by"].(string)
				if dom != "" {
					dom = short(dom)
				}
				id, _ := m["branch_id"].(string)
				out = append(out, strings.TrimRight(fmt.Sprintf("   %s %2d %-10s  %-9s  %-8s  %-10s  %-4s  %-4s  %-5s  %s", mark, i+1, short(id),
					num(m["j"]), num(m["progress"]), num(m["confidence"]), num(m["risk"]), num(m["cost"]), num(m["steps"]), dom), " "))
			}
		}
	}
	switch {
	case !ended && len(children) > 0:
		out = append(out, fmt.Sprintf("  expanded: its plan goes on in %d children (%s)", len(children), strings.Join(children, ", ")))
	case !ended:
		out = append(out, "  neither pruned nor ranked: the run ended (budget, a winner elsewhere, or an error) while it was open")
	}
	return out
}

// num prints a JSON number compactly (3 decimals at most).
func num(v any) string {
	f, ok := v.(float64)
	if !ok {
		return fmt.Sprint(v)
	}
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// flipList renders contrastive deltas as "name→true, other→false".
func flipList(v any) string {
	fs, _ := v.([]any)
	var parts []string
	for _, f := range fs {
		m, _ := f.(map[string]any)
		parts = append(parts, fmt.Sprintf("%v→%v", m["predicate"], m["to"]))
	}
	return strings.Join(parts, ", ")
}

// pairs renders a prune rule's numbers as sorted key=value pairs; branch
// ids are shortened.
func pairs(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		var s string
		switch x := v.(type) {
		case string:
			s = x
			if k == "same_as" || strings.HasSuffix(k, "_branch") {
				s = eventlog.ShortID(x)
			} else if len(s) > 16 && strings.HasSuffix(k, "hash") {
				s = s[:12] + "…"
			}
		case []any:
			items := make([]string, len(x))
			for i, it := range x {
				items[i] = fmt.Sprint(it)
			}
			s = "[" + strings.Join(items, ", ") + "]"
		default:
			s = num(v)
		}
		parts = append(parts, k+"="+s)
	}
	if len(parts) == 0 {
		return "no details"
	}
	return strings.Join(parts, " ")
}
