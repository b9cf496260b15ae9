// Package gym serves small task pages, one per widget family a person
// meets on the web (a link inside text, tabs, checkboxes, radio buttons,
// password fields, a select list, the Nth text box, a dialog, an
// autocomplete, a login a popup interrupts, a file tree, buttons by name
// and in sequence, text and date fields, a login form, a collapsed
// section, a form in two steps, controls in a shadow root and in an
// iframe, a paginated list, a control that appears late, a search with
// results, a custom dropdown, a button inside a tab, a switch, a
// quantity, a comment box, a menu, a form inside a dialog, a table to
// look up), each with seeded variation of labels, order and position, and
// the goal text that asks for the task. Some families are ambiguous (see
// Ambiguous): several candidates look alike, and only trying tells the
// right one.
//
// Pattern families (patterns.go) were written after those from widget
// patterns real sites use, not from what the planner can do, each with
// at least three seeded goal phrasings and a test that solves it with
// explicit actions in Chromium.
//
// A third of all families are frozen evaluation families (Evaluation,
// Split; the rule in split.go is a hash of the name, so adding a family
// never moves another). The planner is never changed to pass an
// evaluation family: they are measured and reported, never asserted or
// debugged against.
//
// A page grades itself: when the person did what the goal asks it adds an
// element matching SuccessSelector; a wrong step adds one matching
// FailureSelector. Nothing outside this package knows the families.
package gym

import (
	"errors"
	"fmt"
	"hash/fnv"
	"html"
	"math/rand"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Selectors of the verdict a page shows.
const (
	SuccessSelector = `[data-gym="success"]`
	FailureSelector = `[data-gym="failure"]`
)

// ErrUnknownFamily is a family the gym does not serve.
var ErrUnknownFamily = errors.New("gym: unknown family")

// Episode is one task: a family's page for a seed and its goal.
type Episode struct {
	Family string
	Seed   int64
	// Goal is the goal text, as a task's goal.text.
	Goal string
	// Path is the page's URL path on the Handler.
	Path string
	html string
	// phrasing is the index of the goal template the seed chose, of
	// phrasings (0 for families with one template or none recorded).
	phrasing, phrasings int
	// solve is what a person does to reach the goal, wrong an attempt
	// that shows the failure verdict (nil where the family has none);
	// only this package's tests read them, to prove each page fair.
	solve, wrong []step
}

// family renders a page body and goal from a seeded generator.
type family func(r *rand.Rand) (goal, body string)

var families = map[string]family{
	"link-in-text": linkInText,
	"tabs":         tabs,
	"checkboxes":   checkboxes,
	"radio":        radio,
	"passwords":    passwords,
	"select":       selectList,
	"focus":        focusNth,
	"dialog":       dialog,
	"autocomplete": autocomplete,
	"login-popup":  loginPopup,
	"tree":         tree,
	// more.go
	"click-button":    clickButton,
	"button-sequence": buttonSequence,
	"enter-text":      enterText,
	"login-form":      loginForm,
	"accordion":       accordion,
	"enter-date":      enterDate,
	"two-step-form":   twoStepForm,
	"shadow-dom":      shadowButton,
	"iframe":          iframeButton,
	"pagination":      pagination,
	"late-button":     lateButton,
	"search-results":  searchResults,
	// widgets.go
	"custom-dropdown": customDropdown,
	"tab-then-button": tabThenButton,
	"switch":          toggleSwitch,
	"quantity":        quantity,
	"comment":         comment,
	"menu":            menu,
	"dialog-form":     dialogForm,
	"hover-menu":      hoverMenu,
	// ambiguous.go
	"mirrors": mirrors,
	"slots":   slots,
	"coupons": coupons,
	"sellers": sellers,
	"table":   table,
	// keys.go
	"enter-search":   enterSearch,
	"escape-popup":   escapePopup,
	"confirm-export": confirmExport,
}

// Families lists the family names, sorted.
func Families() []string {
	out := make([]string, 0, len(families)+len(patterns))
	for f := range families {
		out = append(out, f)
	}
	for f := range patterns {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// New builds the episode of a family for a seed; the same pair always
// gives the same page and goal.
func New(name string, seed int64) (Episode, error) {
	f, ok := families[name]
	p, isPattern := patterns[name]
	if !ok && !isPattern {
		return Episode{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownFamily, name, strings.Join(Families(), ", "))
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewSource(seed ^ int64(h.Sum64()>>1)))
	e := Episode{Family: name, Seed: seed, Path: fmt.Sprintf("/gym/%s/%d", name, seed)}
	if isPattern {
		sp := p(r)
		e.Goal, e.html = sp.goal, page(r, sp.body)
		e.phrasing, e.phrasings, e.solve, e.wrong = sp.phrasing, sp.phrasings, sp.solve, sp.wrong
		return e, nil
	}
	goal, body := f(r)
	e.Goal, e.html = goal, page(r, body)
	return e, nil
}

// HTML is the episode's page.
func (e Episode) HTML() string { return e.html }

// Handler serves /gym/{family}/{seed}.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
		if len(parts) == 3 && parts[0] == "gym" && parts[1] == "icons" && strings.HasSuffix(parts[2], ".svg") {
			// Icon files of the icon-only controls: the file's name is
			// all that tells one from another, as on many sites.
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, iconSVG)
			return
		}
		if len(parts) != 3 || parts[0] != "gym" {
			http.NotFound(w, req)
			return
		}
		seed, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			http.Error(w, "gym: seed "+parts[2]+" is not a number", http.StatusBadRequest)
			return
		}
		e, err := New(parts[1], seed)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, e.html)
	})
}

// iconSVG is the picture served for every /gym/icons/NAME.svg.
const iconSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="3" y="3" width="10" height="10" rx="2" fill="#555"/></svg>`

// verdict is the script every page shares: the first verdict stays.
const verdict = `<script>
function verdict(ok) {
  if (document.querySelector('[data-gym]')) return;
  const d = document.createElement('p');
  d.setAttribute('data-gym', ok ? 'success' : 'failure');
  d.textContent = ok ? 'Done.' : 'That was not it.';
  document.body.appendChild(d);
}
</script>`

// page wraps a body with seeded position: margins and width vary.
func page(r *rand.Rand, body string) string {
	return fmt.Sprintf(`<!doctype html><html><head><meta charset="utf-8"><title>Task</title>
<style>body{font:15px sans-serif;margin:%dpx %dpx;max-width:%dpx}
.alink{color:#1a4fd6;text-decoration:underline;cursor:pointer}
[role=tab]{display:inline-block;padding:4px 10px;border:1px solid #999;cursor:pointer;color:inherit;text-decoration:none}
[role=tab][aria-selected=true]{background:#ddd}</style>%s</head><body>%s</body></html>`,
		8+r.Intn(60), 8+r.Intn(120), 320+r.Intn(280), verdict, body)
}

var lorem = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore
et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat
duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non
proident sunt culpa qui officia deserunt mollit anim id est laborum feugiat pharetra viverra tellus mauris nunc turpis
egestas morbi tristique senectus netus malesuada fames ac ante primis faucibus orci luctus ultrices posuere cubilia curae`)

// pick returns n distinct elements of from, in random order.
func pick(r *rand.Rand, from []string, n int) []string {
	idx := r.Perm(len(from))[:n]
	out := make([]string, n)
	for i, j := range idx {
		out[i] = from[j]
	}
	return out
}

// code is a short random label of mixed case letters ("GDKkQ").
func code(r *rand.Rand) string {
	const letters = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
	b := make([]byte, 3+r.Intn(4))
	for i := range b {
		b[i] = letters[r.Intn(len(letters))]
	}
	return string(b)
}

// codes returns n distinct codes.
func codes(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		c := code(r)
		if !seen[strings.ToLower(c)] {
			seen[strings.ToLower(c)] = true
			out = append(out, c)
		}
	}
	return out
}

var submitLabels = []string{"Submit", "OK", "Send", "Done", "Confirm"}

// paragraph writes words with some of them as clickable spans; the
// click calls verdict(word === target).
func paragraph(r *rand.Rand, words []string, links map[string]bool, target string) string {
	var b strings.Builder
	b.WriteString("<p>")
	for i, w := range words {
		if i > 0 {
			b.WriteString(" ")
		}
		if links[w] {
			fmt.Fprintf(&b, `<span class="alink" onclick="verdict(%t)">%s</span>`, w == target, html.EscapeString(w))
		} else {
			b.WriteString(html.EscapeString(w))
		}
	}
	b.WriteString(".</p>")
	return b.String()
}

// linkInText: click the named link among words of a paragraph.
func linkInText(r *rand.Rand) (string, string) {
	words := pick(r, lorem, 20+r.Intn(15))
	links := map[string]bool{}
	for _, w := range pick(r, words, 3+r.Intn(4)) {
		links[w] = true
	}
	var ls []string
	for w := range links {
		ls = append(ls, w)
	}
	sort.Strings(ls)
	target := ls[r.Intn(len(ls))]
	half := len(words) / 2
	body := paragraph(r, words[:half], links, target) + paragraph(r, words[half:], links, target)
	goals := []string{`Click on "%s".`, `Click on the link "%s".`, `Click %s.`}
	return fmt.Sprintf(goals[r.Intn(len(goals))], target), body
}

// tabs: switch to a numbered tab and click a link inside its panel.
func tabs(r *rand.Rand) (string, string) {
	n := 3 + r.Intn(4)
	words := pick(r, lorem, 4*n)
	k := r.Intn(n)
	var head, panels strings.Builder
	anchors := r.Intn(2) == 0
	var target string
	for i := 0; i < n; i++ {
		sel := i == 0
		if anchors {
			fmt.Fprintf(&head, `<a href="#tabs-%d" role="tab" aria-selected="%t" data-i="%d">Tab #%d</a> `, i+1, sel, i, i+1)
		} else {
			fmt.Fprintf(&head, `<button type="button" role="tab" aria-selected="%t" data-i="%d">Tab #%d</button> `, sel, i, i+1)
		}
		ws := words[4*i : 4*i+4]
		links := map[string]bool{ws[1]: true, ws[3]: true}
		t := ""
		if i == k {
			t = ws[1+2*r.Intn(2)]
			target = t
		}
		hidden := ""
		if !sel {
			hidden = " hidden"
		}
		fmt.Fprintf(&panels, `<div role="tabpanel" id="tabs-%d"%s>%s</div>`, i+1, hidden, paragraph(r, ws, links, t))
	}
	script := `<script>
for (const t of document.querySelectorAll('[role=tab]')) t.addEventListener('click', (e) => {
  e.preventDefault();
  for (const u of document.querySelectorAll('[role=tab]')) u.setAttribute('aria-selected', String(u === t));
  document.querySelectorAll('[role=tabpanel]').forEach((p, i) => { p.hidden = String(i) !== t.dataset.i; });
});
</script>`
	body := `<div role="tablist">` + head.String() + `</div>` + panels.String() + script
	return fmt.Sprintf(`Switch to Tab #%d and click on the link "%s".`, k+1, target), body
}

// checkboxes: tick the named boxes and submit.
func checkboxes(r *rand.Rand) (string, string) {
	labels := codes(r, 4+r.Intn(5))
	want := pick(r, labels, 1+r.Intn(3))
	submit := submitLabels[r.Intn(len(submitLabels))]
	var b strings.Builder
	b.WriteString(`<form onsubmit="return false">`)
	for _, l := range labels {
		fmt.Fprintf(&b, `<label style="display:block"><input type="checkbox" value="%s"> %s</label>`, l, l)
	}
	wantJS := `['` + strings.Join(sorted(want), `','`) + `']`
	fmt.Fprintf(&b, `<button type="button" onclick="verdict(JSON.stringify(Array.from(document.querySelectorAll('input:checked'), i => i.value).sort()) === JSON.stringify(%s))">%s</button></form>`, wantJS, submit)
	list := want[0]
	if len(want) > 1 {
		list = strings.Join(want[:len(want)-1], ", ") + " and " + want[len(want)-1]
	}
	return fmt.Sprintf("Select %s and click %s.", list, submit), b.String()
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// radio: choose the named radio button and submit.
func radio(r *rand.Rand) (string, string) {
	labels := codes(r, 3+r.Intn(4))
	want := labels[r.Intn(len(labels))]
	submit := submitLabels[r.Intn(len(submitLabels))]
	var b strings.Builder
	b.WriteString(`<form onsubmit="return false">`)
	for _, l := range labels {
		fmt.Fprintf(&b, `<label style="display:block"><input type="radio" name="choice" value="%s"> %s</label>`, l, l)
	}
	fmt.Fprintf(&b, `<button type="button" onclick="const c = document.querySelector('input:checked'); verdict(!!c && c.value === '%s')">%s</button></form>`, want, submit)
	return fmt.Sprintf("Select %s and click %s.", want, submit), b.String()
}

// passwords: type the same password into both fields and submit.
func passwords(r *rand.Rand) (string, string) {
	pw := code(r) + strconv.Itoa(r.Intn(100))
	pairs := [][2]string{{"Password", "Confirm password"}, {"Password", "Repeat password"}, {"New password", "Verify"}, {"Enter password", "Retype it"}}
	p := pairs[r.Intn(len(pairs))]
	submit := submitLabels[r.Intn(len(submitLabels))]
	b := fmt.Sprintf(`<form onsubmit="return false"><label style="display:block">%s <input type="password" id="p1"></label>
<label style="display:block">%s <input type="password" id="p2"></label>
<button type="button" onclick="verdict(p1.value === '%s' && p2.value === '%s')">%s</button></form>`, p[0], p[1], pw, pw, submit)
	return fmt.Sprintf(`Enter the password "%s" into both fields and press %s.`, pw, submit), b
}

// selectList: choose the named option and submit.
func selectList(r *rand.Rand) (string, string) {
	opts := pick(r, lorem, 4+r.Intn(5))
	want := opts[r.Intn(len(opts))]
	submit := submitLabels[r.Intn(len(submitLabels))]
	var b strings.Builder
	b.WriteString(`<form onsubmit="return false"><select id="list">`)
	for _, o := range opts {
		fmt.Fprintf(&b, `<option>%s</option>`, o)
	}
	fmt.Fprintf(&b, `</select> <button type="button" onclick="verdict(list.value === '%s')">%s</button></form>`, want, submit)
	return fmt.Sprintf("Select %s from the list and click %s.", want, submit), b.String()
}

var ordinalNames = []string{"first", "second", "third", "fourth", "fifth"}

// focusNth: focus the Nth text box among other controls.
func focusNth(r *rand.Rand) (string, string) {
	n := 2 + r.Intn(4)
	k := r.Intn(n)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if r.Intn(2) == 0 {
			fmt.Fprintf(&b, `<button type="button">%s</button> `, code(r))
		}
		fmt.Fprintf(&b, `<input type="text" onfocus="verdict(%t)" style="display:block;margin:%dpx 0">`, i == k, 2+r.Intn(12))
	}
	ord := ordinalNames[k]
	switch {
	case k == n-1 && r.Intn(2) == 0:
		ord = "last"
	case r.Intn(2) == 0:
		ord = strconv.Itoa(k+1) + map[int]string{0: "st", 1: "nd", 2: "rd"}[k]
		if k > 2 {
			ord = strconv.Itoa(k+1) + "th"
		}
	}
	return fmt.Sprintf("Focus the %s text box.", ord), b.String()
}

var dialogLabels = []string{"OK", "Cancel", "Close", "Dismiss", "Got it", "No thanks", "Later"}

// dialog: close a modal dialog by the named button.
func dialog(r *rand.Rand) (string, string) {
	labels := pick(r, dialogLabels, 2+r.Intn(2))
	want := labels[r.Intn(len(labels))]
	var b strings.Builder
	fmt.Fprintf(&b, `<p>%s</p><div role="dialog" aria-modal="true" aria-labelledby="dt" style="position:fixed;inset:20%% 10%%;background:#fff;border:1px solid #333;padding:12px">`,
		strings.Join(pick(r, lorem, 12), " "))
	fmt.Fprintf(&b, `<h2 id="dt">%s</h2><p>%s</p>`, strings.Join(pick(r, lorem, 2), " "), strings.Join(pick(r, lorem, 8), " "))
	fmt.Fprintf(&b, `<button type="button" aria-label="Close dialog" onclick="verdict(false)">×</button> `)
	for _, l := range labels {
		fmt.Fprintf(&b, `<button type="button" onclick="this.closest('[role=dialog]').remove(); verdict(%t)">%s</button> `, l == want, l)
	}
	b.WriteString(`</div>`)
	return fmt.Sprintf("Close the dialog by clicking %s.", want), b.String()
}

// autocomplete: type a prefix, choose the suggestion, submit.
func autocomplete(r *rand.Rand) (string, string) {
	words := pick(r, lorem, 12)
	want := words[0]
	prefix := want[:min(len(want), 2)]
	submit := submitLabels[r.Intn(len(submitLabels))]
	label := []string{"Tags", "Search", "City", "Topic"}[r.Intn(4)]
	js := `["` + strings.Join(sorted(words), `","`) + `"]`
	b := fmt.Sprintf(`<form onsubmit="return false"><label>%s <input type="text" id="ac" autocomplete="off"></label>
<ul role="listbox" id="sugg" hidden></ul>
<button type="button" onclick="verdict(ac.value === '%s')">%s</button></form>
<script>
const words = %s;
ac.addEventListener('input', () => {
  sugg.innerHTML = '';
  const v = ac.value.toLowerCase();
  for (const w of words) if (v && w.startsWith(v)) {
    const li = document.createElement('li');
    li.setAttribute('role', 'option');
    li.textContent = w;
    li.addEventListener('click', () => { ac.value = w; sugg.hidden = true; });
    sugg.appendChild(li);
  }
  sugg.hidden = !sugg.children.length;
});
</script>`, label, want, submit, js)
	return fmt.Sprintf(`Enter "%s" into the %s field, select %s and press %s.`, prefix, strings.ToLower(label), want, submit), b
}

// loginPopup: log in while a popup interrupts the form.
func loginPopup(r *rand.Rand) (string, string) {
	user, pw := strings.ToLower(code(r)), code(r)+strconv.Itoa(r.Intn(100))
	submit := []string{"Login", "Log in", "Sign in"}[r.Intn(3)]
	deny, accept := []string{"No thanks", "Close", "Not now"}[r.Intn(3)], []string{"Sign up", "Join now"}[r.Intn(2)]
	b := fmt.Sprintf(`<form onsubmit="return false"><label style="display:block">Username <input type="text" id="u"></label>
<label style="display:block">Password <input type="password" id="p"></label>
<button type="button" onclick="verdict(u.value === '%s' && p.value === '%s')">%s</button></form>
<script>
setTimeout(() => {
  const d = document.createElement('div');
  d.setAttribute('role', 'dialog');
  d.setAttribute('aria-modal', 'true');
  d.style.cssText = 'position:fixed;inset:15%% 15%%;background:#fff;border:2px solid #333;padding:10px';
  d.innerHTML = '<p>Get our newsletter every week.</p><button type="button">%s</button> <button type="button">%s</button>';
  d.querySelectorAll('button').forEach(x => x.addEventListener('click', () => d.remove()));
  document.body.appendChild(d);
}, %d);
</script>`, user, pw, submit, deny, accept, 200+r.Intn(600))
	return fmt.Sprintf(`Enter the username "%s" and the password "%s" and press %s.`, user, pw, submit), b
}

// tree: expand a folder of a file tree and click a file in it.
func tree(r *rand.Rand) (string, string) {
	folders := codes(r, 3+r.Intn(3))
	files := pick(r, lorem, 3*len(folders))
	k := r.Intn(len(folders))
	var want string
	var b strings.Builder
	b.WriteString(`<ul role="tree">`)
	for i, f := range folders {
		fmt.Fprintf(&b, `<li role="treeitem" aria-expanded="false" data-folder>%s<ul role="group" hidden>`, f)
		for j := 0; j < 3; j++ {
			name := files[3*i+j] + ".txt"
			ok := i == k && j == 1
			if ok {
				want = name
			}
			fmt.Fprintf(&b, `<li role="treeitem" onclick="event.stopPropagation(); verdict(%t)">%s</li>`, ok, name)
		}
		b.WriteString(`</ul></li>`)
	}
	b.WriteString(`</ul><script>
for (const f of document.querySelectorAll('[data-folder]')) f.addEventListener('click', () => {
  const open = f.getAttribute('aria-expanded') === 'true';
  f.setAttribute('aria-expanded', String(!open));
  f.querySelector('[role=group]').hidden = open;
});
</script>`)
	return fmt.Sprintf("Expand the folder %s and click on %s.", folders[k], want), b.String()
}
