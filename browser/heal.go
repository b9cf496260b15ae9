package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Probe is the control at a point of the viewport, as playback's
// coordinate fallback and its check of a healed match read it.
type Probe struct {
	CSS  string     `json:"css"`
	Near string     `json:"near"`
	Name string     `json:"name"`
	Box  branch.Box `json:"box"`
}

// probeAt returns the control at (x, y) in viewport pixels (a widget, or
// an element with a click handler, a tab stop or a pointer cursor), or nil
// when there is none; with anyElement, the element at the point counts
// when no control holds it. The caller is under the session's watchdog.
func (s *Session) probeAt(x, y float64, anyElement bool) (*Probe, error) {
	raw, err := s.page.Evaluate(observeScript, map[string]any{"at": map[string]any{"x": x, "y": y, "any": anyElement}, "patterns": patternsArg()})
	if err != nil {
		return nil, fmt.Errorf("browser: probing (%.0f, %.0f): %w", x, y, err)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("browser: probe: %w", err)
	}
	var res struct {
		At *Probe `json:"at"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("browser: probe: %w", err)
	}
	if res.At != nil {
		res.At.Near = s.scrubText(res.At.Near, nil)
		res.At.Name = s.scrubText(res.At.Name, nil)
	}
	return res.At, nil
}

// healMatch is how a fallback strategy's match is confirmed, and what
// the session keeps of it for the step's result.
type healMatch struct {
	selector string
	box      *branch.Box
}

// confirmHeal reports whether the element loc found by a fallback
// strategy is the recorded target: its neighbourhood text shares most
// words with the recorded one, or it stands where the recorded box was.
// A target that recorded neither is taken as found.
func (s *Session) confirmHeal(t *branch.Target, loc playwright.Locator) (bool, *branch.Box) {
	// In view first: the probe below reads the point on the screen.
	_ = loc.ScrollIntoViewIfNeeded(playwright.LocatorScrollIntoViewIfNeededOptions{Timeout: playwright.Float(scrollWait)})
	bb, err := loc.BoundingBox()
	if err != nil || bb == nil {
		return false, nil
	}
	sx, sy := s.scrolled()
	box := onPage(bb, sx, sy)
	if t.Near == "" && t.Box == nil {
		return true, box
	}
	if t.Box != nil && nearBox(t.Box, box) {
		return true, box
	}
	if t.Near == "" {
		return false, box
	}
	p, err := s.probeAt(bb.X+bb.Width/2, bb.Y+bb.Height/2, true)
	if err != nil || p == nil {
		return false, box
	}
	return sameNeighbourhood(t.Near, p.Near), box
}

// atRecordedBox is the last level of the cascade: the control at the
// centre of the recorded box (scaled to this viewport by the caller),
// confirmed by its neighbourhood when one was recorded.
func (s *Session) atRecordedBox(t *branch.Target) (playwright.Locator, *healMatch) {
	if t.Box == nil || t.Box.W <= 0 || t.Box.H <= 0 {
		return nil, nil
	}
	x, y := t.Box.X+t.Box.W/2, t.Box.Y+t.Box.H/2
	sx, sy := s.bringIntoView(x, y)
	p, err := s.probeAt(x-sx, y-sy, false)
	if err != nil || p == nil || p.CSS == "" {
		return nil, nil
	}
	if t.Near != "" && !sameNeighbourhood(t.Near, p.Near) {
		return nil, nil
	}
	loc := s.page.Locator(p.CSS)
	if n, err := loc.Count(); err != nil || n != 1 {
		return nil, nil
	}
	return loc, &healMatch{selector: fmt.Sprintf("%s @ (%.0f, %.0f)", p.CSS, x, y), box: &p.Box}
}

// maxLookalikes bounds how many matches of one strategy are told apart
// by their place.
const maxLookalikes = 8

// nearestToBox returns the one of loc's n visible matches whose box lies
// at the recorded box, or nil when none or several do (or nothing was
// recorded).
func (s *Session) nearestToBox(loc playwright.Locator, n int, rec *branch.Box) playwright.Locator {
	if rec == nil || n > maxLookalikes {
		return nil
	}
	sx, sy := s.scrolled()
	var found playwright.Locator
	for i := 0; i < n; i++ {
		m := loc.Nth(i)
		bb, err := m.BoundingBox()
		if err != nil || bb == nil || !nearBox(rec, onPage(bb, sx, sy)) {
			continue
		}
		if found != nil {
			return nil
		}
		found = m
	}
	return found
}

// scrollWait bounds scrolling a healed match into view, in ms.
const scrollWait = 2000

// onPage is a viewport rectangle as a box on the page (branch.Box): the
// page's scroll offsets added.
func onPage(bb *playwright.Rect, sx, sy float64) *branch.Box {
	return &branch.Box{X: bb.X + sx, Y: bb.Y + sy, W: bb.Width, H: bb.Height}
}

// scrolled returns the page's scroll offsets (0, 0 when it cannot tell).
func (s *Session) scrolled() (x, y float64) {
	v, err := s.page.Evaluate(`() => [scrollX, scrollY]`)
	return pair(v, err)
}

// bringIntoView scrolls the page so that the point (x, y) of the page is
// in the viewport, when it is not, and returns the scroll offsets then.
func (s *Session) bringIntoView(x, y float64) (sx, sy float64) {
	v, err := s.page.Evaluate(`([x, y]) => {
  if (x < scrollX || x >= scrollX + innerWidth || y < scrollY || y >= scrollY + innerHeight)
    window.scrollTo(Math.max(0, x - innerWidth / 2), Math.max(0, y - innerHeight / 2));
  return [scrollX, scrollY];
}`, []any{x, y})
	return pair(v, err)
}

// pair reads a page's [x, y] answer.
func pair(v any, err error) (x, y float64) {
	xs, ok := v.([]any)
	if err != nil || !ok || len(xs) != 2 {
		return 0, 0
	}
	return number(xs[0]), number(xs[1])
}

func number(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return 0
}

// nearBox: b's centre lies within the recorded box grown by half its own
// size (at least 24 px each way).
func nearBox(rec, b *branch.Box) bool {
	gx, gy := math.Max(rec.W/2, 24), math.Max(rec.H/2, 24)
	cx, cy := b.X+b.W/2, b.Y+b.H/2
	return cx >= rec.X-gx && cx <= rec.X+rec.W+gx && cy >= rec.Y-gy && cy <= rec.Y+rec.H+gy
}

// sameNeighbourhood: at least half of the recorded neighbourhood's words
// are in got's.
func sameNeighbourhood(rec, got string) bool {
	want := words(rec)
	if len(want) == 0 {
		return true
	}
	have := map[string]bool{}
	for _, w := range words(got) {
		have[w] = true
	}
	n := 0
	for _, w := range want {
		if have[w] {
			n++
		}
	}
	return 2*n >= len(want)
}

func words(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	seen := map[string]bool{}
	var out []string
	for _, w := range f {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// outlineScript draws a box over the place on the page (branch.Box) of the matched
// element for a screenshot, and removeOutlineScript takes it away.
const outlineScript = `(b) => {
  const d = document.createElement('div');
  d.id = '__multiverse_outline';
  d.style.cssText = 'position:absolute;pointer-events:none;z-index:2147483647;border:3px solid #e0218a;box-sizing:border-box;' +
    'left:' + (b.x - 3) + 'px;top:' + (b.y - 3) + 'px;width:' + (b.w + 6) + 'px;height:' + (b.h + 6) + 'px';
  document.documentElement.appendChild(d);
}`

const removeOutlineScript = `() => { const d = document.getElementById('__multiverse_outline'); if (d) d.remove(); }`

// OutlinedScreenshot is a PNG of the viewport with box outlined (none when
// nil), personal data masked as in every screenshot of the session.
func (s *Session) OutlinedScreenshot(ctx context.Context, box *branch.Box) ([]byte, error) {
	var png []byte
	err := s.call(ctx, "the screenshot", func() (e error) {
		png, e = s.outlinedScreenshot(box)
		return e
	})
	return png, err
}

// outlinedScreenshot is OutlinedScreenshot for a caller already under the
// session's watchdog.
func (s *Session) outlinedScreenshot(box *branch.Box) ([]byte, error) {
	if box != nil {
		if _, err := s.page.Evaluate(outlineScript, map[string]any{"x": box.X, "y": box.Y, "w": box.W, "h": box.H}); err != nil {
			return nil, fmt.Errorf("browser: outlining the match: %w", err)
		}
		defer s.page.Evaluate(removeOutlineScript)
	}
	png, err := s.screenshot(playwright.PageScreenshotOptions{}, nil)
	if err != nil {
		return nil, fmt.Errorf("browser: screenshot: %w", err)
	}
	return png, nil
}

// HealShot returns the screenshot taken when the last step's target was
// found by a fallback strategy, the match outlined, or nil; it is taken
// before the action runs, so it shows what was matched. Only sessions
// with Heal set take it.
func (s *Session) HealShot() []byte { return s.healShot }

// WithoutFailed returns t without the strategies the cascade tries before
// used (the strategy that found it, as StepResult.Strategy names it):
// after a drift they no longer name the target, and a plan cached with
// them would heal again on every run. Neighbourhood and box stay. A target
// found by its recorded box keeps every strategy: the page says nothing
// about which still holds.
func WithoutFailed(t branch.Target, used string) branch.Target {
	order := []string{"testid", "aria_label", "role", "id", "field", "text", "css"}
	i := slices.Index(order, used)
	if i <= 0 {
		return t
	}
	for _, s := range order[:i] {
		switch s {
		case "testid":
			t.TestID = ""
		case "aria_label":
			t.AriaLabel = ""
		case "role":
			t.Role, t.Name = "", ""
		case "id":
			t.ID = ""
		case "field":
			t.Field = ""
		case "text":
			t.Text = ""
		}
	}
	return t
}
