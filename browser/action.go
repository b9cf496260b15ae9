package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/act"
	"github.com/multiverse-orchestrator/multiverse/branch"
)

var errNetworkBusy = errors.New("browser: network did not settle")

// ActionError is a failed action with a stable code: the interpreter's
// error type, so a code act.Do decides and one the browser classifies
// are one type.
type ActionError = act.Error

// Resolver returns the value of a task input by name.
type Resolver = act.Resolver

// Do executes one action, waits for the page to settle, and advances the
// page clock by one step. A failed action returns a StepResult with status
// failed and a code; the error is reserved for a session that can no
// longer be used (closed, browser lost, context cancelled).
//
// A page that stops answering altogether (a navigation that never
// commits, a renderer that hangs) fails the step with page_unresponsive
// once the step's watchdog limit passes; the session is closed then.
func (s *Session) Do(ctx context.Context, a branch.Action, inputs Resolver) (branch.StepResult, error) {
	// An action, the load wait after it and the clock step each have
	// ActionTimeout; the watchdog leaves them all that and some slack.
	var res branch.StepResult
	err := s.guard(ctx, "step "+itoa(s.step+1), 3*s.opts.Env.ActionTimeout+watchdogSlack, func() (err error) {
		res, err = s.doStep(ctx, a, inputs)
		return err
	})
	var ae *ActionError
	if errors.As(err, &ae) && ae.Code == branch.CodeUnresponsive {
		res.End = time.Now()
		res.Status, res.Code, res.Error = branch.StatusFailed, ae.Code, ae.Msg
		err = nil
	}
	// A step's error quotes what the browser said (URLs, target text):
	// scrubbed here, every caller records it as it is.
	res.Error = s.scrubText(res.Error, nil)
	res.Via = s.scrubText(res.Via, nil)
	return res, err
}

func (s *Session) doStep(ctx context.Context, a branch.Action, inputs Resolver) (branch.StepResult, error) {
	res := branch.StepResult{Step: s.step + 1, Start: time.Now()}
	s.limit = s.opts.Env.ActionTimeout
	if a.TimeoutMS > 0 {
		// The action's own bound (a flow action's timeout_ms) bounds each
		// wait in it: the action fails in time, with a code, and the
		// session goes on.
		s.limit = min(s.limit, time.Duration(a.TimeoutMS)*time.Millisecond)
	}
	s.selector, s.healShot, s.via, s.slow = "", nil, "", ""
	s.mu.Lock()
	s.step++
	s.answer = a.Dialog
	if a.Kind == branch.KindNavigate {
		if o := originOf(a.URL); o != "" {
			s.navOrigins[o] = true // the plan names it: not a link followed off the site
		}
	}
	seen := s.liveSeen
	s.mu.Unlock()
	if seen && !s.opts.PlayLive {
		// What arrived since the last observation is this step's pre
		// phase; after a step nobody observed (a replayed prefix) it
		// belongs to that step, whose record is another session's.
		s.takeLive(s.observed == s.step-1)
	}
	strategy, err := s.do(ctx, a, inputs)
	parked := a.Kind == branch.KindNavigate || a.Kind == branch.KindScroll || s.navigated() != ""
	if parked {
		s.park() // before the new page or the scrolled one settles under it
	}
	res.Strategy, res.Via = strategy, s.via
	if err == nil {
		err = s.settle(ctx)
	} else if ctx.Err() == nil {
		// Even a failed action may have changed the page; let it settle
		// so the observation after it is stable.
		s.settle(ctx)
	}
	if a.Kind == branch.KindNavigate && err == nil {
		// Where the plan's own navigation ended (after redirects) is
		// the plan's too.
		if o := originOf(s.page.URL()); o != "" {
			s.mu.Lock()
			s.navOrigins[o] = true
			s.mu.Unlock()
		}
	}
	if ctx.Err() == nil && !stuck(err) && (s.heldOpen(res.Step) || s.hasLive()) {
		s.takeUserRequests(ctx, res.Step)
	}
	if h, ok := s.causedHold(res.Step); ok && ctx.Err() == nil {
		// The action itself asked for a request speculation holds: the
		// step ends at a side-effect boundary (or off the site), whatever
		// the page did after the refusal.
		err = heldError(h)
	}
	res.Console, res.Slow = s.takeConsole(), s.slow
	if o := s.navigated(); o != "" {
		// Again once the new page is in: a park before it committed
		// went to the page it replaced (or the navigation started late),
		// and the new page may have taken the pointer's last place: a
		// hover a capture and its replay would see apart.
		s.park()
		res.Nav = &branch.NavURLs{Original: o, Final: s.scrubURL(s.page.URL())}
		if a.Kind == branch.KindNavigate {
			res.Nav.Requested = s.scrubURL(a.URL)
		}
	}
	res.End = time.Now()
	res.VirtualTime = s.vt.UnixMilli()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if rerr := s.rt.Err(); rerr != nil {
		return res, rerr
	}
	s.conclude(&res, strategy, err)
	return res, nil
}

// conclude sets the step's status from what the action did: healed when
// a later strategy resolved the target (strategy "healed:…"), failed
// with a stable code when the action or its settling failed, the page
// crashed or it shows Chromium's error page; a timed-out navigation is
// stopped.
func (s *Session) conclude(res *branch.StepResult, strategy string, err error) {
	res.Status = branch.StatusOK
	if strategy != "" && strings.HasPrefix(strategy, "healed:") {
		res.Status = branch.StatusHealed
		res.Strategy = strings.TrimPrefix(strategy, "healed:")
		res.HealedSelector = s.scrubText(s.selector, nil)
	}
	if s.Crashed() {
		err = &ActionError{Code: branch.CodePageCrash, Msg: "the page crashed"}
	}
	if err == nil && strings.HasPrefix(s.page.URL(), "chrome-error://") {
		// The action led to a navigation that failed (a redirect loop,
		// a refused connection): the page shows Chromium's error page.
		s.mu.Lock()
		msg := s.docFailure
		s.mu.Unlock()
		if msg == "" {
			msg = "the navigation failed"
		}
		err = &ActionError{Code: branch.CodePageError, Msg: msg}
	}
	if err != nil {
		var ae *ActionError
		if !errors.As(err, &ae) {
			ae = classify(err)
		}
		res.Status, res.Code, res.Error = branch.StatusFailed, ae.Code, ae.Msg
		if ae.Code == branch.CodeTimeout || ae.Code == branch.CodeNavigationTimeout {
			s.stopLoading()
		}
	}
}

// stopLoading abandons a navigation that did not finish in time, as the
// browser's stop button does: the page keeps the document it has, so the
// observation after the failed step sees it instead of waiting on a
// server that may never answer.
func (s *Session) stopLoading() {
	cdp, err := s.bctx.NewCDPSession(s.page)
	if err != nil {
		return
	}
	defer cdp.Detach()
	cdp.Send("Page.stopLoading", nil)
}

// park moves the pointer off the page after a step that loaded a new
// document or scrolled. A pointer resting where the last click left it
// makes whatever the new page or the scroll brings under it hovered at a
// moment no one chooses (the browser's own hover update after a layout or
// scroll), so capture and replay would see :hover and mouse-enter effects
// at different times. After a click or a hover on the same page the
// pointer stays where the action put it: a menu opened by a click must
// not close because the pointer left it.
func (s *Session) park() {
	_ = s.page.Mouse().Move(-1, -1)
}

// scrollScript scrolls the page by dy CSS pixels at once: the document
// when it scrolls, else the largest scrolling box in view (an app whose
// body is fixed and whose main pane scrolls).
const scrollScript = `(dy) => {
  const doc = document.scrollingElement || document.documentElement;
  if (doc.scrollHeight > doc.clientHeight + 1 && getComputedStyle(document.body || doc).overflowY !== 'hidden') {
    window.scrollBy({ top: dy, behavior: 'instant' });
    return;
  }
  let best = null, area = 0;
  for (const el of document.querySelectorAll('body *')) {
    if (el.scrollHeight <= el.clientHeight + 1) continue;
    const oy = getComputedStyle(el).overflowY;
    if (oy !== 'auto' && oy !== 'scroll' && oy !== 'overlay') continue;
    const r = el.getBoundingClientRect();
    const a = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
    if (a > area) { best = el; area = a; }
  }
  (best || window).scrollBy({ top: dy, behavior: 'instant' });
}`

// do executes the action with the shared interpreter (act.Do) over the
// session's page and records how a set action set its value (s.via).
func (s *Session) do(ctx context.Context, a branch.Action, inputs Resolver) (string, error) {
	res, err := act.Do(ctx, actPage{s}, a, inputs)
	s.via = res.Via
	return res.Strategy, err
}

// actPage is the session's page as act.Do sees it. Its errors are
// Playwright's own (Do returns them as they are, doStep classifies them)
// or an *ActionError where the code is known.
type actPage struct{ s *Session }

var (
	_ act.Page          = actPage{}
	_ act.InputRecorder = actPage{}
	_ act.Tabs          = actPage{}
	_ act.Element       = actElement{}
)

// SelectTab makes the context's page i (in the order the pages opened)
// the session's page, brought to the front: a flow action's tab.
func (p actPage) SelectTab(_ context.Context, i int) error {
	s := p.s
	pages := s.bctx.Pages()
	if i < 0 || i >= len(pages) {
		return &ActionError{Code: branch.CodeNoSuchTab, Msg: fmt.Sprintf("tab %d: the session has %d tab(s)", i, len(pages))}
	}
	if pg := pages[i]; pg != s.page {
		s.page = pg // its listeners were set when it opened
		return pg.BringToFront()
	}
	return nil
}

// timeout is the action timeout in Playwright's terms.
func (s *Session) timeout() *float64 {
	return playwright.Float(float64(s.limit.Milliseconds()))
}

// Navigate loads url; a server error (5xx) fails with http_error.
func (p actPage) Navigate(_ context.Context, url string) error {
	resp, err := p.s.page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad, Timeout: p.s.timeout()})
	if err != nil {
		return err
	}
	if resp != nil && resp.Status() >= 500 {
		return &ActionError{Code: branch.CodeHTTPError, Msg: fmt.Sprintf("%s answered %d", url, resp.Status())}
	}
	return nil
}

// Scroll scrolls by script, not the wheel: a wheel turns at the pointer,
// which would have to rest over the page (see park).
func (p actPage) Scroll(_ context.Context, dy float64) error {
	_, err := p.s.page.Evaluate(scrollScript, dy)
	return err
}

func (p actPage) Eval(_ context.Context, script string) error {
	_, err := p.s.page.Evaluate(script)
	return err
}

// Press presses key on the keyboard.
func (p actPage) Press(_ context.Context, key string) error { return p.s.page.Keyboard().Press(key) }

// Wait advances the page clock by d.
func (p actPage) Wait(ctx context.Context, d time.Duration) error { return p.s.advance(ctx, d) }

// Resolve resolves t (see resolve) and records the selector that found it
// for a healed step's record.
func (p actPage) Resolve(_ context.Context, t *branch.Target) (act.Element, string, error) {
	loc, strategy, selector, err := p.s.resolve(t)
	if err != nil {
		return nil, "", err
	}
	p.s.selector = selector
	return actElement{p.s, loc}, strategy, nil
}

// RecordInput notes a secret input's target and value: the field is
// masked in screenshots and the value scrubbed from what is recorded.
func (p actPage) RecordInput(name string, t *branch.Target, value string) {
	s := p.s
	if !s.opts.SecretInputs[name] {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.masked = append(s.masked, t)
	if !slices.Contains(s.typed, value) {
		s.typed = append(s.typed, value)
	}
}

// actElement is a resolved locator as act.Do sees it; every operation waits
// at most the action timeout.
type actElement struct {
	s   *Session
	loc playwright.Locator
}

// Click clicks the element. A link (or a form's submit button) whose
// target names another tab opens it after the click returns: the click
// then waits for that tab, which the session follows, so the next action
// acts in it. A tab that does not come (a script kept the click) is no
// failure.
func (e actElement) Click(context.Context) error {
	click := func() error { return e.loc.Click(playwright.LocatorClickOptions{Timeout: e.s.timeout()}) }
	if !e.opensTab() {
		return click()
	}
	before := len(e.s.bctx.Pages())
	_, err := e.s.bctx.ExpectPage(click, playwright.BrowserContextExpectPageOptions{Timeout: e.s.timeout()})
	if err != nil && isTimeout(err) && len(e.s.bctx.Pages()) == before {
		return nil
	}
	return err
}

// opensTabScript reports whether clicking the element follows a link, or
// submits a form, into another browsing context (target _blank or a
// name, not _self, _parent or _top).
const opensTabScript = `el => {
	const a = el.closest('a[href][target], area[href][target]');
	const f = !a && el.form && (el.type === 'submit' || el.type === 'image') ? el.form : null;
	const t = ((a && a.target) || (f && (el.formTarget || f.target)) || '').toLowerCase();
	return t !== '' && t !== '_self' && t !== '_parent' && t !== '_top';
}`

// opensTab reports whether a click on the element opens another tab.
func (e actElement) opensTab() bool {
	v, err := e.loc.Evaluate(opensTabScript, nil, playwright.LocatorEvaluateOptions{Timeout: e.s.timeout()})
	b, _ := v.(bool)
	return err == nil && b
}

func (e actElement) Fill(_ context.Context, text string) error {
	return e.loc.Fill(text, playwright.LocatorFillOptions{Timeout: e.s.timeout()})
}

// Select selects by value, then by label unless the first try timed out.
func (e actElement) Select(_ context.Context, value string) error {
	opts := playwright.LocatorSelectOptionOptions{Timeout: e.s.timeout()}
	_, err := e.loc.SelectOption(playwright.SelectOptionValues{Values: &[]string{value}}, opts)
	if err != nil && !isTimeout(err) {
		_, err = e.loc.SelectOption(playwright.SelectOptionValues{Labels: &[]string{value}}, opts)
	}
	return err
}

func (e actElement) SetChecked(_ context.Context, checked bool) error {
	return e.loc.SetChecked(checked, playwright.LocatorSetCheckedOptions{Timeout: e.s.timeout()})
}

func (e actElement) Focus(context.Context) error {
	return e.loc.Focus(playwright.LocatorFocusOptions{Timeout: e.s.timeout()})
}

func (e actElement) Hover(context.Context) error {
	return e.loc.Hover(playwright.LocatorHoverOptions{Timeout: e.s.timeout()})
}

func (e actElement) Press(_ context.Context, key string) error {
	return e.loc.Press(key, playwright.LocatorPressOptions{Timeout: e.s.timeout()})
}

// Set sets the control's value (see set) and says how.
func (e actElement) Set(ctx context.Context, value string) (string, error) {
	return e.s.set(ctx, e.loc, value, e.s.timeout())
}

func (e actElement) WaitVisible(context.Context) error {
	return e.loc.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: e.s.timeout()})
}

// resolve walks the target's strategies in order and returns the first
// locator that names exactly one element (visible when several match),
// the strategy's name and its selector string. The name is prefixed
// "healed:" when an earlier strategy the target carried no longer
// resolved. A Heal session confirms such a match (confirmHeal), falls
// back to the recorded box last, and screenshots the healed match.
func (s *Session) resolve(t *branch.Target) (playwright.Locator, string, string, error) {
	s.healShot = nil
	list := strategies(s.page, t)
	if len(list) == 0 {
		return nil, "", "", &ActionError{Code: branch.CodeSelectorNotFound, Msg: "the target has no strategy"}
	}
	var sawHidden bool
	for i, st := range list {
		// One round trip per strategy: count the visible matches.
		loc := st.loc().Filter(playwright.LocatorFilterOptions{Visible: playwright.Bool(true)})
		n, err := loc.Count()
		if err != nil {
			continue
		}
		if n > 1 {
			// Lookalikes (a link in the header and the footer): the one
			// standing where the target was recorded, when exactly one does.
			if one := s.nearestToBox(loc, n, t.Box); one != nil {
				loc, n = one, 1
			}
		}
		if n != 1 {
			if n == 0 && !sawHidden {
				if all, err := st.loc().Count(); err == nil && all > 0 {
					sawHidden = true
				}
			}
			continue
		}
		if i == 0 {
			return loc, st.name, st.selector, nil
		}
		if !s.opts.Heal {
			return loc, "healed:" + st.name, st.selector, nil
		}
		ok, box := s.confirmHeal(t, loc)
		if !ok {
			continue // the strategy found another element
		}
		s.healShot, _ = s.outlinedScreenshot(box)
		return loc, "healed:" + st.name, st.selector, nil
	}
	if s.opts.Heal {
		if loc, m := s.atRecordedBox(t); loc != nil {
			s.healShot, _ = s.outlinedScreenshot(m.box)
			return loc, "healed:coordinates", m.selector, nil
		}
	}
	if sawHidden {
		return nil, "", "", &ActionError{Code: branch.CodeElementHidden, Msg: "target " + t.Describe() + " is not visible"}
	}
	return nil, "", "", &ActionError{Code: branch.CodeSelectorNotFound, Msg: "no strategy found target " + t.Describe()}
}

// strategy is one way of naming a target: its name, the selector string
// a person can read, and the locator.
type strategy struct {
	name, selector string
	loc            func() playwright.Locator
}

// strategies lists the target's strategies in cascade order: data-testid,
// aria-label, role and accessible name, id, field name, visible text, css
// path.
func strategies(p playwright.Page, t *branch.Target) []strategy {
	var list []strategy
	add := func(name, v, sel string, f func() playwright.Locator) {
		if v != "" {
			list = append(list, strategy{name, sel, f})
		}
	}
	if strings.Contains(t.CSS, enterFrame) {
		// Inside an iframe only the path that enters it can name the
		// element: the other strategies look at the top document.
		t = &branch.Target{CSS: t.CSS}
	}
	add("testid", t.TestID, attrSel("data-testid", t.TestID), func() playwright.Locator { return p.Locator(attrSel("data-testid", t.TestID)) })
	add("aria_label", t.AriaLabel, attrSel("aria-label", t.AriaLabel), func() playwright.Locator { return p.Locator(attrSel("aria-label", t.AriaLabel)) })
	if t.Role != "" && t.Name != "" {
		add("role", t.Role, fmt.Sprintf("role=%s[name=%q]", t.Role, t.Name), func() playwright.Locator {
			return p.GetByRole(playwright.AriaRole(t.Role), playwright.PageGetByRoleOptions{Name: t.Name, Exact: playwright.Bool(true)})
		})
	}
	add("id", t.ID, attrSel("id", t.ID), func() playwright.Locator { return p.Locator(attrSel("id", t.ID)) })
	add("field", t.Field, attrSel("name", t.Field), func() playwright.Locator { return p.Locator(attrSel("name", t.Field)) })
	add("text", t.Text, fmt.Sprintf("text=%q", t.Text), func() playwright.Locator {
		return p.GetByText(t.Text, playwright.PageGetByTextOptions{Exact: playwright.Bool(true)})
	})
	add("css", t.CSS, t.CSS, func() playwright.Locator { return p.Locator(t.CSS) })
	return list
}

// enterFrame is the selector step that enters an iframe's document; an
// observation writes it into the css path of elements inside iframes.
const enterFrame = "internal:control=enter-frame"

func attrSel(attr, v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return "[" + attr + `="` + r.Replace(v) + `"]`
}

// settle waits for the page to load and the network to go quiet, then
// advances the pinned clock by one step (running due timers) and waits
// again.
func (s *Session) settle(ctx context.Context) error {
	deadline := time.Now().Add(s.limit)
	if err := s.waitLoad(deadline); err != nil {
		return err
	}
	if err := s.quiet(ctx, deadline); err != nil {
		return err
	}
	return s.advance(ctx, s.opts.Env.StepAdvance)
}

// navigating reports whether the main frame's document request is still
// in flight: a navigation that does not finish fails its step.
func (s *Session) navigating() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range s.byReq {
		if rec.page {
			return true
		}
	}
	return false
}

// quiet waits for the network to settle by deadline. A network that does
// not (a long poll, a slow request a page keeps loading) makes the step
// slow, not failed: the step's result says so (StepResult.Slow) and the
// observation sees the page as it is then. A pending navigation of the
// main frame is no slow request: it fails the step (navigation_timeout).
func (s *Session) quiet(ctx context.Context, deadline time.Time) error {
	err := s.waitQuiet(ctx, deadline)
	if errors.Is(err, errNetworkBusy) && !s.navigating() {
		s.mu.Lock()
		n := s.inflight
		s.mu.Unlock()
		s.slow = fmt.Sprintf("the network did not settle within %s (%d request(s) still in flight)", s.limit, n)
		return nil
	}
	if err != nil {
		return classify(err)
	}
	return nil
}

// pageThrew reports whether an error of a clock call is the page's own
// exception rethrown, not the browser's failure (closed, timed out).
func pageThrew(err error) bool {
	return !errors.Is(err, playwright.ErrTargetClosed) && !errors.Is(err, playwright.ErrTimeout) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

func (s *Session) advance(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(s.limit)
	s.mu.Lock()
	before := len(s.net)
	s.mu.Unlock()
	if s.opts.NoControls {
		// Real time flows: let a little of it pass instead.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(d, 300*time.Millisecond)):
		}
	} else if err := s.bctx.Clock().RunFor(d.Milliseconds()); err != nil {
		if !pageThrew(err) || s.Crashed() || ctx.Err() != nil {
			return fmt.Errorf("browser: advancing the page clock: %w", err)
		}
		// A timer of the page threw: the clock rethrows the page's own
		// uncaught error. It is the page's, like any other page error,
		// and never fails the step by itself.
		s.said("pageerror", strings.TrimPrefix(err.Error(), "playwright: "))
	}
	s.vt = s.vt.Add(d)
	s.mu.Lock()
	started := len(s.net) > before || s.inflight > 0
	s.mu.Unlock()
	if !started && !s.drainSent(ctx) {
		// Timers fired without touching the network: the page is settled.
		return nil
	}
	if s.slow != "" {
		return nil // the step is slow already (quiet): no second wait
	}
	if err := s.waitLoad(deadline); err != nil {
		return err
	}
	return s.quiet(ctx, deadline)
}

// loadSlice is how long one wait for the load event lasts before the
// document itself is asked: the lifecycle event can be missed when a
// navigation commits while the wait attaches, and a missed event must
// not cost the whole action timeout.
const loadSlice = time.Second

func (s *Session) waitLoad(deadline time.Time) error {
	for {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return &ActionError{Code: branch.CodeNavigationTimeout, Msg: "the page did not finish loading within " + s.limit.String()}
		}
		err := s.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad,
			Timeout: playwright.Float(float64(min(remaining, loadSlice).Milliseconds()))})
		if err == nil {
			return nil
		}
		if !isTimeout(err) {
			return classify(err)
		}
		// A complete document with nothing in flight is loaded, whatever
		// the event said; a navigation still pending keeps its document
		// request in flight.
		s.mu.Lock()
		idle := s.inflight == 0
		s.mu.Unlock()
		if v, e := s.page.Evaluate(`document.readyState`); e == nil && v == "complete" && idle {
			return nil
		}
	}
}

func isTimeout(err error) bool {
	return errors.Is(err, playwright.ErrTimeout) || strings.Contains(err.Error(), "Timeout")
}

// classify maps a Playwright error to an ActionError with a stable code.
func classify(err error) *ActionError {
	var ae *ActionError
	if errors.As(err, &ae) {
		return ae
	}
	msg := err.Error()
	short := msg
	if i := strings.Index(short, "\n"); i > 0 {
		short = short[:i]
	}
	switch {
	case errors.Is(err, errNetworkBusy):
		return &ActionError{Code: branch.CodeNavigationTimeout, Msg: "the network did not settle"}
	case strings.Contains(msg, "net::ERR_BLOCKED_BY_CLIENT"):
		return &ActionError{Code: branch.CodeGuardBlocked, Msg: short}
	case strings.Contains(msg, "net::ERR_TOO_MANY_REDIRECTS"), strings.Contains(msg, "net::ERR_"):
		return &ActionError{Code: branch.CodePageError, Msg: short}
	case strings.Contains(msg, "not enabled") || strings.Contains(msg, "disabled"):
		return &ActionError{Code: branch.CodeElementDisabled, Msg: short}
	case strings.Contains(msg, "not visible") || strings.Contains(msg, "intercepts pointer events"):
		return &ActionError{Code: branch.CodeElementHidden, Msg: short}
	case strings.Contains(msg, "page.goto") && isTimeout(err):
		return &ActionError{Code: branch.CodeNavigationTimeout, Msg: short}
	case isTimeout(err):
		return &ActionError{Code: branch.CodeTimeout, Msg: short}
	case strings.Contains(msg, "crash"):
		return &ActionError{Code: branch.CodePageCrash, Msg: short}
	}
	return &ActionError{Code: branch.CodePageError, Msg: short}
}
