package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"
)

// pickerScript finds the calendar a date field opened and answers about
// it. Its argument is [what, day]: "find" returns {found, month (0-11,
// -1 unknown), year, next, prev}; "next", "prev", "month_select",
// "year_select" and "day" return the element to act on, or null.
//
// A calendar is a shown table or ARIA grid whose cells hold the day
// numbers 1 to 28 at least (the one the field controls, else the one
// nearest the field); its box is the nearest ancestor holding a
// previous or next control (by its label, title, text or class: Next,
// ›, », →); its month and year are read from month and year selects, or
// from a "Month YYYY" header. Days of the adjacent months (classes such
// as other-month, outside, old, new, disabled) are never the day.
const pickerScript = `(el, arg) => {
  const what = arg[0], want = arg[1];
  const doc = el.ownerDocument;
  const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return !(e.checkVisibility && !e.checkVisibility({ visibilityProperty: true }));
  };
  const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
  const monthOf = (t) => { const m = /^([a-z]{3})/.exec(norm(t).toLowerCase()); return m ? months.indexOf(m[1]) : -1; };
  const num = (c) => { const t = norm(c.innerText || c.textContent); return /^\d{1,2}$/.test(t) ? Number(t) : 0; };
  const cells = (g) => Array.from(g.querySelectorAll('td,[role=gridcell]'));
  const isCalendar = (g) => { const s = new Set(cells(g).map(num)); for (let i = 1; i <= 28; i++) if (!s.has(i)) return false; return true; };
  const owned = norm((el.getAttribute('aria-controls') || '') + ' ' + (el.getAttribute('aria-owns') || '')).split(' ').filter(Boolean)
    .map(id => doc.getElementById(id)).filter(Boolean);
  const er = el.getBoundingClientRect();
  let grid = null, best = Infinity;
  for (const g of doc.querySelectorAll('table,[role=grid]')) {
    if (!shown(g) || !isCalendar(g)) continue;
    const r = g.getBoundingClientRect();
    let d = Math.hypot((r.left + r.right - er.left - er.right) / 2, (r.top + r.bottom - er.top - er.bottom) / 2);
    if (owned.some(o => o.contains(g) || g.contains(o))) d = -1;
    if (d < best) { best = d; grid = g; }
  }
  if (!grid) return what === 'find' ? { found: false } : null;
  const dayCell = (e) => grid.contains(e) && !!e.closest('td,[role=gridcell]') && !e.closest('thead');
  const label = (e) => norm([e.getAttribute('aria-label'), e.getAttribute('title'), e.innerText || e.textContent,
    typeof e.className === 'string' ? e.className.replace(/[-_]/g, ' ') : ''].join(' '));
  const nextRe = /\bnext\b|›|»|→|^>$/i, prevRe = /\bprev(ious)?\b|‹|«|←|^<$/i;
  const clickable = (e) => e.matches('a,button,[role=button],th,[tabindex]');
  const control = (root, re) => {
    const all = Array.from(root.querySelectorAll('a,button,[role=button],th,span,div,i')).filter(e => shown(e) && !dayCell(e) && e !== grid);
    const hits = all.filter(e => { const t = label(e); return re.test(t) && !/\byear\b|\bdecade\b/i.test(t) && norm(e.innerText).length < 40; });
    return hits.find(clickable) || hits[0] || null;
  };
  let root = grid;
  for (let i = 0; i < 6 && root.parentElement && root !== doc.body; i++) {
    if (control(root, nextRe) || control(root, prevRe)) break;
    root = root.parentElement;
  }
  if (!(control(root, nextRe) || control(root, prevRe))) root = grid.parentElement || grid;
  const selects = Array.from(root.querySelectorAll('select')).filter(shown);
  const monthSel = selects.find(s => s.options.length === 12 && Array.from(s.options).every((o, i) => monthOf(o.text) === i));
  const yearSel = selects.find(s => s.options.length > 0 && Array.from(s.options).every(o => /^\d{4}$/.test(norm(o.text))));
  if (what === 'next') return control(root, nextRe);
  if (what === 'prev') return control(root, prevRe);
  if (what === 'month_select') return monthSel || null;
  if (what === 'year_select') return yearSel || null;
  if (what === 'day') {
    const other = /other|outside|adjacent|disabled|muted|unselectable|prev-month|next-month|(^|\s)(old|new)(\s|$)/i;
    const off = (e) => e.getAttribute('aria-disabled') === 'true' || other.test(typeof e.className === 'string' ? e.className : '');
    for (const c of cells(grid)) {
      if (num(c) !== want || !shown(c)) continue;
      const inner = c.querySelector('a,button,[role=button]');
      if (off(c) || (inner && off(inner))) continue;
      return inner || c;
    }
    return null;
  }
  let month = -1, year = 0;
  if (monthSel) month = monthOf(monthSel.options[monthSel.selectedIndex].text);
  if (yearSel) year = Number(norm(yearSel.options[yearSel.selectedIndex].text));
  // The header: text outside the day cells and the selects.
  const parts = [];
  const walk = (n) => {
    if (n.nodeType === 3) { parts.push(n.nodeValue); return; }
    if (n.nodeType !== 1 || n.localName === 'select' || n.localName === 'tbody' || (n.matches('td,[role=gridcell]'))) return;
    if (!shown(n)) return;
    for (const c of n.childNodes) walk(c);
    parts.push(' ');
  };
  walk(root);
  const text = norm(parts.join(' '));
  const m = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(\d{4})\b/i.exec(text);
  if (m) { if (month < 0) month = months.indexOf(m[1].toLowerCase()); if (!year) year = Number(m[2]); }
  if (month < 0) { const only = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i.exec(text); if (only) month = months.indexOf(only[1].toLowerCase()); }
  if (!year) { const y = /\b(\d{4})\b/.exec(text); if (y) year = Number(y[1]); }
  // Where a pointer clicks each month control, when nothing covers it.
  const boxOf = (e) => {
    if (!e) return null;
    const r = e.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    const top = doc.elementFromPoint(x, y);
    return top && (top === e || e.contains(top)) ? { x, y } : null;
  };
  const fr = el.getBoundingClientRect();
  return { found: true, month, year, next: !!control(root, nextRe), prev: !!control(root, prevRe), selects: !!(monthSel && yearSel),
    next_at: boxOf(control(root, nextRe)), prev_at: boxOf(control(root, prevRe)), field_at: { x: fr.left, y: fr.top } };
}`

// pickerInfo is what pickerScript's "find" answers.
type pickerInfo struct {
	Found   bool `json:"found"`
	Month   int  `json:"month"`
	Year    int  `json:"year"`
	Next    bool `json:"next"`
	Prev    bool `json:"prev"`
	Selects bool `json:"selects"`
	// NextAt and PrevAt are where a pointer clicks the month controls,
	// in the field's frame, nil when something covers them; FieldAt is
	// the field's corner there (to move the points into the page).
	NextAt  *point `json:"next_at"`
	PrevAt  *point `json:"prev_at"`
	FieldAt *point `json:"field_at"`
}

type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

func findPicker(c *control) (pickerInfo, error) {
	var pi pickerInfo
	v, err := c.eval(pickerScript, []any{"find", 0})
	if err != nil {
		return pi, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return pi, fmt.Errorf("browser: reading a date picker: %w", err)
	}
	if err := json.Unmarshal(b, &pi); err != nil {
		return pi, fmt.Errorf("browser: reading a date picker: %w", err)
	}
	return pi, nil
}

// pickerElement is the picker's element for what, nil when it has none.
func pickerElement(c *control, what string, day int) (playwright.ElementHandle, error) {
	h, err := c.handle(pickerScript, []any{what, day})
	if err != nil {
		return nil, err
	}
	el := h.AsElement()
	if el == nil {
		h.Dispose()
	}
	return el, nil
}

// setText puts a value into a text field. A date opens the field's
// calendar when it has one and is picked there; else it is typed in the
// format the field shows (placeholder or pattern).
func (s *Session) setText(ctx context.Context, c *control, ci controlInfo, value string, timeout *float64) (string, error) {
	hint := dateHint(ci)
	want, ok := parseDate(value, hint)
	if !ok {
		if err := c.loc.Fill(value, playwright.LocatorFillOptions{Timeout: timeout}); err != nil {
			return "", err
		}
		return "type " + value, nil
	}
	if err := c.loc.Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
		return "", err
	}
	pi, err := s.waitPicker(ctx, c)
	if err != nil {
		return "", err
	}
	if !pi.Found {
		text := formatDate(want, hint)
		if text == "" {
			text = value
		}
		if err := c.loc.Fill(text, playwright.LocatorFillOptions{Timeout: timeout}); err != nil {
			return "", err
		}
		return "type " + text, s.checkDate(c, ci, hint, want)
	}
	var steps []string
	target := want.Year()*12 + int(want.Month()) - 1
	if pi.Selects && pi.Month >= 0 && pi.Year > 0 && target != pi.Year*12+pi.Month {
		if err := s.pickerSelects(c, want, timeout); err != nil {
			return "", err
		}
		steps = append(steps, fmt.Sprintf("select %04d-%02d", want.Year(), int(want.Month())))
		if pi, err = findPicker(c); err != nil {
			return "", err
		}
	}
	var log keyLog
	s.fieldBox = nil
	for n := 0; ; n++ {
		if !pi.Found || pi.Month < 0 || pi.Year <= 0 {
			return "", notSet("the date picker of %s shows no month and year", describeControl(ci))
		}
		shown := pi.Year*12 + pi.Month
		if shown == target {
			break
		}
		if n >= maxPickerMonths {
			return "", notSet("the date picker of %s did not reach %s within %d months", describeControl(ci), want.Format("January 2006"), maxPickerMonths)
		}
		what := "next"
		if target < shown {
			what = "prev"
		}
		clicks, err := s.clickMonth(c, pi, what, min(abs(target-shown), monthBatch), timeout)
		if err != nil {
			if _, ok := err.(*ActionError); ok {
				return "", notSet("the date picker of %s shows %s and has no %s-month control", describeControl(ci), monthName(pi), what)
			}
			return "", err
		}
		for range clicks {
			log.add(what)
		}
		n += clicks - 1
		if pi, err = findPicker(c); err != nil {
			return "", err
		}
		if pi.Found && pi.Year*12+pi.Month == shown {
			// An animated month change: give it page time.
			if err := s.advance(ctx, pickerWait); err != nil {
				return "", err
			}
			if pi, err = findPicker(c); err != nil {
				return "", err
			}
			if pi.Found && pi.Year*12+pi.Month == shown {
				return "", notSet("the date picker of %s stays at %s when %s is clicked", describeControl(ci), monthName(pi), what)
			}
		}
	}
	if len(log.parts) > 0 {
		steps = append(steps, log.parts...)
	}
	day, err := pickerElement(c, "day", want.Day())
	if err != nil {
		return "", err
	}
	if day == nil {
		return "", notSet("the date picker of %s shows no day %d in %s", describeControl(ci), want.Day(), want.Format("January 2006"))
	}
	err = day.Click(playwright.ElementHandleClickOptions{Timeout: timeout})
	day.Dispose()
	if err != nil {
		return "", err
	}
	steps = append(steps, "day "+strconv.Itoa(want.Day()))
	return "picker " + strings.Join(steps, " "), s.checkDate(c, ci, hint, want)
}

// monthBatch is how many month clicks go in a row before the picker is
// read again.
const monthBatch = 12

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// clickMonth clicks the picker's next or previous month control up to n
// times in a row with the pointer where the picker says it is, else once
// on the control's element; it returns the clicks made.
func (s *Session) clickMonth(c *control, pi pickerInfo, what string, n int, timeout *float64) (int, error) {
	at := pi.NextAt
	if what == "prev" {
		at = pi.PrevAt
	}
	if at != nil && pi.FieldAt != nil {
		if s.fieldBox == nil {
			// The field's box in the page, once: the picker's points are in
			// the field's frame.
			bb, err := c.loc.BoundingBox()
			if err != nil || bb == nil {
				return 0, notSet("the field is not on screen")
			}
			s.fieldBox = &point{X: bb.X - pi.FieldAt.X, Y: bb.Y - pi.FieldAt.Y}
		}
		for i := range n {
			if err := s.page.Mouse().Click(at.X+s.fieldBox.X, at.Y+s.fieldBox.Y); err != nil {
				return i, err
			}
		}
		return n, nil
	}
	ctl, err := pickerElement(c, what, 0)
	if err != nil {
		return 0, err
	}
	if ctl == nil {
		return 0, notSet("no %s control", what)
	}
	defer ctl.Dispose()
	return 1, ctl.Click(playwright.ElementHandleClickOptions{Timeout: timeout})
}

// waitPicker looks for the calendar the click opened, giving an animated
// one a little page time.
func (s *Session) waitPicker(ctx context.Context, c *control) (pickerInfo, error) {
	pi, err := findPicker(c)
	if err != nil || pi.Found {
		return pi, err
	}
	if err := s.advance(ctx, pickerWait); err != nil {
		return pi, err
	}
	return findPicker(c)
}

// pickerSelects chooses the month and year in a picker's selects.
func (s *Session) pickerSelects(c *control, want time.Time, timeout *float64) error {
	for _, sel := range []struct {
		what, label string
	}{{"year_select", strconv.Itoa(want.Year())}, {"month_select", ""}} {
		el, err := pickerElement(c, sel.what, 0)
		if err != nil {
			return err
		}
		if el == nil {
			return notSet("the date picker's %s is gone", strings.ReplaceAll(sel.what, "_", " "))
		}
		opts := playwright.SelectOptionValues{Labels: &[]string{sel.label}}
		if sel.label == "" {
			opts = playwright.SelectOptionValues{Indexes: &[]int{int(want.Month()) - 1}}
		}
		_, err = el.SelectOption(opts, playwright.ElementHandleSelectOptionOptions{Timeout: timeout})
		el.Dispose()
		if err != nil {
			return notSet("the date picker has no %s %s: %v", strings.TrimSuffix(sel.what, "_select"), sel.label, firstLine(err.Error()))
		}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.Index(s, "\n"); i > 0 {
		return s[:i]
	}
	return s
}

// checkDate checks that the field now holds the date.
func (s *Session) checkDate(c *control, ci controlInfo, hint string, want time.Time) error {
	after, err := c.read()
	if err != nil {
		return err
	}
	got, ok := parseDate(after.Value, hint)
	if !ok || !got.Equal(want) {
		return notSet("%s holds %q, not %s", describeControl(ci), after.Value, want.Format("2006-01-02"))
	}
	return nil
}

func monthName(pi pickerInfo) string {
	if pi.Month < 0 || pi.Month > 11 {
		return "no month"
	}
	return time.Month(pi.Month+1).String() + " " + strconv.Itoa(pi.Year)
}

// dateHint is the date layout a field shows: its placeholder (or
// data-date-format) when that is one ("mm/dd/yyyy", "DD.MM.YYYY"), else
// one read from its pattern when that starts with the year.
func dateHint(ci controlInfo) string {
	if layoutRE.MatchString(ci.Placeholder) {
		return strings.TrimSpace(ci.Placeholder)
	}
	if m := yearFirstPattern.FindStringSubmatch(ci.Pattern); m != nil {
		sep := strings.TrimPrefix(m[1], `\`)
		return "yyyy" + sep + "mm" + sep + "dd"
	}
	return ""
}

var (
	layoutRE         = regexp.MustCompile(`(?i)^\s*([ymd]+)([^ymd\s]+)([ymd]+)([^ymd\s]+)([ymd]+)\s*$`)
	yearFirstPattern = regexp.MustCompile(`^\^?\\d\{4\}(\\?[-/.])`)
	isoDateRE        = regexp.MustCompile(`\b(\d{4})-(\d{1,2})-(\d{1,2})\b`)
	numDateRE        = regexp.MustCompile(`\b(\d{1,4})[/.\-](\d{1,2})[/.\-](\d{1,4})\b`)
	monthDayYearRE   = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	dayMonthYearRE   = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(\d{4})\b`)
)

var monthAbbr = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "oct": 10, "nov": 11, "dec": 12}

// parseDate reads a calendar date from a value: ISO (2011-10-11), numeric
// in the order the hint gives (month first when it gives none, day first
// when the first number cannot be a month), or with a month name
// ("October 11, 2011", "11 Oct 2011").
func parseDate(v, hint string) (time.Time, bool) {
	mk := func(y, m, d int) (time.Time, bool) {
		if y < 100 {
			y += 2000
			if y > 2069 {
				y -= 100
			}
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		return t, m >= 1 && m <= 12 && t.Day() == d && int(t.Month()) == m
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if m := isoDateRE.FindStringSubmatch(v); m != nil {
		return mk(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if m := monthDayYearRE.FindStringSubmatch(v); m != nil {
		return mk(atoi(m[3]), monthAbbr[strings.ToLower(m[1])], atoi(m[2]))
	}
	if m := dayMonthYearRE.FindStringSubmatch(v); m != nil {
		return mk(atoi(m[3]), monthAbbr[strings.ToLower(m[2])], atoi(m[1]))
	}
	if m := numDateRE.FindStringSubmatch(v); m != nil {
		a, b, c := atoi(m[1]), atoi(m[2]), atoi(m[3])
		if len(m[1]) == 4 {
			return mk(a, b, c)
		}
		order := "mdy"
		if h := layoutRE.FindStringSubmatch(hint); h != nil {
			order = strings.ToLower(h[1][:1] + h[3][:1] + h[5][:1])
		}
		if order == "mdy" && a > 12 {
			order = "dmy"
		}
		switch order {
		case "dmy":
			return mk(c, b, a)
		case "ymd":
			return mk(a, b, c)
		}
		return mk(c, a, b)
	}
	return time.Time{}, false
}

// formatDate writes a date in a layout hint ("mm/dd/yyyy", "d.m.yy"),
// "" when the hint is none.
func formatDate(t time.Time, hint string) string {
	h := layoutRE.FindStringSubmatch(hint)
	if h == nil {
		return ""
	}
	part := func(tok string) string {
		tok = strings.ToLower(tok)
		switch tok[0] {
		case 'y':
			if len(tok) <= 2 {
				return fmt.Sprintf("%02d", t.Year()%100)
			}
			return fmt.Sprintf("%04d", t.Year())
		case 'm':
			if len(tok) == 1 {
				return strconv.Itoa(int(t.Month()))
			}
			return fmt.Sprintf("%02d", int(t.Month()))
		}
		if len(tok) == 1 {
			return strconv.Itoa(t.Day())
		}
		return fmt.Sprintf("%02d", t.Day())
	}
	return part(h[1]) + h[2] + part(h[3]) + h[4] + part(h[5])
}
