package gym

import (
	"fmt"
	"math/rand"
	"strings"
)

// Keyboard and native dialog families: a search box that only Enter
// submits, a popup that only Escape closes, and an export that a
// native confirm dialog guards.

// enterSearch: type a query into a box without a button and press Enter.
func enterSearch(r *rand.Rand) (string, string) {
	q := title(strings.Join(pick(r, lorem, 1+r.Intn(2)), " "))
	label := []string{"Search", "Find", "Filter", "Query"}[r.Intn(4)]
	typ := []string{"search", "text"}[r.Intn(2)]
	b := fmt.Sprintf(`<p>%s</p><label>%s <input type="%s" id="q" placeholder="%s…"></label><ul>%s</ul>
<script>
q.addEventListener('keydown', (e) => { if (e.key === 'Enter') verdict(q.value === '%s'); });
</script>`, strings.Join(pick(r, lorem, 10), " "), label, typ, label, items(r, 4), q)
	goals := []string{`Search for "%s".`, `Type "%s" into the %s box and press Enter.`, `Look for "%s" using the %s field.`}
	g := goals[r.Intn(len(goals))]
	if strings.Count(g, "%s") == 2 {
		return fmt.Sprintf(g, q, strings.ToLower(label)), b
	}
	return fmt.Sprintf(g, q), b
}

// items is a list of n lorem items.
func items(r *rand.Rand, n int) string {
	var b strings.Builder
	for _, w := range pick(r, lorem, n) {
		fmt.Fprintf(&b, "<li>%s</li>", title(w))
	}
	return b.String()
}

// escapePopup: a popup without a close button covers the page; Escape
// closes it, then the named button is pressed.
func escapePopup(r *rand.Rand) (string, string) {
	btns := codes(r, 3)
	want := btns[r.Intn(len(btns))]
	offer := []string{"Subscribe", "Sign up", "Join now"}[r.Intn(3)]
	var b strings.Builder
	for _, l := range btns {
		fmt.Fprintf(&b, `<button type="button" style="margin:%dpx" onclick="verdict(%t)">%s</button>`, r.Intn(20), l == want, l)
	}
	fmt.Fprintf(&b, `<div role="dialog" aria-modal="true" aria-label="%s" id="pop" style="position:fixed;inset:15%% 10%%;background:#fff;border:2px solid #333;padding:12px">
<p>%s</p><button type="button" onclick="verdict(false)">%s</button></div>
<script>
document.addEventListener('keydown', (e) => { if (e.key === 'Escape') pop.remove(); });
</script>`, []string{"Newsletter", "Offer", "News"}[r.Intn(3)], strings.Join(pick(r, lorem, 12), " "), offer)
	goals := []string{"Close the popup, then click %s.", "Get rid of the popup and press %s.", "Dismiss the overlay and click the %s button."}
	return fmt.Sprintf(goals[r.Intn(len(goals))], want), b.String()
}

// confirmExport: export a named report; the site asks for confirmation
// in a native confirm dialog, which must be accepted.
func confirmExport(r *rand.Rand) (string, string) {
	names := pick(r, lorem, 3+r.Intn(3))
	ext := []string{".txt", ".pdf", ".csv"}[r.Intn(3)]
	want := names[r.Intn(len(names))] + ext
	act := []string{"Export", "Share", "Print"}[r.Intn(3)]
	var b strings.Builder
	b.WriteString(`<ul>`)
	for _, n := range names {
		fmt.Fprintf(&b, `<li>%s%s <button type="button" onclick="if (confirm('%s %s%s now?')) verdict(%t)">%s</button></li>`,
			n, ext, act, n, ext, n+ext == want, act)
	}
	b.WriteString(`</ul>`)
	goals := []string{"%s the report %s.", "%s %s from the list.", "Please %s %s and confirm."}
	g := goals[r.Intn(len(goals))]
	verb := act
	if strings.HasPrefix(g, "Please") {
		verb = strings.ToLower(act)
	}
	return fmt.Sprintf(g, verb, want), b.String()
}
