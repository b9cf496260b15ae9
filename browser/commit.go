package browser

import (
	"context"
	"fmt"
	"net/url"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// StartState is the login state the session was created with
// (SessionOptions.State), or nil.
func (s *Session) StartState() *task.StorageState { return s.opts.State }

// State returns the session's login state now, as a storage state:
// its cookies and each origin's local storage (what a scripted login
// leaves for the branches).
func (s *Session) State() (*task.StorageState, error) {
	ss, err := s.bctx.StorageState()
	if err != nil {
		return nil, fmt.Errorf("browser: storage state: %w", err)
	}
	out := &task.StorageState{}
	for _, c := range ss.Cookies {
		sc := task.StateCookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: c.Expires, HTTPOnly: c.HttpOnly, Secure: c.Secure}
		if c.SameSite != nil {
			sc.SameSite = string(*c.SameSite)
		}
		out.Cookies = append(out.Cookies, sc)
	}
	for _, o := range ss.Origins {
		so := task.StateOrigin{Origin: o.Origin}
		for _, kv := range o.LocalStorage {
			so.LocalStorage = append(so.LocalStorage, task.StateKeyValue{Name: kv.Name, Value: kv.Value})
		}
		out.Origins = append(out.Origins, so)
	}
	return out, nil
}

// playwrightState is the Playwright form of a storage state.
func playwrightState(st *task.StorageState) *playwright.OptionalStorageState {
	cs := make([]branch.Cookie, len(st.Cookies))
	for i, c := range st.Cookies {
		cs[i] = branch.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: c.Expires,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: c.SameSite}
	}
	out := &playwright.OptionalStorageState{Cookies: optionalCookies(cs), Origins: []playwright.Origin{}}
	for _, o := range st.Origins {
		po := playwright.Origin{Origin: o.Origin, LocalStorage: []playwright.NameValue{}}
		for _, kv := range o.LocalStorage {
			po.LocalStorage = append(po.LocalStorage, playwright.NameValue{Name: kv.Name, Value: kv.Value})
		}
		out.Origins = append(out.Origins, po)
	}
	return out
}

func optionalCookies(cs []branch.Cookie) []playwright.OptionalCookie {
	in := make([]playwright.OptionalCookie, len(cs))
	for i, c := range cs {
		path := c.Path
		if path == "" {
			path = "/"
		}
		in[i] = playwright.OptionalCookie{Name: c.Name, Value: c.Value, Domain: playwright.String(c.Domain), Path: playwright.String(path),
			HttpOnly: playwright.Bool(c.HTTPOnly), Secure: playwright.Bool(c.Secure)}
		if c.Expires > 0 {
			in[i].Expires = playwright.Float(c.Expires)
		}
		if c.SameSite != "" {
			ss := playwright.SameSiteAttribute(c.SameSite)
			in[i].SameSite = &ss
		}
	}
	return in
}

// Cookies returns the session's cookies: the state a site keeps about the
// branch (an A/B assignment, a consent, a cart), so the committer can
// re-materialize the branch in the same state.
func (s *Session) Cookies() ([]branch.Cookie, error) {
	cs, err := s.bctx.Cookies()
	if err != nil {
		return nil, fmt.Errorf("browser: cookies: %w", err)
	}
	out := make([]branch.Cookie, len(cs))
	for i, c := range cs {
		out[i] = branch.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: c.Expires, HTTPOnly: c.HttpOnly, Secure: c.Secure}
		if c.SameSite != nil {
			out[i].SameSite = string(*c.SameSite)
		}
	}
	return out, nil
}

// AddCookies sets cookies before the session navigates.
func (s *Session) AddCookies(cs []branch.Cookie) error {
	if len(cs) == 0 {
		return nil
	}
	if err := s.bctx.AddCookies(optionalCookies(cs)); err != nil {
		return fmt.Errorf("browser: setting cookies: %w", err)
	}
	return nil
}

// SetValue sets the value of the first element matching selector (the
// committer writes the idempotency key into a hidden form field with it).
func (s *Session) SetValue(ctx context.Context, selector, value string) error {
	var found any
	err := s.call(ctx, "setting "+selector, func() (e error) {
		found, e = s.page.Evaluate(`([sel, v]) => {
  const el = document.querySelector(sel);
  if (!el) return false;
  el.value = v;
  el.setAttribute('value', v);
  return true;
}`, []any{selector, value})
		return e
	})
	if err != nil {
		return fmt.Errorf("browser: setting %s: %w", selector, err)
	}
	if ok, _ := found.(bool); !ok {
		return &ActionError{Code: branch.CodeSelectorNotFound, Msg: "no element matches " + selector}
	}
	return nil
}

// InjectHeader adds a header to every request matching one of patterns
// (any non-GET request when patterns is empty) from now on.
func (s *Session) InjectHeader(patterns []GuardPattern, name, value string) error {
	return s.bctx.Route("**/*", func(route playwright.Route) {
		go func() {
			req := route.Request()
			match := len(patterns) == 0 && req.Method() != "GET"
			for _, p := range patterns {
				if p.Matches(req.Method(), req.URL()) {
					match = true
				}
			}
			if !match {
				route.Fallback()
				return
			}
			h := req.Headers()
			h[name] = value
			route.Fallback(playwright.RouteFallbackOptions{Headers: h})
		}()
	})
}

// Fetch GETs a URL (relative URLs resolve against the page) with the
// session's cookies, outside the page, and returns status and body.
func (s *Session) Fetch(ctx context.Context, raw string) (int, []byte, error) {
	base, err := url.Parse(s.page.URL())
	if err != nil {
		return 0, nil, fmt.Errorf("browser: page URL: %w", err)
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return 0, nil, fmt.Errorf("browser: %q: %w", raw, err)
	}
	u := base.ResolveReference(ref).String()
	resp, err := s.bctx.Request().Get(u, playwright.APIRequestContextGetOptions{
		Timeout: playwright.Float(float64(s.opts.Env.ActionTimeout.Milliseconds()))})
	if err != nil {
		return 0, nil, fmt.Errorf("browser: fetching %s: %w", s.scrubURL(u), err)
	}
	defer resp.Dispose()
	body, err := resp.Body()
	if err != nil {
		return resp.Status(), nil, fmt.Errorf("browser: reading %s: %w", s.scrubURL(u), err)
	}
	return resp.Status(), body, nil
}

// Screenshot stores a screenshot of the page and returns its digest.
func (s *Session) Screenshot(ctx context.Context) (string, error) {
	if s.opts.Store == nil {
		return "", fmt.Errorf("browser: no artifact store")
	}
	png, err := s.ScreenshotPNG(ctx)
	if err != nil {
		return "", err
	}
	d, err := s.opts.Store.Put(ctx, png)
	return string(d), err
}

// ScreenshotPNG is a PNG of the viewport taken as an observation takes
// its advisory screenshot (personal data masked, the caret as it is),
// stored nowhere: a replay compares it with the recorded one.
func (s *Session) ScreenshotPNG(ctx context.Context) ([]byte, error) {
	var png []byte
	err := s.call(ctx, "the screenshot", func() (e error) {
		png, e = s.screenshot(playwright.PageScreenshotOptions{Caret: playwright.ScreenshotCaretInitial, Timeout: millis(screenshotTimeout)},
			s.knownPersonal(nil))
		return e
	})
	if err != nil {
		return nil, fmt.Errorf("browser: screenshot: %w", err)
	}
	return png, nil
}

// Href returns the absolute href of the first link whose visible text
// contains text (or the first element matching selector when text is "").
func (s *Session) Href(ctx context.Context, text, selector string) (string, error) {
	var loc playwright.Locator
	if text != "" {
		loc = s.page.GetByRole("link", playwright.PageGetByRoleOptions{Name: text}).First()
	} else {
		loc = s.page.Locator(selector).First()
	}
	v, err := loc.Evaluate(`(el) => el.href || el.getAttribute('href') || ''`, nil, playwright.LocatorEvaluateOptions{Timeout: millis(hrefTimeout)})
	if err != nil {
		return "", fmt.Errorf("browser: finding the invoice link: %w", err)
	}
	h, _ := v.(string)
	if h == "" {
		return "", fmt.Errorf("browser: the invoice link has no href")
	}
	return h, nil
}
