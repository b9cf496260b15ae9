package gym

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"time"
)

// Fields as real forms write them: labels in a neighbouring cell, term
// or div instead of <label>, a jQuery UI-style date picker, native date
// and time inputs, sliders, spin buttons, a dozen checkboxes and the
// user-group checkboxes of a wiki's user rights page.

// contactField is a field of a contact record and how to make a value.
type contactField struct {
	name  string
	value func(r *rand.Rand) string
}

var contactFields = []contactField{
	{"First name", func(r *rand.Rand) string { return strings.Fields(people[r.Intn(len(people))])[0] }},
	{"Last name", func(r *rand.Rand) string { return strings.Fields(people[r.Intn(len(people))])[1] }},
	{"Email", func(r *rand.Rand) string {
		return strings.ToLower(strings.Fields(people[r.Intn(len(people))])[0]) + "@" + oneOf(r, "example.org", "mail.test", "acme.io")
	}},
	{"Phone", func(r *rand.Rand) string { return fmt.Sprintf("555-%04d", r.Intn(10000)) }},
	{"Company", func(r *rand.Rand) string {
		return title(lorem[r.Intn(len(lorem))]) + " " + oneOf(r, "Ltd", "Inc", "GmbH")
	}},
	{"City", func(r *rand.Rand) string { return cities[r.Intn(len(cities))] }},
	{"Postcode", func(r *rand.Rand) string { return strconv.Itoa(10000 + r.Intn(89999)) }},
	{"Job title", func(r *rand.Rand) string { return oneOf(r, "Engineer", "Analyst", "Designer", "Manager", "Nurse") }},
}

// sideLabels: edit a record whose fields are labelled by the text
// beside them (a table cell, a <dt>, a div of a grid, a span), never by
// <label>; inputs carry opaque names.
func sideLabels(r *rand.Rand) spec {
	fs := make([]contactField, 0, 6)
	for _, i := range r.Perm(len(contactFields))[:4+r.Intn(3)] {
		fs = append(fs, contactFields[i])
	}
	set := r.Perm(len(fs))[:2]
	vals := map[int]string{}
	for _, i := range set {
		vals[i] = fs[i].value(r)
	}
	save := oneOf(r, "Save", "Save changes", "Update", "Submit")
	layout := r.Intn(4)
	var b strings.Builder
	b.WriteString(`<style>.grid .row{display:flex;margin:4px 0}.grid .col-label{width:110px;color:#555}dl.form dt{float:left;clear:left;width:110px}dl.form dd{margin:0 0 6px 120px}
.inline span{display:inline-block;width:100px}</style><h3>` + oneOf(r, "Edit contact", "Your details", "Account") + `</h3><form onsubmit="return false" id="f">`)
	switch layout {
	case 0:
		b.WriteString(`<table>`)
	case 1:
		b.WriteString(`<dl class="form">`)
	case 2:
		b.WriteString(`<div class="grid">`)
	default:
		b.WriteString(`<div class="inline">`)
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = fmt.Sprintf("f_%d", 100+r.Intn(900))
		in := fmt.Sprintf(`<input type="text" name="%s" size="24">`, names[i])
		switch layout {
		case 0:
			fmt.Fprintf(&b, `<tr><td class="lbl">%s</td><td>%s</td></tr>`, f.name, in)
		case 1:
			fmt.Fprintf(&b, `<dt>%s</dt><dd>%s</dd>`, f.name, in)
		case 2:
			fmt.Fprintf(&b, `<div class="row"><div class="col-label">%s</div><div class="col">%s</div></div>`, f.name, in)
		default:
			fmt.Fprintf(&b, `<div><span>%s</span>%s</div>`, f.name, in)
		}
	}
	b.WriteString(map[int]string{0: `</table>`, 1: `</dl>`, 2: `</div>`, 3: `</div>`}[layout])
	var checks []string
	for i := range fs {
		checks = append(checks, fmt.Sprintf("f.elements[%d].value.trim() === %s", i, jsString(vals[i])))
	}
	fmt.Fprintf(&b, `<button type="button" id="save">%s</button></form>%s
<script>
document.getElementById('save').addEventListener('click', () => {
  const f = document.getElementById('f');
  if (%s) verdict(true);
  else { siteError('Please check the highlighted fields.'); verdict(false); }
});
</script>`, save, notice(r), strings.Join(checks, " && "))
	a, c := set[0], set[1]
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Set %[1]s to %[2]s and %[3]s to %[4]s, then click %[5]s.",
		"Change the %[6]s to %[2]s and the %[7]s to %[4]s and press %[5]s.",
		"%[1]s: %[2]s, %[3]s: %[4]s. %[5]s.",
		`Enter "%[2]s" as the %[6]s and "%[4]s" as the %[7]s, then %[8]s.`,
	}, fs[a].name, vals[a], fs[c].name, vals[c], save, strings.ToLower(fs[a].name), strings.ToLower(fs[c].name), strings.ToLower(save))
	in := func(i int) string { return fmt.Sprintf(`input[name="%s"]`, names[i]) }
	sp.solve = []step{fill(in(a), vals[a]), fill(in(c), vals[c]), click("#save")}
	sp.wrong = []step{fill(in(c), vals[a]), fill(in(a), vals[c]), click("#save")}
	return sp
}

// dateFormats are the ways a goal writes a date.
var dateFormats = []string{"January 2, 2006", "2 January 2006", "Jan 2, 2006", "Monday, January 2, 2006"}

// seededDay is a day in 2009..2014, by the seed.
func seededDay(r *rand.Rand) time.Time {
	return time.Date(2009+r.Intn(6), time.Month(1+r.Intn(12)), 1+r.Intn(28), 0, 0, 0, 0, time.UTC)
}

// datePicker: set a date with a jQuery UI-style picker: the text input
// opens a calendar popup with prev/next month links and day cells on
// focus; the input also takes a typed date as mm/dd/yyyy (its
// placeholder says so). The calendar opens on the page's "today", a few
// months from the wanted date.
func datePicker(r *rand.Rand) spec {
	want := seededDay(r)
	shift := r.Intn(7) - 3
	today := time.Date(want.Year(), want.Month()+time.Month(shift), 1+r.Intn(28), 0, 0, 0, 0, time.UTC)
	label := oneOf(r, "Check-in", "Departure date", "Start date", "Appointment date")
	submit := oneOf(r, "Continue", "Search", "Book", "Next")
	body := fmt.Sprintf(`<style>#ui-datepicker-div{position:absolute;background:#fff;border:1px solid #aaa;padding:4px;z-index:9;font-size:13px;display:none}
.ui-datepicker-header{display:flex;justify-content:space-between;background:#e9e9e9;padding:3px}.ui-datepicker-header a{cursor:pointer;padding:0 6px}
.ui-datepicker-calendar td a{display:block;padding:2px 5px;text-align:right;text-decoration:none;color:#333;border:1px solid #ddd}
.ui-datepicker-calendar td a:hover{background:#def}.ui-state-active{background:#39f!important;color:#fff!important}
.ui-icon{display:inline-block;width:16px;height:16px;overflow:hidden;text-indent:-99999px;background:#888}</style>
<form onsubmit="return false"><p><label for="dp">%s</label><br><input type="text" id="dp" class="hasDatepicker" placeholder="mm/dd/yyyy" autocomplete="off"></p>
<p><button type="button" id="go">%s</button></p></form>
<div id="ui-datepicker-div" class="ui-datepicker ui-widget"></div>%s
<script>
const input = document.getElementById('dp'), div = document.getElementById('ui-datepicker-div');
const months = ['January','February','March','April','May','June','July','August','September','October','November','December'];
let view = new Date(Date.UTC(%d, %d, 1));
function pad(n) { return String(n).padStart(2, '0'); }
function parse(v) { const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v.trim()); return m ? {y: +m[3], m: +m[1] - 1, d: +m[2]} : null; }
function draw() {
  const y = view.getUTCFullYear(), m = view.getUTCMonth(), sel = parse(input.value);
  let h = '<div class="ui-datepicker-header"><a class="ui-datepicker-prev" data-handler="prev" title="Prev"><span class="ui-icon ui-icon-circle-triangle-w">Prev</span></a>' +
    '<div class="ui-datepicker-title"><span class="ui-datepicker-month">' + months[m] + '</span>&#xa0;<span class="ui-datepicker-year">' + y + '</span></div>' +
    '<a class="ui-datepicker-next" data-handler="next" title="Next"><span class="ui-icon ui-icon-circle-triangle-e">Next</span></a></div>' +
    '<table class="ui-datepicker-calendar"><thead><tr><th>Su</th><th>Mo</th><th>Tu</th><th>We</th><th>Th</th><th>Fr</th><th>Sa</th></tr></thead><tbody><tr>';
  const first = new Date(Date.UTC(y, m, 1)).getUTCDay(), days = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  for (let i = 0; i < first; i++) h += '<td></td>';
  for (let d = 1; d <= days; d++) {
    if ((first + d - 1) %% 7 === 0 && d > 1) h += '</tr><tr>';
    const on = sel && sel.y === y && sel.m === m && sel.d === d ? ' ui-state-active' : '';
    h += '<td data-handler="selectDay" data-month="' + m + '" data-year="' + y + '"><a class="ui-state-default' + on + '" href="#" data-date="' + d + '">' + d + '</a></td>';
  }
  div.innerHTML = h + '</tr></tbody></table>';
}
function show() { const p = parse(input.value); if (p) view = new Date(Date.UTC(p.y, p.m, 1)); draw(); const b = input.getBoundingClientRect(); div.style.left = (b.left + scrollX) + 'px'; div.style.top = (b.bottom + scrollY + 2) + 'px'; div.style.display = 'block'; }
input.addEventListener('focus', show);
input.addEventListener('click', show);
input.addEventListener('input', () => { if (parse(input.value)) show(); });
input.addEventListener('keydown', (e) => { if (e.key === 'Escape' || e.key === 'Enter' || e.key === 'Tab') div.style.display = 'none'; });
div.addEventListener('click', (e) => {
  const h = e.target.closest('[data-handler]');
  if (!h) return;
  e.preventDefault();
  if (h.dataset.handler === 'prev') view = new Date(Date.UTC(view.getUTCFullYear(), view.getUTCMonth() - 1, 1));
  if (h.dataset.handler === 'next') view = new Date(Date.UTC(view.getUTCFullYear(), view.getUTCMonth() + 1, 1));
  if (h.dataset.handler === 'selectDay') { input.value = pad(+h.dataset.month + 1) + '/' + pad(+e.target.closest('a').dataset.date) + '/' + h.dataset.year; div.style.display = 'none'; return; }
  draw();
});
document.addEventListener('mousedown', (e) => { if (e.target !== input && !div.contains(e.target)) div.style.display = 'none'; });
document.getElementById('go').addEventListener('click', () => {
  const p = parse(input.value);
  if (!p) { siteError('Please enter a valid date (mm/dd/yyyy).'); return; }
  verdict(p.y === %d && p.m === %d && p.d === %d);
});
</script>`, label, submit, notice(r), today.Year(), int(today.Month())-1, want.Year(), int(want.Month())-1, want.Day())
	sp := spec{body: body}
	sp.phrase(r, []string{
		"Set the %[1]s to %[2]s and click %[3]s.",
		"Pick %[2]s as the %[1]s, then press %[3]s.",
		"Choose %[2]s in the %[1]s calendar and %[4]s.",
		"%[5]s: %[2]s. Then click %[3]s.",
	}, strings.ToLower(label), want.Format(dateFormats[r.Intn(len(dateFormats))]), submit, strings.ToLower(submit), label)
	move := click("a.ui-datepicker-next")
	if shift > 0 {
		move = click("a.ui-datepicker-prev")
	}
	n := shift
	if n < 0 {
		n = -n
	}
	sp.solve = append([]step{click("#dp")}, repeat(n, move)...)
	sp.solve = append(sp.solve, click(fmt.Sprintf(`#ui-datepicker-div a[data-date="%d"]`, want.Day())), click("#go"))
	wrongDay := want.Day()%28 + 1
	sp.wrong = []step{fill("#dp", want.Format("01/")+fmt.Sprintf("%02d", wrongDay)+want.Format("/2006")), key("#dp", "Escape"), click("#go")}
	return sp
}

// timeFormats are the ways a goal writes a time of day.
var timeFormats = []string{"3:04 PM", "3:04 pm", "15:04", "3:04 p.m."}

// dateTimeNative: native <input type=date> and <input type=time>; the
// goal writes the date and the time as people do ("October 11, 2011",
// "8:04 PM"), the inputs take them in their own format.
func dateTimeNative(r *rand.Rand) spec {
	day := seededDay(r)
	at := day.Add(time.Duration(7+r.Intn(14))*time.Hour + time.Duration(r.Intn(12)*5)*time.Minute)
	what := oneOf(r, "meeting", "call", "appointment", "delivery", "reminder")
	save := oneOf(r, "Save", "Schedule", "Create", "Done")
	body := fmt.Sprintf(`<form onsubmit="return false"><h3>New %s</h3>
<p><label>Title <input type="text" value="%s"></label></p>
<p><label>Date <input type="date" id="d"></label> <label>Time <input type="time" id="t"></label></p>
<p><button type="button" id="save">%s</button></p></form>%s
<script>
document.getElementById('save').addEventListener('click', () => {
  const d = document.getElementById('d').value, t = document.getElementById('t').value;
  if (!d || !t) { siteError('Please fill in the date and the time.'); return; }
  verdict(d === %s && t === %s);
});
</script>`, what, title(strings.Join(pick(r, lorem, 2), " ")), save, notice(r), jsString(at.Format("2006-01-02")), jsString(at.Format("15:04")))
	dt, tm := at.Format(dateFormats[r.Intn(len(dateFormats))]), at.Format(timeFormats[r.Intn(len(timeFormats))])
	sp := spec{body: body}
	sp.phrase(r, []string{
		"Schedule the %[1]s for %[2]s at %[3]s and click %[4]s.",
		"Set the date to %[2]s and the time to %[3]s, then press %[4]s.",
		"The %[1]s is on %[2]s, %[3]s: enter it and %[5]s.",
		"Enter %[3]s on %[2]s and click %[4]s.",
	}, what, dt, tm, save, strings.ToLower(save))
	sp.solve = []step{fill("#d", at.Format("2006-01-02")), fill("#t", at.Format("15:04")), click("#save")}
	sp.wrong = []step{fill("#d", at.Format("2006-01-02")), fill("#t", at.Add(-12*time.Hour).Format("15:04")), click("#save")}
	return sp
}

// slider: set a value with a slider: a native range input on some
// seeds, an ARIA role=slider div moved with the arrow keys (or a click
// on its track) on the others; the value shows beside it.
func slider(r *rand.Rand) spec {
	names := pick(r, []string{"Volume", "Brightness", "Opacity", "Zoom", "Contrast", "Saturation"}, 2+r.Intn(2))
	k := r.Intn(len(names))
	stepText := oneOf(r, "1", "5", "10")
	st, _ := strconv.Atoi(stepText)
	starts := make([]int, len(names))
	for i := range starts {
		starts[i] = st * r.Intn(100/st+1)
	}
	want := st * r.Intn(100/st+1)
	for want == starts[k] {
		want = st * r.Intn(100/st+1)
	}
	native := r.Intn(2) == 0
	apply := oneOf(r, "Apply", "Save", "OK")
	var b strings.Builder
	b.WriteString(`<style>.sl{display:flex;align-items:center;gap:10px;margin:10px 0}.sl .name{width:90px}
.track{position:relative;width:220px;height:6px;background:#ccc;border-radius:3px;cursor:pointer}
.thumb{position:absolute;top:-6px;width:18px;height:18px;margin-left:-9px;border-radius:50%;background:#1976d2}
[role=slider]:focus{outline:2px solid #90caf9}</style>`)
	for i, n := range names {
		if native {
			fmt.Fprintf(&b, `<div class="sl"><label class="name" for="s%d">%s</label><input type="range" id="s%d" min="0" max="100" step="%s" value="%d"><output class="val">%d</output></div>`, i, n, i, stepText, starts[i], starts[i])
		} else {
			fmt.Fprintf(&b, `<div class="sl"><span class="name" id="l%d">%s</span><div class="track"><div class="thumb" id="s%d" role="slider" tabindex="0" aria-labelledby="l%d" aria-valuemin="0" aria-valuemax="100" aria-valuenow="%d" data-step="%s" style="left:%d%%"></div></div><span class="val">%d</span></div>`, i, n, i, i, starts[i], stepText, starts[i], starts[i])
		}
	}
	fmt.Fprintf(&b, `<button type="button" id="apply">%s</button>
<script>
function value(el) { return el.type === 'range' ? +el.value : +el.getAttribute('aria-valuenow'); }
function set(el, v) {
  const st = +el.dataset.step; v = Math.max(0, Math.min(100, Math.round(v / st) * st));
  el.setAttribute('aria-valuenow', v); el.style.left = v + '%%'; el.closest('.sl').querySelector('.val').textContent = v;
}
for (const s of document.querySelectorAll('input[type=range]')) s.addEventListener('input', () => { s.nextElementSibling.textContent = s.value; });
for (const s of document.querySelectorAll('[role=slider]')) {
  s.addEventListener('keydown', (e) => {
    const st = +s.dataset.step, v = value(s);
    const to = {ArrowRight: v + st, ArrowUp: v + st, ArrowLeft: v - st, ArrowDown: v - st, PageUp: v + 10 * st, PageDown: v - 10 * st, Home: 0, End: 100}[e.key];
    if (to === undefined) return;
    e.preventDefault(); set(s, to);
  });
  s.parentElement.addEventListener('mousedown', (e) => { const b = s.parentElement.getBoundingClientRect(); set(s, 100 * (e.clientX - b.left) / b.width); s.focus(); });
}
document.getElementById('apply').addEventListener('click', () => {
  const all = [...document.querySelectorAll('#s0, #s1, #s2')];
  verdict(all.every((el, i) => value(el) === (i === %d ? %d : %s[i])));
});
</script>`, apply, k, want, jsInts(starts))
	dir := "up"
	if want < starts[k] {
		dir = "down"
	}
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Set the %[1]s to %[2]d and click %[3]s.",
		"Move the %[1]s slider to %[2]d%%, then press %[3]s.",
		"Turn the %[1]s %[4]s to %[2]d and %[5]s.",
	}, strings.ToLower(names[k]), want, apply, dir, strings.ToLower(apply))
	sel := fmt.Sprintf("#s%d", k)
	sp.solve = append([]step{key(sel, "Home")}, repeat(want/st, key(sel, "ArrowRight"))...)
	sp.solve = append(sp.solve, click("#apply"))
	sp.wrong = []step{key(sel, "End"), click("#apply")}
	if want == 100 {
		sp.wrong[0] = key(sel, "Home")
	}
	return sp
}

// jsInts is a JavaScript array of numbers.
func jsInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// spinButton: set a count with a spin button: jQuery UI's spinner (an
// input with up and down arrow links, arrow keys step it) on some
// seeds, a shop's stepper (a read-only count between icon-only minus and
// plus buttons) on the others.
func spinButton(r *rand.Rand) spec {
	names := pick(r, []string{"Adults", "Children", "Rooms", "Guests", "Tickets", "Nights"}, 2+r.Intn(2))
	k := r.Intn(len(names))
	starts := make([]int, len(names))
	for i := range starts {
		starts[i] = r.Intn(3)
	}
	want := 1 + r.Intn(6)
	for want == starts[k] {
		want = 1 + r.Intn(6)
	}
	jq := r.Intn(2) == 0
	submit := oneOf(r, "Search", "Continue", "Update", "Apply")
	var b strings.Builder
	b.WriteString(`<style>.ui-spinner{display:inline-flex;border:1px solid #aaa}.ui-spinner-input{width:40px;border:0}.ui-spinner a{display:block;width:16px;height:11px;background:#eee;cursor:pointer;font-size:8px;text-align:center;text-decoration:none;color:#333}
.stepper{display:inline-flex;align-items:center;gap:8px}.stepper button{width:28px;height:28px;border-radius:50%;border:1px solid #888;background:#fff;cursor:pointer}
.stepper .i-minus::before{content:'\2212'}.stepper .i-plus::before{content:'+'}.row{margin:8px 0}.row .name{display:inline-block;width:90px}</style><form onsubmit="return false">`)
	for i, n := range names {
		if jq {
			fmt.Fprintf(&b, `<div class="row"><label class="name" for="n%d">%s</label><span class="ui-spinner"><input class="ui-spinner-input" id="n%d" role="spinbutton" aria-valuemin="0" aria-valuemax="9" aria-valuenow="%d" value="%d" autocomplete="off"><span><a class="ui-spinner-button ui-spinner-up"><span class="ui-icon ui-icon-triangle-1-n">&#9650;</span></a><a class="ui-spinner-button ui-spinner-down"><span class="ui-icon ui-icon-triangle-1-s">&#9660;</span></a></span></span></div>`, i, n, i, starts[i], starts[i])
		} else {
			fmt.Fprintf(&b, `<div class="row"><span class="name">%s</span><span class="stepper"><button type="button" class="minus"><i class="i-minus"></i></button><span class="count" id="n%d">%d</span><button type="button" class="plus"><i class="i-plus"></i></button></span></div>`, n, i, starts[i])
		}
	}
	fmt.Fprintf(&b, `<button type="button" id="go">%s</button></form>
<script>
const get = (el) => el.tagName === 'INPUT' ? parseInt(el.value, 10) || 0 : +el.textContent;
function put(el, v) { v = Math.max(0, Math.min(9, v)); if (el.tagName === 'INPUT') { el.value = v; el.setAttribute('aria-valuenow', v); } else el.textContent = v; }
document.addEventListener('click', (e) => {
  const b = e.target.closest('.ui-spinner-button, .stepper button');
  if (!b) return;
  const el = b.closest('.row').querySelector('#n0, #n1, #n2');
  put(el, get(el) + (b.matches('.ui-spinner-up, .plus') ? 1 : -1));
});
for (const el of document.querySelectorAll('.ui-spinner-input')) el.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowUp') { e.preventDefault(); put(el, get(el) + 1); }
  if (e.key === 'ArrowDown') { e.preventDefault(); put(el, get(el) - 1); }
});
document.getElementById('go').addEventListener('click', () => {
  const all = [...document.querySelectorAll('#n0, #n1, #n2')];
  verdict(all.every((el, i) => get(el) === (i === %d ? %d : %s[i])));
});
</script>`, submit, k, want, jsInts(starts))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Set %[1]s to %[2]d and click %[3]s.",
		"Change the number of %[1]s to %[2]d, then press %[3]s.",
		"%[4]s: %[2]d. Then %[5]s.",
	}, strings.ToLower(names[k]), want, submit, names[k], strings.ToLower(submit))
	row := fmt.Sprintf(".row:nth-child(%d)", k+1)
	up, down := row+" .ui-spinner-up", row+" .ui-spinner-down"
	if !jq {
		up, down = row+" .plus", row+" .minus"
	}
	if want > starts[k] {
		sp.solve = repeat(want-starts[k], click(up))
	} else {
		sp.solve = repeat(starts[k]-want, click(down))
	}
	sp.solve = append(sp.solve, click("#go"))
	sp.wrong = []step{click(up), click("#go")}
	if want == starts[k]+1 {
		sp.wrong = []step{click(down), click("#go")}
	}
	return sp
}

var amenities = []string{"Wi-Fi", "Parking", "Pool", "Gym", "Spa", "Breakfast", "Pet friendly", "Air conditioning", "Airport shuttle",
	"Restaurant", "Bar", "Kitchen", "Balcony", "Sea view", "Laundry", "Elevator", "Wheelchair access", "Non-smoking"}

// checkboxDozen: tick three to five of twelve filter checkboxes and
// apply; the order the boxes are ticked in does not matter.
func checkboxDozen(r *rand.Rand) spec {
	boxes := pick(r, amenities, 12)
	want := pick(r, boxes, 3+r.Intn(3))
	apply := oneOf(r, "Apply filters", "Apply", "Show results", "Update results")
	var b strings.Builder
	fmt.Fprintf(&b, `<style>.filters{columns:%d;max-width:460px}.filters label{display:block;margin:3px 0}</style><fieldset><legend>%s</legend><div class="filters">`,
		2+r.Intn(2), oneOf(r, "Amenities", "Facilities", "Filter by"))
	for i, x := range boxes {
		fmt.Fprintf(&b, `<label><input type="checkbox" name="amenity" value="a%d"> %s</label>`, i, x)
	}
	idx := make([]string, len(want))
	for i, w := range want {
		idx[i] = fmt.Sprintf("a%d", indexOf(boxes, w))
	}
	fmt.Fprintf(&b, `</div></fieldset><button type="button" id="apply">%s</button>
<script>
document.getElementById('apply').addEventListener('click', () => {
  const on = [...document.querySelectorAll('input[name=amenity]:checked')].map(x => x.value).sort();
  verdict(JSON.stringify(on) === JSON.stringify(%s.sort()));
});
</script>`, apply, jsList(idx))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Select %[1]s and click %[2]s.",
		"Filter by %[1]s, then press %[2]s.",
		"Tick the boxes for %[1]s and %[3]s.",
		"I need %[1]s: check them and click %[2]s.",
	}, listed(want), apply, strings.ToLower(apply))
	for _, i := range idx {
		sp.solve = append(sp.solve, tick(fmt.Sprintf(`input[value="%s"]`, i)))
	}
	sp.solve = append(sp.solve, click("#apply"))
	sp.wrong = append(append([]step{}, sp.solve[1:len(sp.solve)-1]...), click("#apply"))
	return sp
}

var wikiGroups = []string{"bot", "bureaucrat", "administrator", "interface administrator", "rollbacker", "autopatrolled",
	"event organizer", "IP block exempt", "editor", "reviewer", "translator", "uploader"}

// userGroups: add a user to a group on a wiki's user rights page
// (MediaWiki's Special:UserRights): a checkbox per group, the user's
// current groups ticked, a reason and a save button; on some seeds the
// page first asks for the user name.
func userGroups(r *rand.Rand) spec {
	gs := pick(r, wikiGroups, 7+r.Intn(4))
	user := people[r.Intn(len(people))]
	has := pick(r, gs, 1+r.Intn(2))
	var want string
	for _, g := range gs {
		if indexOf(has, g) < 0 {
			want = g
			break
		}
	}
	lookup := r.Intn(2) == 0
	var b strings.Builder
	b.WriteString(`<style>fieldset{margin:8px 0}.mw-userrights-groups label{display:block}</style><h1>User rights</h1>`)
	fmt.Fprintf(&b, `<form method="get" id="lookup"><fieldset><legend>Select a user</legend><label for="username">User:</label> <input name="user" id="username" size="30" value="%s"> <button type="submit">Load user groups</button></fieldset></form>`,
		map[bool]string{true: "", false: user}[lookup])
	fmt.Fprintf(&b, `<form id="groups" onsubmit="return false" style="display:none"><fieldset><legend>Changing user groups of <a href="#" id="who"></a></legend>
<p>Groups you can change:</p><div class="mw-userrights-groups">`)
	for i, g := range gs {
		checked := ""
		if indexOf(has, g) >= 0 {
			checked = " checked"
		}
		fmt.Fprintf(&b, `<div><input type="checkbox" name="wpGroup-%d" id="wpGroup-%d" value="%s"%s> <label for="wpGroup-%d">%s</label></div>`, i, i, g, checked, i, g)
	}
	fmt.Fprintf(&b, `</div><p><label for="wpReason">Reason:</label> <input id="wpReason" size="40"></p><button type="button" id="save">Save user groups</button></fieldset></form>
<script>
const params = new URLSearchParams(location.search), who = params.get('user') || %s;
if (who) { document.getElementById('groups').style.display = ''; document.getElementById('who').textContent = 'User:' + who; }
document.getElementById('save').addEventListener('click', () => {
  const on = [...document.querySelectorAll('.mw-userrights-groups input:checked')].map(x => x.value).sort();
  verdict(who.trim().toLowerCase() === %s && JSON.stringify(on) === JSON.stringify(%s.sort()));
});
</script>`, map[bool]string{true: "''", false: jsString(user)}[lookup], jsString(strings.ToLower(user)), jsList(append(append([]string{}, has...), want)))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Add the user %[1]s to the group %[2]s.",
		"Make %[1]s a member of the %[2]s group.",
		"Put %[1]s in group %[2]s and save.",
		"Add %[1]s to %[2]s.",
	}, user, want)
	if lookup {
		sp.solve = []step{fill("#username", user), click(`#lookup button`)}
	}
	i := indexOf(gs, want)
	sp.solve = append(sp.solve, tick(fmt.Sprintf("#wpGroup-%d", i)), click("#save"))
	sp.wrong = append(append([]step{}, sp.solve[:len(sp.solve)-2]...), step{"check", fmt.Sprintf("#wpGroup-%d", indexOf(gs, has[0])), "false"}, click("#save"))
	return sp
}
