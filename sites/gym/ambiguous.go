package gym

import (
	"fmt"
	"math/rand"
	"strings"
)

// Ambiguous families: several candidates look alike and the goal does not
// tell them apart; only trying does, and a wrong try shows an error (a
// mirror that is down, a slot just taken, an expired coupon, a seller out
// of stock). A sequential agent has to guess; a search tries the
// candidates side by side. A table lookup, where lookalike buttons are
// told apart by their row, is here too but is not ambiguous.

var ambiguous = map[string]bool{"mirrors": true, "slots": true, "coupons": true, "sellers": true}

// Ambiguous reports whether a family's page does not tell the right
// candidate from the others until one is tried.
func Ambiguous(family string) bool { return ambiguous[family] }

var cities = []string{"Oslo", "Lyon", "Porto", "Graz", "Turku", "Gent", "Brno", "Cork", "Bergen", "Malmo"}

// mirrors: download a file from one of several mirrors; all but one are
// down.
func mirrors(r *rand.Rand) (string, string) {
	file := lorem[r.Intn(len(lorem))] + fmt.Sprintf("-%d.%d.tar.gz", 1+r.Intn(4), r.Intn(10))
	n := 3 + r.Intn(2)
	good := r.Intn(n)
	label := []string{"Download", "Get file", "Download now"}[r.Intn(3)]
	var b strings.Builder
	fmt.Fprintf(&b, `<h1>%s</h1><p>%s</p>`, file, strings.Join(pick(r, lorem, 10), " "))
	for i, c := range pick(r, cities, n) {
		fmt.Fprintf(&b, `<section><h3>Mirror %s</h3><p>%s</p><button type="button" onclick="%s">%s</button></section>`,
			c, strings.Join(pick(r, lorem, 5), " "), tryOnce(i == good, "This mirror is not responding."), label)
	}
	return fmt.Sprintf("Download %s from a mirror that works.", file), b.String()
}

// tryOnce is a handler that gives the verdict and, on a wrong try, shows
// the site's error first.
func tryOnce(ok bool, why string) string {
	if ok {
		return "verdict(true)"
	}
	return fmt.Sprintf("const e = document.createElement('p'); e.setAttribute('role', 'alert'); e.textContent = '%s'; document.body.appendChild(e); verdict(false)", why)
}

var weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}

// slots: book a free slot on a named day; one slot of the day shows as
// full, and of the others all but one turn out to be taken on click.
func slots(r *rand.Rand) (string, string) {
	days := pick(r, weekdays, 3)
	want := r.Intn(len(days))
	book := []string{"Book", "Reserve", "Select"}[r.Intn(3)]
	var b strings.Builder
	b.WriteString(`<table><tr><th>Day</th><th>Time</th><th></th></tr>`)
	for i, d := range days {
		n := 3 + r.Intn(2)
		full, free := r.Intn(n), r.Intn(n-1)
		open := 0
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, `<tr><td>%s</td><td>%d:00</td>`, d, 9+j)
			if j == full {
				fmt.Fprintf(&b, `<td><button type="button" disabled>Full</button></td></tr>`)
				continue
			}
			fmt.Fprintf(&b, `<td><button type="button" onclick="%s">%s</button></td></tr>`,
				tryOnce(i == want && open == free, "Sorry, this slot was just taken."), book)
			open++
		}
	}
	b.WriteString(`</table>`)
	return fmt.Sprintf("%s a free slot on %s.", book, days[want]), b.String()
}

// coupons: use one of the listed coupon codes and apply it; all but one
// have expired.
func coupons(r *rand.Rand) (string, string) {
	cs := codes(r, 3+r.Intn(2))
	good := cs[r.Intn(len(cs))]
	apply := []string{"Apply", "Redeem", "Apply code"}[r.Intn(3)]
	use := []string{"Use", "Copy to field", "Use this code"}[r.Intn(3)]
	var b strings.Builder
	fmt.Fprintf(&b, `<p>%s</p><ul>`, strings.Join(pick(r, lorem, 8), " "))
	for _, c := range cs {
		fmt.Fprintf(&b, `<li><code>%s</code> %d%% off <button type="button" onclick="cc.value = '%s'">%s</button></li>`, strings.ToUpper(c), 5*(1+r.Intn(6)), strings.ToUpper(c), use)
	}
	fmt.Fprintf(&b, `</ul><form onsubmit="return false"><label>Coupon code <input type="text" id="cc"></label>
<button type="button" onclick="if (!cc.value) return; if (cc.value === '%s') verdict(true); else { const e = document.createElement('p'); e.setAttribute('role', 'alert'); e.textContent = 'This coupon has expired.'; document.body.appendChild(e); verdict(false); }">%s</button></form>`,
		strings.ToUpper(good), apply)
	goals := []string{"Use a coupon from the list that is still valid and click %s.", "Enter a coupon code that still works and press %s.",
		"Pick one of the listed coupons that has not expired, then click %s."}
	return fmt.Sprintf(goals[r.Intn(len(goals))], apply), b.String()
}

// sellers: add an item to the cart from one of several sellers offering
// it; all but one turn out to be sold out.
func sellers(r *rand.Rand) (string, string) {
	item := title(strings.Join(pick(r, lorem, 2), " "))
	n := 2 + r.Intn(3)
	good := r.Intn(n)
	add := []string{"Add to cart", "Add to basket", "Buy"}[r.Intn(3)]
	var b strings.Builder
	fmt.Fprintf(&b, `<h1>%s</h1><p>%s</p>`, item, strings.Join(pick(r, lorem, 12), " "))
	for i, s := range codes(r, n) {
		fmt.Fprintf(&b, `<article><h3>%s %s</h3><p>Sold by %s. %d.%02d €</p><button type="button" onclick="%s">%s</button></article>`,
			item, "offer", title(strings.ToLower(s)), 10+r.Intn(30), r.Intn(100), tryOnce(i == good, "Sorry, this seller is out of stock."), add)
	}
	return fmt.Sprintf("Add %s to the cart from any seller.", item), b.String()
}

var people = []string{"Ana Silva", "Ben Okafor", "Chen Wei", "Dana Levi", "Emil Berg", "Fatima Khan", "Goran Ilic", "Hana Sato"}
var teams = []string{"Sales", "Support", "Finance", "Legal", "Design", "Ops"}

// table: in a table where some names repeat, press the row's button for
// a person of a named team.
func table(r *rand.Rand) (string, string) {
	names := pick(r, people, 3+r.Intn(2))
	ts := pick(r, teams, 4)
	type row struct{ name, team, city string }
	var rows []row
	for _, n := range names {
		rows = append(rows, row{n, ts[r.Intn(2)], cities[r.Intn(len(cities))]})
	}
	twin := rows[r.Intn(len(rows))]
	other := ts[2+r.Intn(2)]
	rows = append(rows, row{twin.name, other, cities[r.Intn(len(cities))]})
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	wantTeam := []string{twin.team, other}[r.Intn(2)]
	act := []string{"Edit", "Open", "Details"}[r.Intn(3)]
	var b strings.Builder
	b.WriteString(`<table><tr><th>Name</th><th>Team</th><th>City</th><th></th></tr>`)
	for _, x := range rows {
		fmt.Fprintf(&b, `<tr><td>%s</td><td>%s</td><td>%s</td><td><button type="button" onclick="verdict(%t)">%s</button></td></tr>`,
			x.name, x.team, x.city, x.name == twin.name && x.team == wantTeam, act)
	}
	b.WriteString(`</table>`)
	return fmt.Sprintf("Click %s in the row of %s from %s.", act, twin.name, wantTeam), b.String()
}
