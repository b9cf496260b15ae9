package explain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Branch tells, in a few lines, why a branch ended as it did, from a
// run's events: where it was forked from and why, which predicates its
// actions flipped and the credit they earned, the prune rule that cut it
// with the rule's numbers, or its place in the winner ranking with every
// candidate's scores. es is the whole run (the ranking is a run event).
func Branch(es []eventlog.Event, branchID string) []string {
	short := eventlog.ShortID
	out := []string{"why " + short(branchID) + ":"}
	ended := false
	var children []string
	for _, e := range es {
		switch {
		case e.Kind == eventlog.KindBranchFork:
			f, err := payload.Decode[payload.BranchFork](e)
			switch {
			case err != nil:
			case e.BranchID != branchID && f.Parent == branchID:
				children = append(children, short(e.BranchID))
			case e.BranchID == branchID:
				out = append(out, forkLine(f))
			}
		case e.Kind == eventlog.KindMetricUpdate && e.BranchID == branchID:
			if m, err := payload.Decode[payload.MetricUpdate](e); err == nil {
				out = append(out, metricLine(m))
			}
		case e.Kind == eventlog.KindBranchPruned && e.BranchID == branchID:
			if p, err := payload.Decode[payload.BranchPruned](e); err == nil {
				ended = true
				out = append(out, fmt.Sprintf("  pruned by %s at J %s, progress %s: %s", p.Rule, num(p.J), num(p.Progress), pairs(p.Detail)))
			}
		case e.Kind == eventlog.KindLLMResponse && e.BranchID == branchID:
			if r, err := payload.Decode[payload.LLMResponse](e); err == nil {
				out = append(out, modelLine(r))
			}
		case e.Kind == eventlog.KindWinner:
			if w, err := payload.Decode[payload.Winner](e); err == nil {
				if lines := rankingLines(w, branchID); lines != nil {
					ended = true
					out = append(out, lines...)
				}
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

// modelLine says what the model answered about the branch's page.
func modelLine(r payload.LLMResponse) string {
	from := "the model"
	if r.FromCassette {
		from += " (from the cassette)"
	}
	if r.Fallback != "" {
		return fmt.Sprintf("  asked %s for step %d; the heuristic's order stood: %s", from, r.Step, strings.TrimPrefix(r.Fallback, "heuristic order: "))
	}
	return fmt.Sprintf("  asked %s for step %d: it ranked %d candidates (%d tokens, cost %s)", from, r.Step, len(r.Ranking),
		r.PromptTokens+r.CompletionTokens, num(r.Cost))
}

func forkLine(f payload.BranchFork) string {
	line := "  forked"
	if f.Parent != "" {
		line += " from " + eventlog.ShortID(f.Parent)
	}
	line += " to " + f.Action
	if f.Reason != "" {
		line += " (" + f.Reason + ")"
	}
	return line
}

func metricLine(m payload.MetricUpdate) string {
	line := fmt.Sprintf("  after %s: J %s, progress %s", m.Action, num(m.Score.J), num(m.Score.Progress))
	if flips := flipList(m.Flips); flips != "" {
		return line + ", flipped " + flips + ", credit " + num(m.Credit)
	}
	return line + ", no predicate flipped"
}

// rankingLines places branchID in the winner ranking, nil when it is not
// ranked.
func rankingLines(w payload.Winner, branchID string) []string {
	short := eventlog.ShortID
	pos := -1
	for i, r := range w.Ranking {
		if r.BranchID == branchID {
			pos = i
		}
	}
	if pos < 0 {
		return nil
	}
	verdict := "won"
	if pos > 0 {
		verdict = fmt.Sprintf("reached the boundary, ranked %d of %d", pos+1, len(w.Ranking))
	}
	out := []string{fmt.Sprintf("  %s; order: %s", verdict, w.Order),
		"       branch      J          progress  confidence  risk  cost  steps  dominated by"}
	for i, r := range w.Ranking {
		mark := " "
		if r.BranchID == branchID {
			mark = "*"
		}
		dom := r.DominatedBy
		if dom != "" {
			dom = short(dom)
		}
		out = append(out, strings.TrimRight(fmt.Sprintf("   %s %2d %-10s  %-9s  %-8s  %-10s  %-4s  %-4s  %-5d  %s", mark, i+1, short(r.BranchID),
			num(r.J), num(r.Progress), num(r.Confidence), num(r.Risk), num(r.Cost), r.Steps, dom), " "))
	}
	return out
}

// num prints a number compactly (3 decimals at most).
func num(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// flipList renders contrastive deltas as "name→true, other→false".
func flipList(fs []scoring.Flip) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s→%t", f.Predicate, f.To))
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
		case float64:
			s = num(x)
		default:
			s = fmt.Sprint(v)
		}
		parts = append(parts, k+"="+s)
	}
	if len(parts) == 0 {
		return "no details"
	}
	return strings.Join(parts, " ")
}
