package orchestrator

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Speculation holds every request that can change the site. The run
// reports what it held, so a user can allow a harmless one (a search
// form posted) in explore.allow, and the branches whose own action asked
// for one: side-effect boundaries. A task without commit whose search
// ends at such a boundary, its goal not reached, stops with
// ErrSideEffect and says how to write the commit section for it.

// HeldSummary is one request speculation held, over the whole run.
type HeldSummary struct {
	Method string `json:"method"`
	Origin string `json:"origin"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Branches counts the branches that held it; Caused those whose own
	// action asked for it (the others' pages sent it on their own).
	Branches int `json:"branches"`
	Caused   int `json:"caused"`
	// Allow is the line that lets it out: an explore.allow entry, or
	// for a navigation off the site an explore.origins entry.
	Allow string `json:"allow"`
}

// SideEffectSummary is a side-effect boundary branches stopped at: an
// action and the request it would have sent.
type SideEffectSummary struct {
	BranchID string   `json:"branch_id"`
	Action   string   `json:"action"`
	Request  string   `json:"request"`
	Fields   []string `json:"fields,omitempty"`
	// GoalMatch says the request's path or fields share a word with the
	// goal: plausibly the submission the goal asks for.
	GoalMatch bool `json:"goal_match"`
	// Branches counts the branches that stopped at the same action and
	// request (BranchID names the best of them).
	Branches int `json:"branches"`
	// Commit is a commit section for the task that would make this
	// request its one side effect (a draft: the boundary, intent and
	// confirmation need the user's eye).
	Commit string `json:"commit_section,omitempty"`
}

// maxSideEffects bounds how many side-effect boundaries the summary lists.
const maxSideEffects = 5

// summarizeHeld fills the summary's held requests and side-effect
// boundaries from the results and the search.
func (r *run) summarizeHeld(search *planner.Search) {
	byKey := map[string]*HeldSummary{}
	for _, res := range r.results {
		seen := map[string]bool{}
		for _, h := range res.Held {
			k := h.Method + " " + h.Origin + h.Path + " " + h.Reason
			s := byKey[k]
			if s == nil {
				s = &HeldSummary{Method: h.Method, Origin: h.Origin, Path: h.Path, Reason: h.Reason, Allow: allowLine(h)}
				byKey[k] = s
			}
			if !seen[k] {
				s.Branches++
				seen[k] = true
			}
			if h.Caused {
				s.Caused++
			}
		}
	}
	r.sum.Held = r.sum.Held[:0]
	for _, s := range byKey {
		r.sum.Held = append(r.sum.Held, *s)
	}
	sort.Slice(r.sum.Held, func(i, j int) bool {
		a, b := r.sum.Held[i], r.sum.Held[j]
		if a.Branches != b.Branches {
			return a.Branches > b.Branches
		}
		return a.Method+a.Origin+a.Path < b.Method+b.Origin+b.Path
	})
	r.sum.SideEffects = nil
	byKind := map[string]int{} // action and request -> index in SideEffects
	for _, e := range search.Effects() {
		k := e.Node.Action().Describe() + "\x00" + e.Held.Describe()
		if i, ok := byKind[k]; ok {
			r.sum.SideEffects[i].Branches++
			continue
		}
		if len(r.sum.SideEffects) == maxSideEffects {
			continue
		}
		byKind[k] = len(r.sum.SideEffects)
		// The action and the draft may quote a typed value: scrubbed.
		r.sum.SideEffects = append(r.sum.SideEffects, SideEffectSummary{BranchID: e.Node.ID, Action: r.sc.Text(e.Node.Action().Describe()),
			Request: e.Held.Describe(), Fields: e.Held.Fields, GoalMatch: e.GoalMatch, Branches: 1, Commit: r.sc.Text(commitDraft(r.t, e))})
	}
}

// allowLine is the task line that would let a held request out.
func allowLine(h branch.Held) string {
	if h.Reason == branch.HeldOffOrigin {
		return "explore: {origins: [" + h.Origin + "]}"
	}
	return fmt.Sprintf("explore: {allow: [{method: %s, url: '^%s$'}]}", h.Method, regexp.QuoteMeta(h.Path))
}

// commitDraft is a commit section that would make the boundary's request
// the task's side effect: the page before the action is the boundary,
// the action the commit action, the request guarded.
func commitDraft(t *task.Task, e planner.Effect) string {
	n := e.Node
	boundary := "{url_matches: '^/'}"
	if p := n.Parent; p != nil && p.Outcome != nil && p.Outcome.Obs != nil {
		boundary = fmt.Sprintf("{url_matches: '%s'}", regexp.QuoteMeta(t.RelativeURL(p.Outcome.Obs.URL)))
		boundary = strings.Replace(boundary, "\\{origin\\}", "", 1)
	}
	var b strings.Builder
	b.WriteString("commit:\n")
	fmt.Fprintf(&b, "  boundary: %s\n", boundary)
	fmt.Fprintf(&b, "  site: %s\n", siteName(e.Held.Origin))
	fmt.Fprintf(&b, "  flow: %s\n", t.Name)
	fmt.Fprintf(&b, "  action: %s\n", task.FormatAction(n.Action()))
	b.WriteString("  idempotency: {header: Idempotency-Key}   # or {form_field: SELECTOR} of a hidden field the site keeps\n")
	fmt.Fprintf(&b, "  guard: [{method: %s, url: '^%s$'}]\n", e.Held.Method, regexp.QuoteMeta(e.Held.Path))
	b.WriteString("  confirm:\n    success: {visible: SELECTOR}   # what the page shows when it worked\n    refused: {visible: SELECTOR}   # an error notice\n    token: SELECTOR\n")
	return b.String()
}

// siteName is the host of an origin, for a commit section's site.
func siteName(origin string) string {
	if i := strings.Index(origin, "://"); i >= 0 {
		origin = origin[i+3:]
	}
	if origin == "" {
		return "my-site"
	}
	return origin
}
