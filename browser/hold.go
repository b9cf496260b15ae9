package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"mime/multipart"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Speculation holds by default. A session sends no request that can
// change a site (any method but GET, HEAD and OPTIONS) unless
// SessionOptions.Allow names it, it is a read by its own protocol (a
// GraphQL query sent by POST), or the session was told it may write
// (SessionOptions.SendWrites, or ReleaseWrites for the committer's one
// commit action). Guard patterns are an extra wall on top; a navigation
// to an origin the session does not explore is held too.
//
// A held request is aborted (the page sees a failed request). Whether it
// ends the branch depends on who made it: the step's own action (a form
// posted, a fetch sent from a click handler) ends the step with
// branch.CodeSideEffect; the page on its own (polling, analytics, a new
// page's load scripts) is only recorded.

// safeMethods never change server state by HTTP's own definition.
var safeMethods = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true}

// SafeMethod reports whether method is a read by HTTP's definition.
func SafeMethod(method string) bool { return safeMethods[strings.ToUpper(method)] }

// ReleaseWrites lets state-changing requests out from now on: the
// committer calls it right before the commit action, after its re-run of
// the plan was held like any speculative branch. Guard patterns and the
// origin wall stop applying too.
func (s *Session) ReleaseWrites() { s.writes.Store(true) }

// HoldWrites holds state-changing requests again (after ReleaseWrites).
func (s *Session) HoldWrites() { s.writes.Store(false) }

// holdRoute decides every request of the context. Route callbacks must
// not block the driver's event loop.
func (s *Session) holdRoute(route playwright.Route) {
	go func() {
		req := route.Request()
		reason := s.holdReason(req)
		if reason == "" {
			route.Fallback()
			return
		}
		s.recordHeld(req, reason)
		route.Abort("blockedbyclient")
	}()
}

// holdReason is why req must be held, or "" when it may go out.
func (s *Session) holdReason(req playwright.Request) string {
	method, raw := req.Method(), req.URL()
	if r := s.writeWall(method, raw, func() bool { return SafeMethod(method) || graphQLRead(req) }); r != "" {
		return r
	}
	if !s.writes.Load() && req.IsNavigationRequest() && s.isMainFrame(req) && !s.exploredOrigin(raw) {
		return branch.HeldOffOrigin
	}
	return ""
}

// writeWall is why a request (or a WebSocket frame: method
// branch.MethodFrame) must be held as a possible write, or "": nothing is
// held once writes are released, a guard pattern holds what it names,
// and what is not a read by its protocol goes out only when the task
// allows it.
func (s *Session) writeWall(method, raw string, read func() bool) string {
	if s.writes.Load() {
		return ""
	}
	for _, g := range s.opts.Guard {
		if g.Matches(method, raw) {
			return branch.HeldGuard
		}
	}
	if !s.allowed(method, raw) && !read() {
		return branch.HeldWrite
	}
	return ""
}

// liveGate answers a page that sends a frame on a WebSocket (the live
// script asks before each frame): true lets it out. A frame has no
// method that says it only reads, so speculation holds every one the
// task does not allow (explore.allow with method WS) until the
// committer releases writes; a held frame is recorded like a held
// request, with the names of its JSON fields, never their values.
func (s *Session) liveGate(_ *playwright.BindingSource, args ...any) any {
	raw, data := "", ""
	if len(args) > 0 {
		raw, _ = args[0].(string)
	}
	if len(args) > 1 {
		data, _ = args[1].(string)
	}
	reason := s.writeWall(branch.MethodFrame, raw, func() bool { return false })
	s.mu.Lock()
	step := s.step
	if reason == "" {
		if len(s.framesSent) >= maxHeld {
			s.framesSent = map[string]bool{}
		}
		s.framesSent[strconv.Itoa(step)+" "+raw] = true
	}
	s.mu.Unlock()
	if reason == "" {
		return true
	}
	h := branch.Held{Method: branch.MethodFrame, Origin: originOf(raw), Path: s.heldPath(raw), Reason: reason, Count: 1}
	h.Fields = fieldNames("application/json", []byte(data))
	s.keepHeld(h)
	return false
}

func (s *Session) allowed(method, raw string) bool {
	for _, g := range s.opts.Allow {
		if g.Matches(method, raw) {
			return true
		}
	}
	return false
}

func (s *Session) isMainFrame(req playwright.Request) bool {
	defer func() { recover() }() // a request of a page already gone
	f := req.Frame()
	return f != nil && s.page != nil && f == s.page.MainFrame()
}

// exploredOrigin reports whether a navigation to raw stays on the
// session's origins: SessionOptions.Origins, the start origin, the
// origin of any URL a navigate action named explicitly, and the origin
// such a navigation ended on (a start URL that redirects from http to
// https, or to the site's new address). A session that
// names no origin at all explores anywhere.
func (s *Session) exploredOrigin(raw string) bool {
	o := originOf(raw)
	if o == "" || strings.HasPrefix(raw, "about:") || strings.HasPrefix(raw, "data:") || strings.HasPrefix(raw, "blob:") {
		return true
	}
	if len(s.opts.Origins) == 0 && s.opts.Origin == "" {
		return true
	}
	if strings.EqualFold(o, s.opts.Origin) {
		return true
	}
	for _, x := range s.opts.Origins {
		if strings.EqualFold(o, strings.TrimRight(x, "/")) {
			return true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.navOrigins[strings.ToLower(o)]
}

// originOf is scheme://host[:port] of an absolute URL, or "".
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// recordHeld notes a held request and whether the running step's action
// caused it.
func (s *Session) recordHeld(req playwright.Request, reason string) {
	method, raw := req.Method(), req.URL()
	nav := req.IsNavigationRequest() && s.isMainFrame(req)
	h := branch.Held{Method: method, Origin: originOf(raw), Path: s.heldPath(raw), Reason: reason, Navigation: nav, Count: 1}
	if body, err := req.PostDataBuffer(); err == nil && len(body) > 0 {
		h.Fields = fieldNames(req.Headers()["content-type"], body)
	}
	s.mu.Lock()
	s.blocked[method+" "+raw]++
	s.mu.Unlock()
	s.keepHeld(h)
}

// keepHeld records a held request in the running step, counted with the
// same request held before in it.
func (s *Session) keepHeld(h branch.Held) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.Step = s.step
	h.Caused = causedHere(h)
	for i := range s.held {
		o := &s.held[i]
		if o.Step == h.Step && o.Method == h.Method && o.Origin == h.Origin && o.Path == h.Path && o.Reason == h.Reason && o.Caused == h.Caused {
			o.Count++
			return
		}
	}
	if len(s.held) < maxHeld {
		s.held = append(s.held, h)
	}
}

// maxHeld bounds what a session remembers of held requests: a page that
// polls every second must not grow it without end.
const maxHeld = 200

// causedHere reports whether a held request is the action's own as soon
// as it is held: a main-frame navigation (a form posted, a link off the
// site). A fetch or XMLHttpRequest is the action's own when the page
// reports it sent it while handling a trusted user event
// (takeUserRequests); polling, analytics and load scripts are the
// page's own.
func causedHere(h branch.Held) bool { return h.Navigation }

// userRequestWait bounds how long a step waits for a request its action
// sent to reach the session's hold.
const userRequestWait = time.Second

// takeUserRequests reads the requests the page sent while handling the
// step's trusted user events, and marks the matching held requests of
// the step as the action's own. A state-changing request the page
// reported but the hold has not seen yet is waited for, briefly.
func (s *Session) takeUserRequests(ctx context.Context, step int) {
	var v any
	err := s.call(ctx, "reading the action's requests", func() (e error) {
		v, e = s.page.Evaluate(`() => { const k = Symbol.for('multiverse.userRequests'); const l = window[k] || []; window[k] = []; return l; }`)
		return e
	})
	list, _ := v.([]any)
	if err != nil || len(list) == 0 {
		return
	}
	deadline := time.Now().Add(userRequestWait)
	for _, item := range list {
		pair, _ := item.([]any)
		if len(pair) != 2 {
			continue
		}
		method, _ := pair[0].(string)
		raw, _ := pair[1].(string)
		if SafeMethod(method) {
			continue
		}
		for !s.markCaused(step, method, raw) && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// markCaused marks the step's held request for method and raw as the
// action's own. It reports whether the request is accounted for: held
// and marked, or sent (allowed, or a read by its protocol).
func (s *Session) markCaused(step int, method, raw string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.heldPath(raw)
	frame := method == branch.MethodFrame
	for i := range s.held {
		h := &s.held[i]
		if h.Step == step && h.Method == method && h.Origin == originOf(raw) && h.Path == path && (!h.Caused || frame) {
			h.Caused = true
			return true
		}
	}
	if frame {
		return s.framesSent[strconv.Itoa(step)+" "+raw]
	}
	for _, r := range s.net {
		if r.Step == step && r.Method == method && r.raw == raw && !r.Blocked && r.done {
			return true // it went out: allowed, or a read by its protocol
		}
	}
	return false
}

// heldPath is the request's path, scrubbed, without its query.
func (s *Session) heldPath(raw string) string {
	u, err := url.Parse(s.scrubURL(raw))
	if err != nil {
		return "/"
	}
	if u.Path == "" {
		return "/"
	}
	return u.EscapedPath()
}

// Held returns the requests the session held, in the order first seen.
func (s *Session) Held() []branch.Held {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]branch.Held(nil), s.held...)
}

// causedHold returns the first request held in step that the step's
// action caused.
func (s *Session) causedHold(step int) (branch.Held, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.held {
		if h.Step == step && h.Caused {
			return h, true
		}
	}
	return branch.Held{}, false
}

// fieldNames lists the names a request body submits (form fields,
// multipart parts, a JSON object's keys), sorted, never their values.
func fieldNames(contentType string, body []byte) []string {
	mt, params, _ := mime.ParseMediaType(contentType)
	seen := map[string]bool{}
	switch {
	case mt == "application/x-www-form-urlencoded" || mt == "":
		if q, err := url.ParseQuery(string(body)); err == nil {
			for k := range q {
				seen[k] = true
			}
		}
	case mt == "multipart/form-data":
		r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			p, err := r.NextPart()
			if err != nil {
				break
			}
			if n := p.FormName(); n != "" {
				seen[n] = true
			}
		}
	case strings.HasSuffix(mt, "json"):
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) == nil {
			for k := range m {
				seen[k] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		if k != "" && len(out) < 64 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// graphQLRead reports whether a POST is a GraphQL query: a JSON body (or
// a batch of them) whose documents define no mutation or subscription.
// A query changes nothing by the protocol's own definition.
func graphQLRead(req playwright.Request) bool {
	if req.Method() != "POST" {
		return false
	}
	body, err := req.PostDataBuffer()
	if err != nil || len(body) == 0 {
		return false
	}
	mt, _, _ := mime.ParseMediaType(req.Headers()["content-type"])
	if !strings.HasSuffix(mt, "json") && mt != "application/graphql" {
		return false
	}
	if mt == "application/graphql" {
		return graphQLQueryText(string(body))
	}
	return GraphQLReadBody(body)
}

// GraphQLReadBody reports whether a JSON request body holds only GraphQL
// query operations.
func GraphQLReadBody(body []byte) bool {
	type op struct {
		Query *string `json:"query"`
	}
	var one op
	if json.Unmarshal(body, &one) == nil && one.Query != nil {
		return graphQLQueryText(*one.Query)
	}
	var batch []op
	if json.Unmarshal(body, &batch) != nil || len(batch) == 0 {
		return false
	}
	for _, o := range batch {
		if o.Query == nil || !graphQLQueryText(*o.Query) {
			return false
		}
	}
	return true
}

var (
	gqlComment = regexp.MustCompile(`#[^\n]*`)
	gqlString  = regexp.MustCompile(`"""(?s:.*?)"""|"(?:[^"\\\n]|\\.)*"`)
	gqlWrite   = regexp.MustCompile(`(^|[\s{}(),])(mutation|subscription)\b`)
	gqlOp      = regexp.MustCompile(`^\s*(\{|query\b)`)
)

// graphQLQueryText reports whether a GraphQL document is made of query
// operations only. Anything it cannot read as one is not a read.
func graphQLQueryText(q string) bool {
	q = gqlString.ReplaceAllString(q, `""`)
	q = gqlComment.ReplaceAllString(q, "")
	if strings.TrimSpace(q) == "" || !gqlOp.MatchString(q) {
		return false
	}
	return !gqlWrite.MatchString(q)
}

// heldError is the step error of a request the action caused and the
// session held.
func heldError(h branch.Held) *ActionError {
	if h.Reason == branch.HeldOffOrigin {
		return &ActionError{Code: branch.CodeOffOrigin, Msg: "held a navigation to " + h.Origin + h.Path + ": the task does not explore that origin (list it in explore.origins)"}
	}
	if h.Method == branch.MethodFrame {
		return &ActionError{Code: branch.CodeSideEffect, Msg: "held a frame sent on the WebSocket " + h.Origin + h.Path +
			": a frame may change the site; speculation sends none the task does not allow (explore.allow with method WS)"}
	}
	msg := "held " + h.Describe()
	if len(h.Fields) > 0 {
		msg += " (fields: " + strings.Join(h.Fields, ", ") + ")"
	}
	msg += ": the action would change the site; speculation never sends that"
	return &ActionError{Code: branch.CodeSideEffect, Msg: msg}
}

// heldOpen reports whether the step held a request not yet known to be
// the action's own: only then is the page asked what its user events
// sent (a step that held nothing costs no round trip).
func (s *Session) heldOpen(step int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.held {
		if h.Step == step && !h.Caused {
			return true
		}
	}
	return false
}

// hasLive reports whether the page made a live connection: its frames
// may be the action's own writes (takeUserRequests asks).
func (s *Session) hasLive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.liveSeen
}

// stuck reports whether a step's error says the page may not answer (a
// navigation that timed out): nothing more is asked of it.
func stuck(err error) bool {
	var ae *ActionError
	if err == nil || !errors.As(err, &ae) {
		return err != nil
	}
	switch ae.Code {
	case branch.CodeTimeout, branch.CodeNavigationTimeout, branch.CodeUnresponsive, branch.CodePageCrash:
		return true
	}
	return false
}
