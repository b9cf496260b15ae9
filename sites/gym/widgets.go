package gym

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// Widget families: a custom dropdown (an ARIA combobox and listbox), a
// tab and then a button inside it, a switch, a quantity, a comment box, a
// menu, a form inside a dialog that a button opens, and a menu that opens
// on hover.

// customDropdown: open a combobox, choose the named option, submit.
func customDropdown(r *rand.Rand) (string, string) {
	opts := codes(r, 4+r.Intn(4))
	want := opts[r.Intn(len(opts))]
	submit := submitLabels[r.Intn(len(submitLabels))]
	label := []string{"Colour", "Size", "Region", "Team"}[r.Intn(4)]
	var lis strings.Builder
	for _, o := range opts {
		fmt.Fprintf(&lis, `<li role="option" aria-selected="false">%s</li>`, o)
	}
	b := fmt.Sprintf(`<span id="lbl">%s</span> <button type="button" role="combobox" aria-labelledby="lbl" aria-expanded="false" id="cb">Choose…</button>
<ul role="listbox" id="lb" hidden>%s</ul>
<button type="button" onclick="verdict(cb.textContent === '%s')">%s</button>
<script>
cb.addEventListener('click', () => { lb.hidden = !lb.hidden; cb.setAttribute('aria-expanded', String(!lb.hidden)); });
for (const o of lb.querySelectorAll('[role=option]')) o.addEventListener('click', () => {
  cb.textContent = o.textContent; lb.hidden = true; cb.setAttribute('aria-expanded', 'false');
  for (const x of lb.children) x.setAttribute('aria-selected', String(x === o));
});
</script>`, label, lis.String(), want, submit)
	return fmt.Sprintf("Choose %s from the %s dropdown and press %s.", want, strings.ToLower(label), submit), b
}

// tabThenButton: switch to a named tab and press the button in its panel.
func tabThenButton(r *rand.Rand) (string, string) {
	names := pick(r, []string{"Profile", "Billing", "Security", "Team", "Usage", "Alerts"}, 3+r.Intn(2))
	k := 1 + r.Intn(len(names)-1)
	btn := []string{"Save", "Apply", "Update"}[r.Intn(3)]
	var tabs, panels strings.Builder
	tabs.WriteString(`<div role="tablist">`)
	for i, n := range names {
		fmt.Fprintf(&tabs, `<span role="tab" tabindex="0" aria-selected="%t" data-i="%d">%s</span> `, i == 0, i, n)
		fmt.Fprintf(&panels, `<div role="tabpanel" data-i="%d"%s><p>%s</p><button type="button" onclick="verdict(%t)">%s</button></div>`,
			i, map[bool]string{true: "", false: " hidden"}[i == 0], strings.Join(pick(r, lorem, 6), " "), i == k, btn)
	}
	tabs.WriteString(`</div>`)
	b := tabs.String() + panels.String() + `<script>
for (const t of document.querySelectorAll('[role=tab]')) t.addEventListener('click', () => {
  for (const x of document.querySelectorAll('[role=tab]')) x.setAttribute('aria-selected', String(x === t));
  for (const p of document.querySelectorAll('[role=tabpanel]')) p.hidden = p.dataset.i !== t.dataset.i;
});
</script>`
	return fmt.Sprintf("Switch to the %s tab and click %s.", names[k], btn), b
}

// toggleSwitch: turn the named switch on (or off) and save.
func toggleSwitch(r *rand.Rand) (string, string) {
	names := pick(r, []string{"Notifications", "Dark mode", "Auto save", "Location", "Newsletter", "Sync"}, 3)
	k := r.Intn(3)
	on := r.Intn(2) == 0
	save := []string{"Save", "Apply", "Done"}[r.Intn(3)]
	var b strings.Builder
	for i, n := range names {
		state := i%2 == 0
		if i == k {
			state = !on
		}
		fmt.Fprintf(&b, `<div><button type="button" role="switch" aria-checked="%t" data-n="%s" onclick="this.setAttribute('aria-checked', String(this.getAttribute('aria-checked') !== 'true'))">%s</button></div>`, state, n, n)
	}
	want := "on"
	if !on {
		want = "off"
	}
	fmt.Fprintf(&b, `<button type="button" onclick="verdict(document.querySelector('[data-n=\'%s\']').getAttribute('aria-checked') === '%t')">%s</button>`, names[k], on, save)
	return fmt.Sprintf("Turn %s %s and click %s.", want, names[k], save), b.String()
}

// quantity: set a number field and update.
func quantity(r *rand.Rand) (string, string) {
	n := 2 + r.Intn(40)
	item := title(lorem[r.Intn(len(lorem))])
	update := []string{"Update", "Save", "Apply"}[r.Intn(3)]
	b := fmt.Sprintf(`<p>%s</p><label>Quantity <input type="number" id="q" value="1" min="0"></label>
<button type="button" onclick="verdict(q.value === '%d')">%s</button>`, item, n, update)
	return fmt.Sprintf("Set the quantity of %s to %s and click %s.", item, strconv.Itoa(n), update), b
}

// comment: write a sentence into a text area and post it.
func comment(r *rand.Rand) (string, string) {
	text := title(strings.Join(pick(r, lorem, 3+r.Intn(3)), " "))
	post := []string{"Post", "Send", "Reply", "Comment"}[r.Intn(4)]
	b := fmt.Sprintf(`<p>%s</p><label style="display:block">Your name <input type="text"></label>
<label style="display:block">Comment <textarea id="c" rows="3"></textarea></label>
<button type="button" onclick="verdict(c.value === '%s')">%s</button>`, strings.Join(pick(r, lorem, 10), " "), text, post)
	return fmt.Sprintf(`Write "%s" in the comment box and press %s.`, text, post), b
}

// menu: open a menu and choose the named item.
func menu(r *rand.Rand) (string, string) {
	menus := pick(r, []string{"File", "Edit", "View", "Tools", "Help"}, 3)
	k := r.Intn(3)
	items := pick(r, []string{"Export", "Import", "Rename", "Duplicate", "Archive", "Print", "Share", "Move", "Pin", "Copy"}, 3*len(menus))
	want := items[3*k+r.Intn(3)]
	var b strings.Builder
	for i, m := range menus {
		fmt.Fprintf(&b, `<span><button type="button" aria-haspopup="menu" aria-expanded="false" onclick="const m = this.nextElementSibling; m.hidden = !m.hidden; this.setAttribute('aria-expanded', String(!m.hidden))">%s</button><ul role="menu" hidden>`, m)
		for j := 0; j < 3; j++ {
			it := items[3*i+j]
			fmt.Fprintf(&b, `<li role="menuitem" tabindex="-1" onclick="verdict(%t)">%s</li>`, i == k && it == want, it)
		}
		b.WriteString(`</ul></span> `)
	}
	return fmt.Sprintf("Open the %s menu and click %s.", menus[k], want), b.String()
}

// dialogForm: open a dialog with a button, fill its field and save.
func dialogForm(r *rand.Rand) (string, string) {
	opener := []string{"Add item", "New project", "Create tag", "Add member"}[r.Intn(4)]
	name := code(r)
	save := []string{"Save", "Create", "Add"}[r.Intn(3)]
	b := fmt.Sprintf(`<p>%s</p><button type="button" onclick="dlg.hidden = false">%s</button>
<div role="dialog" aria-modal="true" aria-label="%s" id="dlg" hidden style="position:fixed;inset:20%% 15%%;background:#fff;border:1px solid #333;padding:12px">
<label>Name <input type="text" id="nm"></label>
<button type="button" onclick="dlg.hidden = true">Cancel</button>
<button type="button" onclick="verdict(nm.value === '%s')">%s</button></div>`, strings.Join(pick(r, lorem, 10), " "), opener, opener, name, save)
	return fmt.Sprintf(`Click %s, enter "%s" as the name and press %s.`, opener, name, save), b
}

// hoverMenu: point at a menu of a navigation bar that opens on hover
// (by a :hover style or a mouse-enter listener) and click an item in it.
func hoverMenu(r *rand.Rand) (string, string) {
	menus := pick(r, []string{"Products", "Account", "Company", "Support", "Resources"}, 3)
	k := r.Intn(3)
	items := pick(r, []string{"Pricing", "Privacy", "Billing", "Careers", "Press", "Status", "Guides", "Contact", "Security", "Partners", "Events", "Webinars"}, 3*len(menus))
	want := items[3*k+r.Intn(3)]
	byScript := r.Intn(2) == 0
	var b strings.Builder
	b.WriteString(`<style>nav ul{list-style:none;margin:0;padding:0} nav > ul > li{display:inline-block;position:relative;padding:6px 12px;border:1px solid #ccc}
nav li ul{display:none;position:absolute;top:100%;left:0;background:#fff;border:1px solid #999;min-width:120px}`)
	if !byScript {
		b.WriteString(` nav li.m:hover > ul{display:block}`)
	}
	b.WriteString(`</style><nav><ul>`)
	for i, m := range menus {
		fmt.Fprintf(&b, `<li class="m"><span>%s</span><ul>`, m)
		for j := 0; j < 3; j++ {
			it := items[3*i+j]
			fmt.Fprintf(&b, `<li><a href="#%s" onclick="event.preventDefault(); verdict(%t)">%s</a></li>`, strings.ToLower(it), it == want, it)
		}
		b.WriteString(`</ul></li>`)
	}
	fmt.Fprintf(&b, `</ul></nav><p>%s</p>`, strings.Join(pick(r, lorem, 14), " "))
	if byScript {
		b.WriteString(`<script>
for (const li of document.querySelectorAll('li.m')) {
  li.addEventListener('mouseenter', () => { li.querySelector('ul').style.display = 'block'; });
  li.addEventListener('mouseleave', () => { li.querySelector('ul').style.display = ''; });
}
</script>`)
	}
	goals := []string{"Open %[2]s from the %[1]s menu.", "In the %[1]s menu, click %[2]s.", "Point at %[1]s and click %[2]s."}
	return fmt.Sprintf(goals[r.Intn(len(goals))], menus[k], want), b.String()
}
