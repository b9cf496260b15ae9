package replay

import (
	"fmt"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// explain describes the first divergence readably: which strict hash
// differed, the URL, and the first lines where the canonical DOM (or the
// accessibility snapshot) differs from the recording.
func explain(b *bundle.Bundle, step int, snap browser.Snapshot, sr StepReport, obsErr error) string {
	var w strings.Builder
	fmt.Fprintf(&w, "step %d (%s) diverged:", step, sr.Action)
	if obsErr != nil {
		fmt.Fprintf(&w, " the page could not be observed: %v\n", obsErr)
		return w.String()
	}
	var what []string
	if !sr.DOM {
		what = append(what, "DOM")
	}
	if !sr.AX {
		what = append(what, "accessibility tree")
	}
	if !sr.Net {
		what = append(what, "network")
	}
	if sr.Status != sr.Want {
		what = append(what, fmt.Sprintf("status %s (recorded %s, code %s)", sr.Status, sr.Want, sr.Code))
	}
	if sr.WantVia != "" && sr.Via != sr.WantVia {
		what = append(what, fmt.Sprintf("the way the value was set (recorded %q, replayed %q)", sr.WantVia, sr.Via))
	}
	fmt.Fprintf(&w, " %s differ\n", strings.Join(what, ", "))
	if sr.URL != sr.WantURL {
		fmt.Fprintf(&w, "  url: recorded %s, replayed %s\n", sr.WantURL, sr.URL)
	}
	if !sr.DOM {
		if rec, ok := b.Files[bundle.DOMPath(step)]; ok {
			w.WriteString(textDiff("DOM", splitDOM(string(rec)), splitDOM(snap.DOM)))
		}
	}
	if !sr.AX {
		if rec, ok := b.Files[bundle.AXPath(step)]; ok {
			w.WriteString(textDiff("accessibility tree", strings.Split(string(rec), "\n"), strings.Split(snap.AX, "\n")))
		}
	}
	return w.String()
}

// splitDOM breaks the one-line canonical DOM at element boundaries.
func splitDOM(s string) []string {
	parts := strings.SplitAfter(s, ">")
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// textDiff shows the first region where two line lists differ, with a
// little context, and how many lines differ in all.
func textDiff(what string, rec, got []string) string {
	i := 0
	for i < len(rec) && i < len(got) && rec[i] == got[i] {
		i++
	}
	// Trim the common tail.
	j, k := len(rec), len(got)
	for j > i && k > i && rec[j-1] == got[k-1] {
		j--
		k--
	}
	var w strings.Builder
	fmt.Fprintf(&w, "  %s: %d recorded lines replaced by %d, first at line %d\n", what, j-i, k-i, i+1)
	from := max(0, i-2)
	for n := from; n < i; n++ {
		fmt.Fprintf(&w, "      %s\n", clip(rec[n]))
	}
	for n := i; n < j && n < i+6; n++ {
		fmt.Fprintf(&w, "    - %s\n", clip(rec[n]))
	}
	for n := i; n < k && n < i+6; n++ {
		fmt.Fprintf(&w, "    + %s\n", clip(got[n]))
	}
	return w.String()
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:157] + "..."
	}
	return s
}
