package gym

import (
	"fmt"
	"math/rand"
	"strings"
)

// Pattern families were written after the split (split.go) from widget
// patterns real sites use, not from what the planner could do: a file
// explorer without roles behind one delegated listener, a suggestion
// list of plain items, an icon-only toolbar, a feed with a "more" menu
// per item, fields labelled by a neighbouring element, a jQuery UI-style
// date picker, native date and time inputs, a range and an ARIA slider,
// a spin button, a WordPress-style admin with flyout menus, posts sorted
// by date, an inbox, nested menus read as a path, a form refused with an
// error notice, a flight search, twelve checkboxes, user groups,
// scripted links, a page found only through the site's own search and
// a value copied from a list into a form.
//
// Each states its goal in one of at least three seeded phrasings, with
// values written as people write them (unquoted in most). A page grades
// itself: a completed wrong attempt a person could see as wrong (the
// wrong record opened, a wrong change made, values the site rejects as
// wrong) shows the failure verdict; exploring (opening a menu, expanding
// a folder, pointing at a row) never does, and a form the site refuses
// for a missing field shows the site's notice and lets the person retry.

var patterns = map[string]func(r *rand.Rand) spec{
	// composite.go
	"file-explorer":  fileExplorer,
	"suggest-list":   suggestList,
	"icon-toolbar":   iconToolbar,
	"feed-menu":      feedMenu,
	"nested-menu":    nestedMenu,
	"scripted-links": scriptedLinks,
	// fields.go
	"side-labels":      sideLabels,
	"date-picker":      datePicker,
	"date-time-native": dateTimeNative,
	"slider":           slider,
	"spin-button":      spinButton,
	"checkbox-dozen":   checkboxDozen,
	"user-groups":      userGroups,
	// admin.go
	"wp-admin":      wpAdmin,
	"posts-by-date": postsByDate,
	"inbox":         inbox,
	"refused-form":  refusedForm,
	"flight-search": flightSearch,
	"site-search":   siteSearch,
	// lookup.go
	"copy-value": copyValue,
}

// spec is what a pattern family renders for a seed.
type spec struct {
	goal, body string
	// phrasing is the goal template chosen, of phrasings.
	phrasing, phrasings int
	// solve is what a person does; wrong a completed wrong attempt that
	// shows the failure verdict (nil where the family has none).
	solve, wrong []step
}

// step is one explicit action of a person, in the vocabulary of
// branch.Action: kind is its Kind ("click", "type", "key_press",
// "hover", "select", "check", "focus"), css a Playwright CSS selector
// naming exactly one visible element ("" with key_press: the keyboard),
// value the text, key or option.
type step struct{ kind, css, value string }

func click(css string) step     { return step{"click", css, ""} }
func fill(css, v string) step   { return step{"type", css, v} }
func hover(css string) step     { return step{"hover", css, ""} }
func tick(css string) step      { return step{"check", css, "true"} }
func key(css, k string) step    { return step{"key_press", css, k} }
func choose(css, v string) step { return step{"select", css, v} }
func repeat(n int, s step) []step {
	out := make([]step, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, s)
	}
	return out
}

// phrase sets the goal from one of the templates, chosen by the seed;
// templates use explicit argument indexes (%[1]s), so each may use any
// of args.
func (sp *spec) phrase(r *rand.Rand, templates []string, args ...any) {
	sp.phrasing, sp.phrasings = r.Intn(len(templates)), len(templates)
	sp.goal = fmt.Sprintf(templates[sp.phrasing], args...)
}

// oneOf is one of the words, by the seed.
func oneOf(r *rand.Rand, words ...string) string { return words[r.Intn(len(words))] }

// listed joins words as people list them: "a, b and c".
func listed(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// jsString is s as a single-quoted JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "<", `\x3c`).Replace(s) + "'"
}

// jsList is a JavaScript array of strings.
func jsList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = jsString(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// notice is the script of a site's error banner: fail(msg) shows msg
// above the content the way the family's site does (role=alert on some
// seeds only: many real notices carry no role).
func notice(r *rand.Rand) string {
	role := ""
	if r.Intn(2) == 0 {
		role = ` e.setAttribute('role', 'alert');`
	}
	cls := oneOf(r, "notice notice-error", "alert alert-danger", "flash flash-error", "error-summary")
	return fmt.Sprintf(`<script>
function siteError(msg) {
  let e = document.querySelector('.site-error');
  if (!e) { e = document.createElement('div'); e.className = 'site-error %s';%s e.style.cssText = 'border-left:4px solid #d63638;background:#fcf0f1;padding:6px 10px;margin:6px 0'; document.body.prepend(e); }
  e.textContent = msg;
}
</script>`, cls, role)
}
