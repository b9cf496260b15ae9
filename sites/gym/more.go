package gym

import (
	"fmt"
	"html"
	"math/rand"
	"strconv"
	"strings"
)

// More families: buttons by name and in sequence, plain text and date
// fields, a login form, a collapsed section, a form over two steps,
// controls inside a shadow root and an iframe, a paginated list, a
// control that appears late, and a search with results.

// clickButton: click the named button among others.
func clickButton(r *rand.Rand) (string, string) {
	labels := codes(r, 3+r.Intn(5))
	want := labels[r.Intn(len(labels))]
	var b strings.Builder
	for _, l := range labels {
		fmt.Fprintf(&b, `<button type="button" style="margin:%dpx" onclick="verdict(%t)">%s</button>`, r.Intn(20), l == want, l)
	}
	return fmt.Sprintf(`Click on the "%s" button.`, want), b.String()
}

// buttonSequence: click two named buttons in order.
func buttonSequence(r *rand.Rand) (string, string) {
	labels := codes(r, 3+r.Intn(3))
	first, second := labels[0], labels[1]
	order := r.Perm(len(labels))
	var b strings.Builder
	b.WriteString(`<script>let step = 0;</script>`)
	for _, i := range order {
		l := labels[i]
		on := "verdict(false)"
		switch l {
		case first:
			on = "if (step === 0) step = 1; else verdict(false)"
		case second:
			on = "verdict(step === 1)"
		}
		fmt.Fprintf(&b, `<button type="button" style="margin:%dpx" onclick="%s">%s</button>`, r.Intn(20), on, l)
	}
	return fmt.Sprintf(`Click button %s, then click button %s.`, first, second), b.String()
}

// enterText: type a value into the one text field and submit.
func enterText(r *rand.Rand) (string, string) {
	want := code(r)
	submit := submitLabels[r.Intn(len(submitLabels))]
	label := []string{"Name", "Text", "Value", "Answer"}[r.Intn(4)]
	b := fmt.Sprintf(`<form onsubmit="return false"><label>%s <input type="text" id="t"></label>
<button type="button" onclick="verdict(t.value === '%s')">%s</button></form>`, label, want, submit)
	return fmt.Sprintf(`Enter "%s" into the text field and press %s.`, want, submit), b
}

// loginForm: a username and a password, then the named button.
func loginForm(r *rand.Rand) (string, string) {
	user, pw := strings.ToLower(code(r)), code(r)+strconv.Itoa(r.Intn(100))
	submit := []string{"Login", "Log in", "Sign in", "Submit"}[r.Intn(4)]
	userLabel := []string{"Username", "User name", "Login", "User"}[r.Intn(4)]
	b := fmt.Sprintf(`<form onsubmit="return false"><label style="display:block">%s <input type="text" id="u"></label>
<label style="display:block">Password <input type="password" id="p"></label>
<button type="button" onclick="verdict(u.value === '%s' && p.value === '%s')">%s</button></form>`, userLabel, user, pw, submit)
	return fmt.Sprintf(`Enter the username "%s" and the password "%s" into the text fields and press %s.`, user, pw, submit), b
}

// accordion: expand a collapsed section and press the button inside it.
func accordion(r *rand.Rand) (string, string) {
	submit := submitLabels[r.Intn(len(submitLabels))]
	title := title(strings.Join(pick(r, lorem, 2), " "))
	b := fmt.Sprintf(`<p>%s</p><button type="button" aria-expanded="false" id="h" onclick="this.setAttribute('aria-expanded', String(s.hidden)); s.hidden = !s.hidden">%s</button>
<div id="s" hidden><p>%s</p><button type="button" onclick="verdict(true)">%s</button></div>`,
		strings.Join(pick(r, lorem, 10), " "), title, strings.Join(pick(r, lorem, 12), " "), submit)
	return fmt.Sprintf(`Expand the section below and click %s.`, submit), b
}

// enterDate: type a date into a date field (mm/dd/yyyy) and submit.
func enterDate(r *rand.Rand) (string, string) {
	date := fmt.Sprintf("%02d/%02d/%d", 1+r.Intn(12), 1+r.Intn(28), 2000+r.Intn(25))
	submit := submitLabels[r.Intn(len(submitLabels))]
	b := fmt.Sprintf(`<form onsubmit="return false"><label>Date <input type="text" id="d" placeholder="mm/dd/yyyy"></label>
<button type="button" onclick="verdict(d.value === '%s')">%s</button></form>`, date, submit)
	return fmt.Sprintf(`Enter %s as the date in the input field and press %s.`, date, submit), b
}

// twoStepForm: fill a field, go on to the second step, fill another and
// submit.
func twoStepForm(r *rand.Rand) (string, string) {
	first, last := title(lorem[r.Intn(len(lorem))]), title(lorem[r.Intn(len(lorem))])
	next := []string{"Next", "Continue"}[r.Intn(2)]
	submit := submitLabels[r.Intn(len(submitLabels))]
	b := fmt.Sprintf(`<form onsubmit="return false"><div id="s1"><label>First name <input type="text" id="f"></label>
<button type="button" onclick="s1.hidden = true; s2.hidden = false">%s</button></div>
<div id="s2" hidden><label>Last name <input type="text" id="l"></label>
<button type="button" onclick="verdict(f.value === '%s' && l.value === '%s')">%s</button></div></form>`, next, first, last, submit)
	return fmt.Sprintf(`Enter the first name "%s", press %s, enter the last name "%s" and press %s.`, first, next, last, submit), b
}

// shadowButton: click the named button inside a component's open shadow
// root.
func shadowButton(r *rand.Rand) (string, string) {
	labels := codes(r, 3+r.Intn(3))
	want := labels[r.Intn(len(labels))]
	var bs strings.Builder
	for _, l := range labels {
		fmt.Fprintf(&bs, `<button type=button data-ok=%t>%s</button> `, l == want, l)
	}
	b := fmt.Sprintf(`<p>%s</p><div id="host"></div><script>
const root = host.attachShadow({mode: 'open'});
root.innerHTML = '%s';
root.querySelectorAll('button').forEach(x => x.addEventListener('click', () => verdict(x.dataset.ok === 'true')));
</script>`, strings.Join(pick(r, lorem, 8), " "), bs.String())
	return fmt.Sprintf(`Click the %s button.`, want), b
}

// iframeButton: click the named button inside a same-origin frame.
func iframeButton(r *rand.Rand) (string, string) {
	labels := codes(r, 3+r.Intn(3))
	want := labels[r.Intn(len(labels))]
	var bs strings.Builder
	for _, l := range labels {
		fmt.Fprintf(&bs, `<button type="button" onclick="parent.verdict(%t)">%s</button> `, l == want, l)
	}
	b := fmt.Sprintf(`<p>%s</p><iframe style="width:90%%;height:%dpx;border:1px solid #999" srcdoc="%s"></iframe>`,
		strings.Join(pick(r, lorem, 8), " "), 80+r.Intn(60), html.EscapeString(bs.String()))
	return fmt.Sprintf(`Click the button %s in the frame.`, want), b
}

// pagination: the named item is on a later page of a list; page with
// Next and click it.
func pagination(r *rand.Rand) (string, string) {
	items := pick(r, lorem, 12)
	per := 3
	want := items[per+r.Intn(len(items)-per)]
	js := `["` + strings.Join(items, `","`) + `"]`
	next := []string{"Next", "Next page", "More"}[r.Intn(3)]
	b := fmt.Sprintf(`<ul id="list"></ul><button type="button" id="next">%s</button>
<script>
const items = %s; let page = 0;
function show() {
  list.innerHTML = '';
  for (const w of items.slice(page * %d, page * %d + %d)) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#'; a.textContent = w;
    a.addEventListener('click', e => { e.preventDefault(); verdict(w === '%s'); });
    li.appendChild(a); list.appendChild(li);
  }
  next.hidden = (page + 1) * %d >= items.length;
}
next.addEventListener('click', () => { page++; show(); });
show();
</script>`, next, js, per, per, per, want, per)
	return fmt.Sprintf(`Find %s in the list and click it.`, want), b
}

// lateButton: the named button appears after a moment, among others.
func lateButton(r *rand.Rand) (string, string) {
	labels := codes(r, 3)
	want := labels[0]
	b := fmt.Sprintf(`<p>%s</p><div id="box"><button type="button" onclick="verdict(false)">%s</button></div><script>
setTimeout(() => {
  for (const l of ['%s', '%s']) {
    const x = document.createElement('button');
    x.type = 'button'; x.textContent = l;
    x.addEventListener('click', () => verdict(l === '%s'));
    box.appendChild(x);
  }
}, %d);
</script>`, strings.Join(pick(r, lorem, 8), " "), labels[1], labels[2], want, want, 300+r.Intn(700))
	return fmt.Sprintf(`Wait for the %s button to appear and click it.`, want), b
}

// searchResults: search for a term and click the named result.
func searchResults(r *rand.Rand) (string, string) {
	term := lorem[r.Intn(len(lorem))]
	results := codes(r, 4)
	k := r.Intn(len(results))
	js := `["` + strings.Join(results, `","`) + `"]`
	search := []string{"Search", "Go", "Find"}[r.Intn(3)]
	b := fmt.Sprintf(`<form onsubmit="return false"><label>Query <input type="search" id="q"></label>
<button type="button" id="go">%s</button></form><ol id="res"></ol>
<script>
go.addEventListener('click', () => {
  res.innerHTML = '';
  if (q.value.trim().toLowerCase() !== '%s') return;
  for (const w of %s) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#'; a.textContent = w + ' %s';
    a.addEventListener('click', e => { e.preventDefault(); verdict(w === '%s'); });
    li.appendChild(a); res.appendChild(li);
  }
});
</script>`, search, term, js, term, results[k])
	return fmt.Sprintf(`Search for "%s" and click the result %s %s.`, term, results[k], term), b
}

// title capitalizes the first letter of each word.
func title(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
