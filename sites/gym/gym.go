// Package gym serves small task pages, one per widget family a person
// meets on the web (a link inside text, tabs, checkboxes, radio buttons,
// password fields, a select list), each with seeded variation of labels,
// order and position, and the goal text that asks for the task.
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
}

// Families lists the family names, sorted.
func Families() []string {
	out := make([]string, 0, len(families))
	for f := range families {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// New builds the episode of a family for a seed; the same pair always
// gives the same page and goal.
func New(name string, seed int64) (Episode, error) {
	f, ok := families[name]
	if !ok {
		return Episode{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownFamily, name, strings.Join(Families(), ", "))
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewSource(seed ^ int64(h.Sum64()>>1)))
	goal, body := f(r)
	return Episode{Family: name, Seed: seed, Goal: goal, Path: fmt.Sprintf("/gym/%s/%d", name, seed), html: page(r, body)}, nil
}

// HTML is the episode's page.
func (e Episode) HTML() string { return e.html }

// Handler serves /gym/{family}/{seed}.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
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
