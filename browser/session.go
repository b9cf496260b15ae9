package browser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Env is the frozen environment of a session. A zero size, device scale
// factor, step advance, action timeout or clock takes the task's default
// (task.DefaultViewportWidth and the others); a zero locale, timezone or
// user agent leaves Chromium's own.
type Env struct {
	Width, Height     int
	DeviceScaleFactor float64
	Locale            string
	Timezone          string
	UserAgent         string
	// Clock is the page clock at the start of the session; it advances by
	// StepAdvance after every action and never on its own.
	Clock         time.Time
	StepAdvance   time.Duration
	ActionTimeout time.Duration
	// Headers are extra HTTP headers sent with every request.
	Headers map[string]string
	// IgnoreHTTPSErrors accepts certificates Chromium does not trust (a
	// site behind an internal certificate authority).
	IgnoreHTTPSErrors bool
}

// GuardPattern names requests: the ones a speculative session must not
// send (a guard), or the state-changing ones it may (an allow pattern).
type GuardPattern struct {
	Method string // "" any
	URL    *regexp.Regexp
}

// Matches reports whether the request matches: its method, and URL
// against the full URL or the URL relative to its origin (path and
// query), so "^/orders" names /orders on any origin.
func (g GuardPattern) Matches(method, raw string) bool {
	if g.URL == nil || (g.Method != "" && !strings.EqualFold(g.Method, method)) {
		return false
	}
	if g.URL.MatchString(raw) {
		return true
	}
	if o := originOf(raw); o != "" && len(raw) > len(o) {
		return g.URL.MatchString(raw[len(o):])
	}
	return false
}

// Putter stores artifacts by content hash.
type Putter interface {
	Put(ctx context.Context, data []byte) (artifacts.Digest, error)
}

// Scrubber removes secrets and personal data from what is recorded.
type Scrubber interface {
	Header(name, value string) string
	URL(u string) string
	Text(t string) string
	TextWith(t string, extra []string) string
	// Aria scrubs an accessibility snapshot: TextWith, with token scalars
	// written the same however the raw value was quoted.
	Aria(t string, extra []string) string
	BodyValues(contentType string, b []byte) ([]byte, []string)
}

// SessionOptions configure a session.
type SessionOptions struct {
	Env     Env
	RunSeed uint64
	// Origin is the task's start origin; recorded URLs on it are folded to
	// "{origin}" in network digests so that they do not depend on the port
	// the site was served on.
	Origin string
	// Guard names requests the session holds while it holds writes, on
	// top of every state-changing one: an extra wall, never the only one.
	Guard []GuardPattern
	// Allow names state-changing requests speculation may send anyway
	// (the task's explore.allow: a search form posted, say).
	Allow []GuardPattern
	// Origins are the origins, besides Origin, that a navigation may go
	// to; a navigation elsewhere is held (branch.HeldOffOrigin). A session
	// with neither Origin nor Origins goes anywhere.
	Origins []string
	// SendWrites lets state-changing requests out from the start: only
	// for what runs outside speculation (the task's scripted login).
	// Every other session holds them; the committer releases its own
	// right before the commit action (ReleaseWrites).
	SendWrites bool
	Store      Putter
	Scrub      Scrubber
	// Volatile lists attributes left out of the canonical DOM.
	Volatile []string
	// Record keeps response bodies in the artifact store.
	Record bool
	// SecretInputs names the task inputs whose values are secrets: fields
	// they are typed into are masked in screenshots.
	SecretInputs map[string]bool
	// NoControls leaves the page's clock and randomness alone (no pinned
	// clock, no seeded Math.random): only to show what the determinism
	// controls buy.
	NoControls bool
	// Proxy sends every request of the session, loopback included, to
	// this HTTP proxy ("http://127.0.0.1:PORT"): the replayer serves
	// recorded responses this way, HTTPS ones through CONNECT tunnels it
	// terminates itself.
	Proxy string
	// State is the login state the session starts from (the task's
	// auth.storage_state), or nil.
	State *task.StorageState
	// Heal resolves targets as playback does: a match found by a
	// fallback strategy counts only when the target's recorded
	// neighbourhood text or box confirms it, a target no strategy finds
	// is looked for at its recorded box, and a healed match is
	// screenshotted, outlined, before the action (HealShot).
	Heal bool
	// PlayLive makes the page's WebSocket and EventSource stand-ins that
	// never touch the network and play the frames FeedLive hands them (a
	// strict replay); otherwise live channels connect and are recorded.
	PlayLive bool
}

// Session is one branch's isolated browser context. It is not safe for
// concurrent use: one goroutine drives it.
type Session struct {
	rt   *Runtime
	opts SessionOptions
	bctx playwright.BrowserContext
	page playwright.Page
	vt   time.Time // the pinned page clock
	born time.Time // wall time the session was created: network timings count from it
	step int
	// limit bounds each wait of the current step: the action timeout, or
	// less when the step's context ends sooner.
	limit time.Duration

	closeOnce sync.Once
	closeErr  error
	closed    atomic.Bool
	aborted   atomic.Bool

	// healShot is the outlined screenshot of the last step's healed
	// match (Heal sessions only).
	healShot []byte
	// selector is the selector string that resolved the last step's
	// target.
	selector string
	// via is how the last set action put its value in (StepResult.Via);
	// fieldBox is the frame offset of the date field it works on.
	via      string
	fieldBox *point

	mu       sync.Mutex
	net      []*netRec
	byReq    map[playwright.Request]*netRec
	inflight int
	lastBusy time.Time
	// sent matches the requests the page reported sending with those
	// seen (drainSent).
	sent    sentLedger
	blocked map[string]int // method+" "+url -> times blocked
	// held are the requests held instead of sent; writes is set once
	// state-changing requests may go out.
	held   []branch.Held
	writes atomic.Bool
	// navOrigins are origins navigate actions named explicitly.
	navOrigins map[string]bool
	// framesSent notes the WebSocket frames the live gate let out, by
	// step and connection URL, so that a frame the action sent is
	// accounted for (markCaused).
	framesSent map[string]bool
	crashed    bool
	dialogs    []branch.Dialog
	// answer is how the running action answers native dialogs.
	answer string
	// console holds the running step's console errors and warnings and
	// uncaught page errors (takeConsole).
	console []branch.ConsoleEntry
	// live holds the running step's live channel entries (keepLive),
	// liveDropped how many a take dropped; liveSeen says the page made
	// a live connection (a capture then takes the log before each
	// action too).
	live        []branch.LiveFrame
	liveDropped int
	liveSeen    bool
	// observed is the last step an observation looked at.
	observed int
	// slow says why the running step's network did not settle ("" when
	// it did); only the step's own goroutine touches it.
	slow        string
	unsupported []string
	docStatus   int
	// docFailure is the network error of the last main-frame document
	// request that failed (net::ERR_TOO_MANY_REDIRECTS, ...).
	docFailure string
	// sensitive holds values the capture scrubbed from bodies because of
	// their key; pages that render them are scrubbed of them too.
	sensitive map[string]bool
	// masked are the targets secrets were typed into, typed the secret
	// values typed, and seenPII the personal field values observations
	// saw: screenshots mask all of them wherever they show.
	masked  []*branch.Target
	typed   []string
	seenPII map[string]bool
}

// ErrSessionClosed is returned by a closed session.
var ErrSessionClosed = errors.New("browser: session closed")

// NewSession opens an isolated context with the frozen environment, pinned
// clock, seeded randomness and guards installed, and a blank page.
func (r *Runtime) NewSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	e := opts.Env
	if e.Width == 0 {
		e.Width, e.Height = task.DefaultViewportWidth, task.DefaultViewportHeight
	}
	if e.DeviceScaleFactor == 0 {
		e.DeviceScaleFactor = task.DefaultDeviceScaleFactor
	}
	if e.StepAdvance == 0 {
		e.StepAdvance = task.DefaultStepAdvance
	}
	if e.ActionTimeout == 0 {
		e.ActionTimeout = task.DefaultActionTimeout
	}
	if e.Clock.IsZero() {
		e.Clock = task.DefaultClock
	}
	opts.Env = e
	co := playwright.BrowserNewContextOptions{
		Viewport:          &playwright.Size{Width: e.Width, Height: e.Height},
		DeviceScaleFactor: playwright.Float(e.DeviceScaleFactor),
		ReducedMotion:     playwright.ReducedMotionReduce,
		ServiceWorkers:    playwright.ServiceWorkerPolicyBlock,
		AcceptDownloads:   playwright.Bool(false),
		ColorScheme:       playwright.ColorSchemeLight,
	}
	co.ExtraHttpHeaders = map[string]string{}
	if e.Locale != "" {
		co.Locale = playwright.String(e.Locale)
		co.ExtraHttpHeaders["Accept-Language"] = e.Locale
	}
	for k, v := range e.Headers {
		co.ExtraHttpHeaders[k] = v
	}
	if e.Timezone != "" {
		co.TimezoneId = playwright.String(e.Timezone)
	}
	if e.UserAgent != "" {
		co.UserAgent = playwright.String(e.UserAgent)
	}
	if e.IgnoreHTTPSErrors {
		co.IgnoreHttpsErrors = playwright.Bool(true)
	}
	if opts.Proxy != "" {
		// "<-loopback>" removes Chromium's implicit proxy bypass for
		// localhost and 127.0.0.1.
		co.Proxy = &playwright.Proxy{Server: opts.Proxy, Bypass: playwright.String("<-loopback>")}
	}
	if opts.State != nil {
		co.StorageState = playwrightState(opts.State)
	}
	bctx, err := r.browser.NewContext(co)
	if err != nil {
		return nil, fmt.Errorf("browser: new context: %w", err)
	}
	s := &Session{rt: r, opts: opts, bctx: bctx, vt: e.Clock, byReq: map[playwright.Request]*netRec{}, blocked: map[string]int{}, navOrigins: map[string]bool{}, framesSent: map[string]bool{}, born: time.Now(),
		limit: e.ActionTimeout}
	fail := func(what string, err error) (*Session, error) {
		bctx.Close()
		return nil, fmt.Errorf("browser: %s: %w", what, err)
	}
	bctx.SetDefaultTimeout(float64(e.ActionTimeout.Milliseconds()))
	bctx.SetDefaultNavigationTimeout(float64(e.ActionTimeout.Milliseconds()))
	ms := e.Clock.UnixMilli()
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(listenerScript)}); err != nil {
		return fail("installing the listener script", err)
	}
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(userRequestScript)}); err != nil {
		return fail("installing the request script", err)
	}
	if err := bctx.ExposeBinding(liveGateBinding, s.liveGate); err != nil {
		return fail("installing the live channel gate", err)
	}
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(liveScript(opts.PlayLive))}); err != nil {
		return fail("installing the live channel script", err)
	}
	if !opts.NoControls {
		if err := bctx.Clock().Install(playwright.ClockInstallOptions{Time: ms}); err != nil {
			return fail("installing the page clock", err)
		}
		if err := bctx.Clock().PauseAt(ms); err != nil {
			return fail("pausing the page clock", err)
		}
		if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(determinismScript(opts.RunSeed, ms))}); err != nil {
			return fail("installing the determinism script", err)
		}
	}
	s.writes.Store(opts.SendWrites)
	if err := bctx.Route("**/*", s.holdRoute); err != nil {
		return fail("installing the request hold", err)
	}
	s.listen()
	page, err := bctx.NewPage()
	if err != nil {
		return fail("new page", err)
	}
	s.setPage(page)
	return s, nil
}

func (s *Session) setPage(p playwright.Page) {
	s.page = p
	p.On("crash", func() {
		s.mu.Lock()
		s.crashed = true
		s.mu.Unlock()
	})
	p.On("dialog", func(d playwright.Dialog) {
		s.mu.Lock()
		answer := s.answer
		if answer != branch.DialogAccept {
			answer = branch.DialogDismiss
		}
		s.dialogs = append(s.dialogs, branch.Dialog{Type: d.Type(), Message: s.scrubText(d.Message(), nil), Answer: answer})
		s.mu.Unlock()
		if answer == branch.DialogAccept {
			go d.Accept()
		} else {
			go d.Dismiss()
		}
	})
	p.On("pageerror", func(err error) { s.said("pageerror", err.Error()) })
	p.On("console", func(m playwright.ConsoleMessage) {
		if t := m.Type(); t == "error" || t == "warning" {
			s.said(t, m.Text())
		}
		// The context blocks service workers; Playwright's stub says so
		// on the console, which is how a registration attempt shows.
		if m.Type() == "warning" && strings.Contains(m.Text(), "Service Worker registration blocked") {
			s.mu.Lock()
			s.unsupported = append(s.unsupported, "service worker registration on "+p.URL())
			s.mu.Unlock()
		}
	})
	p.On("websocket", func(ws playwright.WebSocket) {
		s.mu.Lock()
		s.liveSeen = true // its frames are in the page's live log
		s.mu.Unlock()
	})
}

// said keeps a console message or page error of the running step, up to
// branch.ConsoleLimit; takeConsole scrubs and cuts them.
func (s *Session) said(kind, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.console) < branch.ConsoleLimit {
		s.console = append(s.console, branch.ConsoleEntry{Type: kind, Text: text})
	}
}

// consoleText bounds one console entry's text, in characters.
const consoleText = 300

// takeConsole returns what the page said since the last call, scrubbed
// like the page itself (the personal values the session has seen typed,
// submitted or shown included), then cut: a value is never cut in half
// before it is found.
func (s *Session) takeConsole() []branch.ConsoleEntry {
	s.mu.Lock()
	c := s.console
	s.console = nil
	s.mu.Unlock()
	if len(c) == 0 {
		return nil
	}
	known := s.knownPersonal(nil)
	for i := range c {
		t := s.scrubText(c[i].Text, known)
		if r := []rune(t); len(r) > consoleText {
			t = string(r[:consoleText]) + "…"
		}
		c[i].Text = t
	}
	return c
}

// closeWait bounds how long closing a context may take: a page stuck in
// a navigation that never answers must not hold its worker forever.
const closeWait = 10 * time.Second

// Close closes the context. It is idempotent and safe to call from any
// goroutine, also while another call into the session is pending (which
// then fails).
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.closeErr = closeWithin("the context", func() error { return s.bctx.Close() })
	})
	return s.closeErr
}

// closeWithin runs a close that may wait on a page that never answers,
// giving up after closeWait.
func closeWithin(what string, close func() error) error {
	done := make(chan error, 1)
	go func() { done <- close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait):
		return fmt.Errorf("browser: closing %s did not finish within %s", what, closeWait)
	}
}

// Abort closes the context from outside the goroutine driving the
// session: a pending Playwright call fails at once instead of waiting for
// a page that may never answer. The session is unusable afterwards.
func (s *Session) Abort() {
	s.aborted.Store(true)
	s.Close()
}

// Aborted reports whether the session was aborted.
func (s *Session) Aborted() bool { return s.aborted.Load() }

// watch arms a watchdog over one blocking exchange with the page.
// Playwright's Evaluate, Title and clock calls take neither a context nor
// a timeout, and a page stuck in a navigation that never answers can hold
// them forever. When ctx ends or limit passes first, the watchdog aborts
// the session, which fails the pending call. The returned stop disarms it
// and reports whether it fired because of the limit.
func (s *Session) watch(ctx context.Context, limit time.Duration) (stop func() (overrun bool)) {
	var over atomic.Bool
	t := time.AfterFunc(limit, func() {
		over.Store(true)
		s.Abort()
	})
	cancel := context.AfterFunc(ctx, s.Abort)
	return func() bool {
		t.Stop()
		cancel()
		return over.Load()
	}
}

// guard runs fn under the watchdog with the given limit. It returns fn's
// error, ErrSessionClosed on a closed session, or, when the limit cut fn
// short, a page_unresponsive ActionError.
func (s *Session) guard(ctx context.Context, what string, limit time.Duration, fn func() error) error {
	if s.closed.Load() {
		return ErrSessionClosed
	}
	stop := s.watch(ctx, limit)
	err := fn()
	if stop() && ctx.Err() == nil {
		return &ActionError{Code: branch.CodeUnresponsive, Msg: fmt.Sprintf("the page did not answer %s within %s; its context was closed", what, limit)}
	}
	return err
}

// call guards one exchange with the page, with a limit of ActionTimeout
// and some slack.
func (s *Session) call(ctx context.Context, what string, fn func() error) error {
	return s.guard(ctx, what, s.opts.Env.ActionTimeout+watchdogSlack, fn)
}

// VirtualTime returns the pinned page clock.
func (s *Session) VirtualTime() time.Time { return s.vt }

// Step returns the number of actions executed so far.
func (s *Session) Step() int { return s.step }

// URL returns the current page URL.
func (s *Session) URL() string { return s.page.URL() }

// PageURL returns the page's URL scrubbed, for reports.
func (s *Session) PageURL() string { return s.scrubURL(s.page.URL()) }

// Crashed reports whether the page crashed.
func (s *Session) Crashed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashed
}

// Page exposes the current page for the committer's own steps.
func (s *Session) Page() playwright.Page { return s.page }

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
