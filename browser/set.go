package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// A set action makes a control hold a value the way a person would:
//
//   - a native input whose value the browser's own editor sets (date,
//     time, datetime-local, month, week, range, color) and a number
//     input are filled with the value in the control's format;
//   - a slider or spin button (ARIA role slider or spinbutton) gets the
//     keys a person presses on it (Home, End, the arrows, Page Up and
//     Page Down) until it shows the value, or a drag along its track by
//     proportion when keys do nothing;
//   - a text field that opens a calendar is clicked, the calendar is
//     stepped month by month to the target month and the day clicked;
//     without a calendar the date is typed in the format the field's
//     placeholder or pattern shows.
//
// What it did is returned as its via ("keys End ArrowLeft×3"): the same
// page gives the same via, so a strict replay repeats it exactly. It
// only clicks, types, presses navigation keys and drags: nothing a click
// would not send (it never presses Enter).

// maxSetPresses bounds the key presses of one set action, and
// maxPickerMonths the months a date picker is stepped through.
const (
	maxSetPresses   = 400
	maxPickerMonths = 240
	// pickerWait is the page time a date picker gets to open (animations
	// run on the pinned clock).
	pickerWait = 400 * time.Millisecond
)

// fillTypes are the input types whose value Playwright's fill sets
// directly, in the control's own format.
var fillTypes = map[string]bool{"date": true, "time": true, "datetime-local": true, "month": true, "week": true,
	"range": true, "color": true, "number": true}

// textTypes are the input types a person types text into; one may open a
// date picker.
var textTypes = map[string]bool{"": true, "text": true, "search": true, "tel": true, "url": true}

// controlInfo is what a set action reads of its control.
type controlInfo struct {
	Tag         string   `json:"tag"`
	Type        string   `json:"type"`
	Role        string   `json:"role"`
	Value       string   `json:"value"`
	Now         *float64 `json:"now"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	Step        *float64 `json:"step"`
	Text        string   `json:"text"`
	Placeholder string   `json:"placeholder"`
	Pattern     string   `json:"pattern"`
	Vertical    bool     `json:"vertical"`
}

// controlScript reads a control's kind, value and bounds: ARIA
// aria-value* first, then the native value, min, max and step.
const controlScript = `(el) => {
  const num = (v) => { if (v === null || v === undefined || String(v).trim() === '') return null; const n = Number(v); return isFinite(n) ? n : null; };
  const tag = el.localName, type = tag === 'input' ? (el.getAttribute('type') || '').toLowerCase() : '';
  const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
  const aria = el.hasAttribute('aria-valuenow') || el.hasAttribute('aria-valuemin') || el.hasAttribute('aria-valuemax');
  const native = tag === 'input' && (type === 'range' || type === 'number');
  const out = { tag, type, role, value: 'value' in el ? String(el.value) : '',
    placeholder: el.getAttribute('placeholder') || el.getAttribute('data-date-format') || '', pattern: el.getAttribute('pattern') || '',
    vertical: el.getAttribute('aria-orientation') === 'vertical' };
  if (aria && !native) {
    out.now = num(el.getAttribute('aria-valuenow')); out.min = num(el.getAttribute('aria-valuemin')); out.max = num(el.getAttribute('aria-valuemax'));
    out.text = el.getAttribute('aria-valuetext') || '';
    if (out.now === null) out.now = num((el.innerText || el.textContent || '').trim());
  } else if (native) {
    out.now = num(el.value); out.min = num(el.getAttribute('min')); out.max = num(el.getAttribute('max')); out.step = num(el.getAttribute('step'));
    if (type === 'range') { if (out.min === null) out.min = 0; if (out.max === null) out.max = 100; }
  } else if (role === 'spinbutton' || role === 'slider') {
    out.now = num('value' in el ? el.value : (el.innerText || el.textContent || '').trim());
  }
  if (out.step === null || out.step === undefined) out.step = num(el.getAttribute('data-step') || el.getAttribute('step'));
  return out;
}`

// control is the element a set action works on: its locator for what
// Playwright does as a person (fill, click, select), and its element
// and frame for the many reads in between (one round trip each).
type control struct {
	loc   playwright.Locator
	el    playwright.ElementHandle
	frame playwright.Frame
}

// newControl takes hold of the locator's element.
func newControl(loc playwright.Locator) (*control, error) {
	el, err := loc.ElementHandle()
	if err != nil {
		return nil, err
	}
	f, err := el.OwnerFrame()
	if err != nil || f == nil {
		el.Dispose()
		return nil, &ActionError{Code: branch.CodeSelectorNotFound, Msg: "set: the control is in no frame"}
	}
	return &control{loc: loc, el: el, frame: f}, nil
}

func (c *control) close() { c.el.Dispose() }

// eval runs script(el, arg) in the control's frame.
func (c *control) eval(script string, arg any) (any, error) {
	return c.frame.Evaluate("([el, arg]) => ("+script+")(el, arg)", []any{c.el, arg})
}

// handle runs script(el, arg) in the control's frame and returns the
// handle of its result.
func (c *control) handle(script string, arg any) (playwright.JSHandle, error) {
	return c.frame.EvaluateHandle("([el, arg]) => ("+script+")(el, arg)", []any{c.el, arg})
}

// read reads the control's state.
func (c *control) read() (controlInfo, error) {
	var ci controlInfo
	v, err := c.eval(controlScript, nil)
	if err != nil {
		return ci, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ci, fmt.Errorf("browser: reading a control: %w", err)
	}
	if err := json.Unmarshal(b, &ci); err != nil {
		return ci, fmt.Errorf("browser: reading a control: %w", err)
	}
	return ci, nil
}

func notSet(format string, args ...any) *ActionError {
	return &ActionError{Code: branch.CodeValueNotSet, Msg: fmt.Sprintf(format, args...)}
}

// set executes a set action on the resolved control and returns its via.
func (s *Session) set(ctx context.Context, loc playwright.Locator, value string, timeout *float64) (string, error) {
	c, err := newControl(loc)
	if err != nil {
		return "", err
	}
	defer c.close()
	ci, err := c.read()
	if err != nil {
		return "", err
	}
	switch {
	case ci.Tag == "input" && fillTypes[ci.Type]:
		if d, ok := parseDate(value, ""); ok && ci.Type == "date" {
			// A date input's own format: what a person picks in its
			// calendar, whatever way the date was written.
			value = d.Format("2006-01-02")
		}
		via, err := fillAndCheck(c, ci, value, timeout)
		if err == nil || ci.Type != "number" {
			return via, err
		}
		// A number field that will not take typing (read-only, a
		// stepper's own field): its arrows, as a person would.
		return s.setByKeys(ctx, c, value, timeout)
	case ci.Role == "slider" || ci.Role == "spinbutton":
		return s.setByKeys(ctx, c, value, timeout)
	case ci.Tag == "select":
		if _, err := c.loc.SelectOption(playwright.SelectOptionValues{Values: &[]string{value}}, playwright.LocatorSelectOptionOptions{Timeout: timeout}); err != nil {
			if _, err := c.loc.SelectOption(playwright.SelectOptionValues{Labels: &[]string{value}}, playwright.LocatorSelectOptionOptions{Timeout: timeout}); err != nil {
				return "", err
			}
		}
		return "select " + value, nil
	case ci.Tag == "input" && (ci.Type == "checkbox" || ci.Type == "radio"):
		return "check " + value, c.loc.SetChecked(value != "false", playwright.LocatorSetCheckedOptions{Timeout: timeout})
	case ci.Tag == "input" && textTypes[ci.Type], ci.Tag == "textarea":
		return s.setText(ctx, c, ci, value, timeout)
	}
	return "", &ActionError{Code: branch.CodeUnsupported, Msg: fmt.Sprintf("set: %s is not a control that holds a value", describeControl(ci))}
}

func describeControl(ci controlInfo) string {
	d := "<" + ci.Tag
	if ci.Type != "" {
		d += " type=" + ci.Type
	}
	if ci.Role != "" {
		d += " role=" + ci.Role
	}
	return d + ">"
}

// fillAndCheck fills a native control and checks that it holds the
// value (the browser drops a value out of the control's format, range
// or step).
func fillAndCheck(c *control, ci controlInfo, value string, timeout *float64) (string, error) {
	if err := c.loc.Fill(value, playwright.LocatorFillOptions{Timeout: timeout}); err != nil {
		if strings.Contains(err.Error(), "Malformed value") {
			// The browser emptied the control: it gets back what it held.
			c.loc.Fill(ci.Value, playwright.LocatorFillOptions{Timeout: timeout})
			return "", notSet("%s does not take %q: not in its format", describeControl(ci), value)
		}
		return "", err
	}
	after, err := c.read()
	if err != nil {
		return "", err
	}
	if !sameValue(after.Value, value) {
		return "", notSet("%s holds %q after filling %q (out of its range or step?)", describeControl(ci), after.Value, value)
	}
	return "fill " + value, nil
}

// sameValue compares what a control holds with what was asked: equal
// text, equal numbers, or equal colours in any case.
func sameValue(have, want string) bool {
	if have == want || strings.EqualFold(have, want) {
		return true
	}
	a, errA := strconv.ParseFloat(strings.TrimSpace(have), 64)
	b, errB := strconv.ParseFloat(strings.TrimSpace(want), 64)
	return errA == nil && errB == nil && nearly(a, b)
}

func nearly(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// keyLog collects the keys pressed, run-length encoded for the via.
type keyLog struct{ parts []string }

func (k *keyLog) add(key string) {
	if n := len(k.parts); n > 0 {
		last := k.parts[n-1]
		name, count := last, 1
		if i := strings.LastIndex(last, "×"); i > 0 {
			name = last[:i]
			count, _ = strconv.Atoi(last[i+len("×"):])
		}
		if name == key {
			k.parts[n-1] = fmt.Sprintf("%s×%d", key, count+1)
			return
		}
	}
	k.parts = append(k.parts, key)
}

func (k *keyLog) String() string { return "keys " + strings.Join(k.parts, " ") }

// focusedScript reports whether the element holds the focus.
const focusedScript = `(el) => { const a = el.ownerDocument.activeElement; return !!a && (a === el || el.contains(a)); }`

// setByKeys moves a slider or spin button to the value with the keys the
// WAI-ARIA practices give them, reading the control after every press.
// A value that is not a number is matched against aria-valuetext.
func (s *Session) setByKeys(ctx context.Context, c *control, value string, timeout *float64) (string, error) {
	ci, err := c.read()
	if err != nil {
		return "", err
	}
	target, numeric := parseNumber(value)
	if numeric {
		if ci.Min != nil && target < *ci.Min-1e-9 || ci.Max != nil && target > *ci.Max+1e-9 {
			return "", notSet("%v is outside the range %s of %s", value, bounds(ci), describeControl(ci))
		}
		if ci.Now != nil && nearly(*ci.Now, target) {
			return "already " + value, nil
		}
	} else if strings.EqualFold(strings.TrimSpace(ci.Text), strings.TrimSpace(value)) {
		return "already " + value, nil
	}
	if err := c.loc.Focus(playwright.LocatorFocusOptions{Timeout: timeout}); err != nil {
		return "", err
	}
	if focused, err := c.eval(focusedScript, nil); err != nil {
		return "", err
	} else if focused != true {
		// Keys would go to the page (and scroll it): a thumb nobody can
		// tab to is dragged.
		if numeric && ci.Role == "slider" {
			return s.setByDrag(ctx, c, ci, target, value)
		}
		return "", notSet("%s does not take the focus, so keys cannot move it", describeControl(ci))
	}
	up, down := []string{"ArrowRight", "ArrowUp"}, []string{"ArrowLeft", "ArrowDown"}
	if ci.Role == "spinbutton" || ci.Type == "number" || ci.Vertical {
		up, down = []string{"ArrowUp", "ArrowRight"}, []string{"ArrowDown", "ArrowLeft"}
	}
	var log keyLog
	presses := 0
	press := func(key string) (controlInfo, error) {
		presses++
		log.add(key)
		// The control holds the focus (checked above): the keyboard's
		// keys go to it, as a person's would.
		if err := s.page.Keyboard().Press(key); err != nil {
			return controlInfo{}, err
		}
		if ctx.Err() != nil {
			return controlInfo{}, ctx.Err()
		}
		return c.read()
	}
	if !numeric {
		return s.keysToText(c, ci, value, up, press, &log)
	}
	cur := ci
	moved := false
	// An end of the range is one key away.
	switch {
	case ci.Min != nil && nearly(target, *ci.Min):
		if cur, err = press("Home"); err != nil {
			return "", err
		}
	case ci.Max != nil && nearly(target, *ci.Max):
		if cur, err = press("End"); err != nil {
			return "", err
		}
	}
	if cur.Now != nil && ci.Now != nil && !nearly(*cur.Now, *ci.Now) {
		moved = true
	}
	var pageDelta float64 // how far Page Up moved, once tried
	seen := map[float64]bool{}
	for presses < maxSetPresses {
		if cur.Now == nil {
			return "", notSet("%s shows no number to move (aria-valuenow is missing)", describeControl(ci))
		}
		now := *cur.Now
		if nearly(now, target) {
			return log.String(), nil
		}
		if seen[now] {
			return "", notSet("%s steps past %v (it holds %v); its step does not reach it", describeControl(ci), value, now)
		}
		seen[now] = true
		dir := 1.0
		keys := up
		if target < now {
			dir, keys = -1, down
		}
		left := math.Abs(target - now)
		// Big distances go by page, once Page Up/Down proved to move
		// less than what is left.
		key := keys[0]
		if pageDelta == 0 && left > 10*stepOf(ci) {
			key = map[bool]string{true: "PageUp", false: "PageDown"}[dir > 0]
		} else if pageDelta > 0 && left >= pageDelta {
			key = map[bool]string{true: "PageUp", false: "PageDown"}[dir > 0]
		}
		next, err := press(key)
		if err != nil {
			return "", err
		}
		if next.Now != nil && !nearly(*next.Now, now) {
			moved = true
			if strings.HasPrefix(key, "Page") && pageDelta == 0 {
				pageDelta = math.Abs(*next.Now - now)
			}
			cur = next
			continue
		}
		if strings.HasPrefix(key, "Page") {
			pageDelta = math.Inf(1) // Page keys do nothing here
			delete(seen, now)
			continue
		}
		// The first arrow did nothing: the other axis's arrow.
		if next, err = press(keys[1]); err != nil {
			return "", err
		}
		if next.Now != nil && !nearly(*next.Now, now) {
			moved = true
			up, down = []string{up[1], up[0]}, []string{down[1], down[0]}
			cur = next
			continue
		}
		if !moved && ci.Role == "slider" {
			return s.setByDrag(ctx, c, ci, target, value)
		}
		return "", notSet("%s does not move past %v towards %v", describeControl(ci), now, value)
	}
	return "", notSet("%s did not reach %v within %d key presses", describeControl(ci), value, maxSetPresses)
}

// keysToText steps a slider whose values are words (aria-valuetext) from
// its start until it shows the value.
func (s *Session) keysToText(c *control, ci controlInfo, value string, up []string,
	press func(string) (controlInfo, error), log *keyLog) (string, error) {
	cur, err := press("Home")
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	for i := 0; i < maxSetPresses; i++ {
		if strings.EqualFold(strings.TrimSpace(cur.Text), strings.TrimSpace(value)) {
			return log.String(), nil
		}
		state := cur.Text + "|" + fmt.Sprint(cur.Now)
		if seen[state] {
			break
		}
		seen[state] = true
		if cur, err = press(up[0]); err != nil {
			return "", err
		}
	}
	return "", notSet("%s never shows %q (it shows %q)", describeControl(ci), value, cur.Text)
}

func parseNumber(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(v, ",", "")), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

func stepOf(ci controlInfo) float64 {
	if ci.Step != nil && *ci.Step > 0 {
		return *ci.Step
	}
	return 1
}

func bounds(ci controlInfo) string {
	f := func(p *float64) string {
		if p == nil {
			return "?"
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	}
	return "[" + f(ci.Min) + ", " + f(ci.Max) + "]"
}

// trackScript finds a slider's track: the control itself when it is long
// and thin, else the nearest ancestor that is.
const trackScript = `(el, vertical) => {
  const long = (e) => { const r = e.getBoundingClientRect(); return vertical ? r.height >= 3 * r.width && r.height > 20 : r.width >= 3 * r.height && r.width > 20; };
  for (let e = el, i = 0; e && i < 4; e = e.parentElement, i++) if (long(e)) return e;
  return el;
}`

// setByDrag drags a slider's thumb along its track to the value's
// proportion of the range, correcting once by what the slider then shows.
func (s *Session) setByDrag(ctx context.Context, c *control, ci controlInfo, target float64, value string) (string, error) {
	if ci.Min == nil || ci.Max == nil || *ci.Max <= *ci.Min {
		return "", notSet("%s takes no keys and shows no range to drag along", describeControl(ci))
	}
	h, err := c.handle(trackScript, ci.Vertical)
	if err != nil {
		return "", err
	}
	defer h.Dispose()
	track := h.AsElement()
	if track == nil {
		return "", notSet("%s has no track to drag along", describeControl(ci))
	}
	tb, err := track.BoundingBox()
	if err != nil || tb == nil {
		return "", notSet("%s has no track on screen", describeControl(ci))
	}
	thumb, err := c.loc.BoundingBox()
	if err != nil || thumb == nil {
		return "", notSet("%s is not on screen", describeControl(ci))
	}
	p := (target - *ci.Min) / (*ci.Max - *ci.Min)
	m := s.page.Mouse()
	x, y := thumb.X+thumb.Width/2, thumb.Y+thumb.Height/2
	var via string
	for try := 0; try < 3; try++ {
		tx, ty := tb.X+p*tb.Width, y
		if ci.Vertical {
			tx, ty = x, tb.Y+(1-p)*tb.Height
		}
		via = fmt.Sprintf("drag %.4f", p)
		if err := m.Move(x, y); err != nil {
			return "", err
		}
		if err := m.Down(); err != nil {
			return "", err
		}
		if err := m.Move(tx, ty, playwright.MouseMoveOptions{Steps: playwright.Int(8)}); err != nil {
			return "", err
		}
		if err := m.Up(); err != nil {
			return "", err
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		got, err := c.read()
		if err != nil {
			return "", err
		}
		if got.Now == nil {
			break
		}
		if nearly(*got.Now, target) {
			return via, nil
		}
		// Aim again by the error the slider shows.
		p += (target - *got.Now) / (*ci.Max - *ci.Min)
		p = math.Max(0, math.Min(1, p))
		x, y = tx, ty
	}
	return "", notSet("dragging %s did not bring it to %v (%s)", describeControl(ci), value, via)
}
