package browser

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// netRec is a network record being filled in as events arrive.
type netRec struct {
	branch.NetRecord
	raw string // the unscrubbed URL, for the strict network digest only
	// reqBody is the scrubbed request body, stored when the request ends.
	reqBody []byte
	done    bool
	// page says the request is a document of the branch's page's main
	// frame: a navigation.
	page bool
	// stream marks an event stream (see isStream).
	stream bool
	// body is the response body, asked for as soon as the response
	// began (see listen); nil when no response came.
	body chan bodyRead
}

// bodyRead is a response body as the driver gave it.
type bodyRead struct {
	data []byte
	err  error
}

// listen records every request of the context. Playwright delivers events
// on its dispatch goroutine, which must never block on a driver call, so
// anything that needs a round trip (the response, its body) runs in a
// goroutine; the in-flight count covers it until it is stored.
func (s *Session) listen() {
	s.bctx.On("page", func(p playwright.Page) {
		if s.page != nil && p != s.page {
			s.setPage(p) // follow popups: the newest page is the branch's page
		}
	})
	s.bctx.On("request", func(req playwright.Request) {
		rec := &netRec{}
		rec.Method = req.Method()
		rec.raw = req.URL()
		rec.URL = s.scrubURL(rec.raw)
		rec.Type = req.ResourceType()
		rec.page = rec.Type == "document" && s.page != nil && req.Frame() == s.page.MainFrame()
		rec.ReqHeaders = s.scrubHeaders(req.Headers())
		if body, err := req.PostDataBuffer(); err == nil && len(body) > 0 {
			ct := req.Headers()["content-type"]
			rec.reqBody = s.scrubBody(ct, body)
			rec.ReqBodyHash = sha(rec.reqBody)
		}
		rec.StartedMS = time.Since(s.born).Milliseconds()
		s.mu.Lock()
		rec.Seq = len(s.net) + 1
		rec.Step = s.step
		s.net = append(s.net, rec)
		s.byReq[req] = rec
		s.inflight++
		s.lastBusy = time.Now()
		s.sent.saw(rec.raw)
		if rec.page {
			s.sent.saw(navSent)
		}
		s.mu.Unlock()
	})
	// A response's body is asked for the moment its headers arrive: the
	// driver then reads it as soon as it is complete. Asked for when the
	// request ends, it can be gone already: a page that reloads or
	// navigates as it loads takes its documents' bodies with it.
	s.bctx.On("response", func(resp playwright.Response) {
		st := resp.Status()
		if st >= 300 && st < 400 {
			return
		}
		s.mu.Lock()
		rec := s.byReq[resp.Request()]
		if rec != nil && strings.HasPrefix(resp.Headers()["content-type"], "text/event-stream") {
			// An event stream never ends: its events are in the page's
			// live log, and the request is no load to wait for.
			rec.stream, s.liveSeen = true, true
			s.mu.Unlock()
			return
		}
		if rec != nil && rec.body == nil {
			rec.body = make(chan bodyRead, 1)
			ch := rec.body
			go func() {
				data, err := resp.Body()
				ch <- bodyRead{data, err}
			}()
		}
		s.mu.Unlock()
	})
	s.bctx.On("requestfinished", func(req playwright.Request) {
		go s.finish(req, "")
	})
	s.bctx.On("requestfailed", func(req playwright.Request) {
		msg := "failed"
		if err := req.Failure(); err != nil {
			msg = err.Error()
		}
		go s.finish(req, msg)
	})
}

func (s *Session) finish(req playwright.Request, failure string) {
	s.mu.Lock()
	rec := s.byReq[req]
	s.mu.Unlock()
	if rec == nil {
		return
	}
	var status int
	var headers map[string]string
	var bodyHash string
	var size int
	if failure == "" {
		if resp, err := req.Response(); err == nil && resp != nil {
			status = resp.Status()
			headers = s.scrubHeaders(resp.Headers())
			if status < 300 || status >= 400 {
				s.mu.Lock()
				early := rec.body
				s.mu.Unlock()
				var body []byte
				if early != nil {
					r := <-early
					body, err = r.data, r.err
				} else {
					body, err = resp.Body()
				}
				if err == nil {
					// What is recorded, hashed and replayed is the
					// scrubbed body.
					body = s.scrubBody(resp.Headers()["content-type"], body)
					size = len(body)
					bodyHash = sha(body)
					if s.opts.Record && s.opts.Store != nil {
						s.opts.Store.Put(context.Background(), body)
					}
				}
			}
		}
	}
	if len(rec.reqBody) > 0 && s.opts.Record && s.opts.Store != nil {
		// What the request submitted, scrubbed like a response body, so
		// the record shows what was sent and not only its hash.
		s.opts.Store.Put(context.Background(), rec.reqBody)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.DurationMS = time.Since(s.born).Milliseconds() - rec.StartedMS
	rec.reqBody = nil
	rec.Status, rec.RespHeaders, rec.BodyHash, rec.BodySize = status, headers, bodyHash, size
	if failure != "" {
		rec.Error = failure
		if s.blocked[rec.Method+" "+req.URL()] > 0 {
			rec.Blocked = true
		}
	}
	if rec.Type == "document" && req.Frame() == s.page.MainFrame() {
		s.docStatus = status
		if failure != "" {
			s.docFailure = failure
		}
	}
	rec.done = true
	delete(s.byReq, req)
	s.inflight--
	s.lastBusy = time.Now()
}

// navigated returns the URL of the first main-frame document the running
// step requested (scrubbed), "" when it navigated nowhere.
func (s *Session) navigated() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := ""
	for i := len(s.net) - 1; i >= 0 && s.net[i].Step >= s.step; i-- {
		if s.net[i].page {
			first = s.net[i].URL
		}
	}
	return first
}

// waitQuiet waits until no request is in flight and none started for the
// quiet window, and the page sent none the session has not seen
// (drainSent), or until deadline. A request an earlier step left open
// longer than an action's timeout (a long poll, the slow request of a slow
// step, one of a page navigated away from) does not hold this step.
func (s *Session) waitQuiet(ctx context.Context, deadline time.Time) error {
	const quiet = 25 * time.Millisecond
	var drained time.Time // when the page's list was last taken
	for {
		s.mu.Lock()
		busy := s.sent.owes(time.Now())
		old := time.Since(s.born).Milliseconds() - s.opts.Env.ActionTimeout.Milliseconds()
		for _, rec := range s.byReq {
			if isStream(rec) {
				continue
			}
			if rec.Step >= s.step || rec.StartedMS > old {
				busy = true
				break
			}
		}
		since, last := time.Since(s.lastBusy), s.lastBusy
		s.mu.Unlock()
		if !busy && since >= quiet {
			if !drained.IsZero() && !last.After(drained) {
				return nil // and the page sent nothing unseen since
			}
			drained = time.Now()
			s.drainSent(ctx)
			continue
		}
		if time.Now().After(deadline) {
			return errNetworkBusy
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// markLate marks the running step's requests still in flight as late:
// whatever answers them reaches the page after the step's observation.
func (s *Session) markLate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range s.byReq {
		if rec.Step == s.step && !isStream(rec) {
			rec.Late = true
		}
	}
}

// NetSince returns the network records of steps >= step, in the order the
// requests started.
func (s *Session) NetSince(step int) []branch.NetRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []branch.NetRecord
	for _, r := range s.net {
		if r.Step >= step {
			out = append(out, r.NetRecord)
		}
	}
	return out
}

// recsSince copies the records of the steps from step on.
func (s *Session) recsSince(step int) []netRec {
	s.mu.Lock()
	defer s.mu.Unlock()
	var recs []netRec
	for _, r := range s.net {
		if r.Step >= step {
			recs = append(recs, *r)
		}
	}
	return recs
}

// Blocked returns the guarded requests the session refused to send, as
// "METHOD URL" with the URL scrubbed by the session's scrubber.
func (s *Session) Blocked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.blocked))
	for k := range s.blocked {
		meth, u, _ := strings.Cut(k, " ")
		out = append(out, meth+" "+s.scrubURL(u))
	}
	sort.Strings(out)
	return out
}

// Unsupported lists traffic the capture cannot record faithfully.
func (s *Session) Unsupported() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string{}, s.unsupported...)
	for _, r := range s.net {
		if r.Unsupported != "" {
			out = append(out, r.Unsupported+" "+r.URL)
		}
	}
	return out
}

// netDigest is the sha256 over the step's records: method, scrubbed URL
// with the task origin folded, status and scrubbed body hash, one line
// each, and a line per live channel entry (liveLines), the lines sorted
// (branch.NetDigestMultiset). Scrubbing is
// idempotent, so a replay from scrubbed records reaches the same digest.
func (s *Session) netDigest(recs []netRec, live []branch.LiveFrame) string {
	lines := append(s.netLines(recs), liveLines(live)...)
	sort.Strings(lines)
	return sha([]byte(strings.Join(lines, "")))
}

// netDigestInOrder is the older form of netDigest, the lines in request
// order: a replay compares it with bundles recorded before the multiset.
func (s *Session) netDigestInOrder(recs []netRec) string {
	return sha([]byte(strings.Join(s.netLines(recs), "")))
}

// netLines are the digest lines of recs, in request order.
func (s *Session) netLines(recs []netRec) []string {
	lines := make([]string, 0, len(recs))
	last := -1 // the step's last main-frame document
	for i := range recs {
		if recs[i].page {
			last = i
		}
	}
	for i := range recs {
		r := &recs[i]
		if isStream(r) {
			continue // its events are live frames, digested as such
		}
		body := r.BodyHash
		if i < last {
			// A request of a document the step left again (a page that
			// reloads itself, a click that navigates): the browser drops
			// that document's bodies when the next one commits, sometimes
			// before they can be read, at capture and at replay alike.
			// That it was made, and its answer's status, are in the
			// digest; its body is not.
			body = "superseded"
		}
		var b strings.Builder
		u := r.URL
		if o := s.opts.Origin; o != "" && strings.HasPrefix(u, o) {
			u = "{origin}" + u[len(o):]
		}
		b.WriteString(r.Method + " " + u + " " + itoa(r.Status) + " " + body)
		if r.Blocked {
			b.WriteString(" blocked")
		}
		b.WriteString("\n")
		lines = append(lines, b.String())
	}
	return lines
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var d [20]byte
	i := len(d)
	for n > 0 {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		d[i] = '-'
	}
	return string(d[i:])
}

var sensitiveHeaders = map[string]bool{"authorization": true, "cookie": true, "set-cookie": true,
	"proxy-authorization": true, "x-csrf-token": true, "x-xsrf-token": true, "x-api-key": true}

func (s *Session) scrubHeaders(h map[string]string) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		lk := strings.ToLower(k)
		if s.opts.Scrub != nil {
			out[lk] = s.opts.Scrub.Header(lk, v)
		} else if sensitiveHeaders[lk] {
			out[lk] = "[redacted]"
		} else {
			out[lk] = v
		}
	}
	return out
}

func (s *Session) scrubText(t string, extra []string) string {
	if s.opts.Scrub != nil {
		return s.opts.Scrub.TextWith(t, extra)
	}
	return t
}

func (s *Session) scrubAria(t string, extra []string) string {
	if s.opts.Scrub != nil {
		return s.opts.Scrub.Aria(t, extra)
	}
	return t
}

func (s *Session) scrubBody(contentType string, b []byte) []byte {
	if s.opts.Scrub == nil {
		return b
	}
	out, vals := s.opts.Scrub.BodyValues(contentType, b)
	if len(vals) > 0 {
		s.mu.Lock()
		if s.sensitive == nil {
			s.sensitive = map[string]bool{}
		}
		for _, v := range vals {
			s.sensitive[v] = true
		}
		s.mu.Unlock()
	}
	return out
}

// sensitiveValues lists the values scrubbed from bodies by key, longest
// first (so a value is replaced before any value it contains).
func (s *Session) sensitiveValues() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.sensitive))
	for v := range s.sensitive {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

func (s *Session) scrubURL(u string) string {
	if s.opts.Scrub != nil {
		return s.opts.Scrub.URL(u)
	}
	return u
}
