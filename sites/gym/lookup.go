package gym

import (
	"fmt"
	"math/rand"
	"strings"
)

// records are the kinds of list a back office shows, each with the name
// of its rows, its columns and a generator of each column's values.
var records = []struct {
	rows []string
	cols []string
	gen  []func(r *rand.Rand) string
}{
	{[]string{"Harbor Lamp", "Reading Lamp", "Desk Fan", "Wall Clock", "Floor Rug", "Side Table"}, []string{"SKU", "Price", "Stock"},
		[]func(r *rand.Rand) string{
			func(r *rand.Rand) string {
				return fmt.Sprintf("%c%c-%03d", 'A'+r.Intn(26), 'A'+r.Intn(26), r.Intn(1000))
			},
			func(r *rand.Rand) string { return fmt.Sprintf("$%d.%02d", 5+r.Intn(200), r.Intn(100)) },
			func(r *rand.Rand) string { return fmt.Sprint(r.Intn(90)) },
		}},
	{people, []string{"Extension", "Office", "Team"},
		[]func(r *rand.Rand) string{
			func(r *rand.Rand) string { return fmt.Sprint(2000 + r.Intn(7000)) },
			func(r *rand.Rand) string { return cities[r.Intn(len(cities))] },
			func(r *rand.Rand) string { return teams[r.Intn(len(teams))] },
		}},
	{[]string{"Invoice 2041", "Invoice 2042", "Invoice 2057", "Invoice 2063", "Invoice 2078"}, []string{"Customer", "Amount due", "Due date"},
		[]func(r *rand.Rand) string{
			func(r *rand.Rand) string { return people[r.Intn(len(people))] },
			func(r *rand.Rand) string { return fmt.Sprintf("%d.%02d", 40+r.Intn(900), r.Intn(100)) },
			func(r *rand.Rand) string { return fmt.Sprintf("2026-%02d-%02d", 1+r.Intn(12), 1+r.Intn(28)) },
		}},
}

// copyValue: a list of records (a table with column headers, cards with
// a definition list, or cards of "Label: value" lines) above a form of
// one field; the goal names a value of the list by its record and
// column, and the form takes it. A wrong value submitted shows the
// failure verdict.
func copyValue(r *rand.Rand) spec {
	rec := records[r.Intn(len(records))]
	rows := pick(r, rec.rows, 3+r.Intn(2))
	vals := make([][]string, len(rows))
	for i := range rows {
		for _, g := range rec.gen {
			vals[i] = append(vals[i], g(r))
		}
	}
	row, col := r.Intn(len(rows)), r.Intn(len(rec.cols))
	want := vals[row][col]
	field := oneOf(r, "Reference", "Value", "Note", "Answer")
	button := oneOf(r, "Save", "Submit", "Record", "Apply")
	var b strings.Builder
	switch r.Intn(3) {
	case 0:
		fmt.Fprintf(&b, `<table class="records"><thead><tr><th>%s</th>`, oneOf(r, "Name", "Item", "Record"))
		for _, c := range rec.cols {
			fmt.Fprintf(&b, `<th>%s</th>`, c)
		}
		b.WriteString(`</tr></thead><tbody>`)
		for i, n := range rows {
			fmt.Fprintf(&b, `<tr><td><a href="#r%d">%s</a></td>`, i, n)
			for _, v := range vals[i] {
				fmt.Fprintf(&b, `<td>%s</td>`, v)
			}
			b.WriteString(`</tr>`)
		}
		b.WriteString(`</tbody></table>`)
	case 1:
		for i, n := range rows {
			fmt.Fprintf(&b, `<section class="card"><h4>%s</h4><dl>`, n)
			for k, c := range rec.cols {
				fmt.Fprintf(&b, `<dt>%s</dt><dd>%s</dd>`, c, vals[i][k])
			}
			b.WriteString(`</dl></section>`)
		}
	default:
		for i, n := range rows {
			fmt.Fprintf(&b, `<div class="card"><h4>%s</h4><ul>`, n)
			for k, c := range rec.cols {
				fmt.Fprintf(&b, `<li><strong>%s:</strong> %s</li>`, c, vals[i][k])
			}
			b.WriteString(`</ul></div>`)
		}
	}
	fmt.Fprintf(&b, `<form id="f" onsubmit="return false"><label for="v">%s</label> <input id="v" type="text"> <button type="button" id="go">%s</button></form>
<script>document.getElementById('go').addEventListener('click', () => verdict(document.getElementById('v').value.trim() === %s));</script>`,
		field, button, jsString(want))
	other := vals[(row+1)%len(rows)][col]
	sp := spec{body: b.String(), solve: []step{fill("#v", want), click("#go")}, wrong: []step{fill("#v", other), click("#go")}}
	sp.phrase(r, []string{
		"Enter the %[1]s of %[2]s into the %[3]s field and click %[4]s.",
		"Find the %[1]s for %[2]s and type it into %[3]s, then press %[4]s.",
		"Look up %[2]s's %[1]s, write it in the %[3]s box and click %[4]s.",
	}, strings.ToLower(rec.cols[col]), rows[row], field, button)
	return sp
}
