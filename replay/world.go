package replay

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// ErrWorldClosed: Serve was called after Close.
var ErrWorldClosed = errors.New("replay: the recorded world is closed")

// ErrNotServed is World.Continue's error for a session it cannot
// continue: no live Serve at the address, or a plan that does not extend
// the served one by one action.
var ErrNotServed = errors.New("replay: not a served session to continue")

// ErrScrubKey: WorldOptions.Scrub does not hold the key the run scrubbed
// its records with, so no request carrying personal data would match.
var ErrScrubKey = errors.New("replay: the scrubber is not the run's")

// World serves the recorded network of every branch of a run to a new
// search over the same task (a rerun): each branch session of the new
// search gets a loopback proxy (Serve) that answers its requests from the
// records and refuses what they do not hold. A World never dials out: no
// request reaches the live site, whatever the session asks.
//
// Which records answer a session depends on its plan, compared with the
// plans the run executed by plan digest (branch.Plan.Digest with the
// run's task digest and origin, what the run's branch_fork events carry):
//
//   - a plan the run executed is served from the bundle of the branch
//     that executed it (Build, kind branch): the records of every step of
//     its chain, in order, matched by occurrence (bundle.Matcher) exactly
//     as a strict replay matches them; a request the bundle does not hold
//     is refused;
//   - a plan the run never executed is served from the bundle of its
//     longest prefix the run executed (none when even its first step is
//     new), and a request that bundle does not hold from the run-wide
//     index: every response the run recorded for the same method,
//     normalized URL and request body, whatever the occurrence, provided
//     they all agree on status and body digest (the first one's headers
//     are served). A request whose recorded responses disagree, or that
//     the run never sent, is refused.
//
// A refused request is a Miss. Bundles are built on first use and kept
// until Close. A World is safe for concurrent use.
type World struct {
	src        Source
	rr         *runRecords
	origin     string
	taskDigest string
	sc         *scrub.Scrubber
	// byDigest maps the plan digest of each branch whose bundle can be
	// built (every step of its chain executed and observed) to it.
	byDigest map[string]string
	// common is the run-wide index by triple key (MatchKey with
	// occurrence 0).
	common map[string]*commonReply
	swaps  []swapRule

	mu       sync.Mutex
	bundles  map[string]*worldBundle
	misses   []Miss
	sessions map[string]*worldSession // live sessions by proxy address
	closed   bool
}

// WorldOptions configure OpenWorld. The zero value serves the recording
// as it is, matching requests with a fresh scrubbing key.
type WorldOptions struct {
	// Swaps replace recorded responses (a counterfactual rerun); see
	// Swap for which responses each one replaces. The first swap in
	// order that matches a response replaces it.
	Swaps []Swap
	// Scrub is the scrubber of the recorded run: scrub.New with the run's
	// key (DATA_DIR/keys/RUN_ID.key) and the task's secret values. The
	// records hold requests scrubbed at capture; a new search's browser
	// sends the raw values (an e-mail typed into a form travels in a URL
	// or a body), which only the run's key scrubs to the recorded tokens.
	// OpenWorld checks it against the run's key check (ErrScrubKey). Nil
	// uses a fresh key: then only requests that carry no personal data
	// or secrets match.
	Scrub *scrub.Scrubber
}

// Miss is a request the world held no response for, refused.
type Miss struct {
	// BranchID is the branch of the new search whose session sent it
	// (Serve's branchID), PlanDigest its plan's digest (run's task digest
	// and origin).
	BranchID   string `json:"branch_id"`
	PlanDigest string `json:"plan_digest"`
	// Step is the step that sent the request as far as the world can
	// tell (it has no per-step hook): the recorded step of a request the
	// session's bundle holds, otherwise the plan's last step, len(plan).
	Step   int    `json:"step"`
	Method string `json:"method"`
	// URL is the request's URL, scrubbed.
	URL string `json:"url"`
	// AtCapture says the recording holds the request without a response
	// (it failed or was blocked at capture too): refusing it replays what
	// happened then. Otherwise the request is new to the recording or,
	// past a new plan's recorded prefix, its recorded responses disagree.
	AtCapture bool `json:"at_capture,omitempty"`
	// RecordedSteps is how many of the plan's first steps the run
	// executed (the prefix whose bundle served the session): len(plan)
	// for a plan the run executed, 0 when even its first step is new.
	RecordedSteps int `json:"recorded_steps"`
}

// commonReply is the run-wide answer for one (method, URL, request body).
type commonReply struct {
	entry bundle.Entry // the first recorded response
	agree bool         // every recorded response has entry's status and body digest
}

// worldBundle is a branch bundle, built on first use.
type worldBundle struct {
	mu    sync.Mutex
	b     *bundle.Bundle
	index map[string]*bundle.Entry
	err   error // a build that failed other than by its ctx ending
}

// OpenWorld reads the run's records (its events; bodies are read from the
// artifact store as sessions need them, so src must stay open until
// Close) and checks opts: a swap that matches no recorded response is an
// error naming it (ErrSwap). It fails with ErrNotRecorded for a run
// without records.
func OpenWorld(ctx context.Context, src Source, runID string, opts WorldOptions) (*World, error) {
	rr, err := readRun(ctx, src, runID)
	if err != nil {
		return nil, err
	}
	sc := opts.Scrub
	if sc == nil {
		sc = scrub.New(scrub.NewKey(), nil)
	} else if check := rr.rs.ScrubKeySHA256; check != "" && sc.KeyCheck() != check {
		return nil, fmt.Errorf("%w: run %s was scrubbed with another key", ErrScrubKey, runID)
	}
	w := &World{src: src, rr: rr, origin: rr.rs.Origin, taskDigest: rr.rs.TaskDigest, sc: sc,
		byDigest: map[string]string{}, common: map[string]*commonReply{},
		bundles: map[string]*worldBundle{}, sessions: map[string]*worldSession{}}
	ids := make([]string, 0, len(rr.forks))
	for id := range rr.forks {
		ids = append(ids, id)
	}
	sort.Strings(ids) // the first recorded branch of a digest wins, in id (ULID, creation) order
	for _, id := range ids {
		if _, err := rr.chain(id); err != nil {
			continue // never executed (or not completely): nothing to serve from it
		}
		d := rr.forks[id].Plan.Digest(w.taskDigest, w.origin)
		if _, dup := w.byDigest[d]; !dup {
			w.byDigest[d] = id
		}
	}
	for _, id := range ids {
		st := rr.steps[id]
		if st == nil {
			continue
		}
		for _, n := range st.net {
			e := bundle.EntryFromRecord(n)
			k := tripleKey(e.Method, bundle.NormalizeURL(e.URL, w.origin), e.RequestBodySHA256)
			c := w.common[k]
			if c == nil {
				w.common[k] = &commonReply{entry: e, agree: true}
				continue
			}
			c.agree = c.agree && sameResponse(c.entry, e)
		}
	}
	for i, s := range opts.Swaps {
		r, err := w.compileSwap(s)
		if err == nil {
			err = w.checkSwap(r)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: swap %d (%s): %v", ErrSwap, i+1, s, err)
		}
		w.swaps = append(w.swaps, r)
	}
	return w, nil
}

// tripleKey is the run-wide index key: the match key without occurrence.
func tripleKey(method, normalizedURL, bodySHA string) string {
	return bundle.MatchKey(method, normalizedURL, bodySHA, 0)
}

// failed reports a recorded request without a response: blocked, failed,
// or never answered (no status).
func failed(e bundle.Entry) bool { return e.Blocked || e.Error != "" || e.Status < 100 }

// sameResponse reports whether two recorded responses agree: both failed,
// or both answered with the same status and body.
func sameResponse(a, b bundle.Entry) bool {
	if failed(a) || failed(b) {
		return failed(a) && failed(b)
	}
	return a.Status == b.Status && a.BodySHA256 == b.BodySHA256
}

// Serve starts a proxy for one branch session of the new search that is
// about to run plan (the job's whole plan, from the start page) and
// returns its loopback address ("http://127.0.0.1:PORT", for
// browser.SessionOptions.Proxy) and a func that stops it, which may be
// called more than once. The session's browser must accept the proxy's
// certificates for HTTPS (Env.IgnoreHTTPSErrors): it makes them for
// itself, per session. ctx bounds building the bundle that serves the
// session; the proxy runs until release or Close.
func (w *World) Serve(ctx context.Context, branchID string, plan branch.Plan) (addr string, release func(), err error) {
	if len(plan) == 0 {
		return "", nil, fmt.Errorf("replay: branch %s: an empty plan", branchID)
	}
	if w.isClosed() {
		return "", nil, ErrWorldClosed
	}
	v, err := w.serving(ctx, branchID, plan, nil)
	if err != nil {
		return "", nil, err
	}
	s := &worldSession{w: w, cur: v}
	s.proxy = proxy{sc: w.sc, answer: s.answer}
	addr, closeFn, err := s.proxy.listen()
	if err != nil {
		return "", nil, fmt.Errorf("replay: world proxy: %w", err)
	}
	var once sync.Once
	s.stop = func() { once.Do(closeFn) }
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		s.stop()
		return "", nil, ErrWorldClosed
	}
	w.sessions[addr] = s
	w.mu.Unlock()
	return addr, func() {
		w.mu.Lock()
		delete(w.sessions, addr)
		w.mu.Unlock()
		s.stop()
	}, nil
}

// Continue re-points the proxy at addr (a Serve of the session's parent
// branch, still live) to a child of that branch: branchID runs plan, the
// parent's plan and one more action, in the parent's live session
// instead of replaying the prefix in a fresh one. When the run recorded
// more of plan than of the parent's, the proxy serves the recording of
// the longest recorded prefix from then on, its requests matched as if
// the session had made those of the recording's first len(plan)-1 steps.
// It fails with ErrNotServed for an address no live Serve gave, when
// plan does not extend the served plan, and when the run executed plan
// itself in a context of its own (the recorded branch replayed its
// prefix and recorded what its context was answered: a site that writes
// a fresh form token into each page told it other tokens than the
// parent's context holds). The caller then replays the prefix in a fresh
// session, as the recorded branch did.
func (w *World) Continue(ctx context.Context, addr, branchID string, plan branch.Plan) error {
	w.mu.Lock()
	s := w.sessions[addr]
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return ErrWorldClosed
	}
	if s == nil {
		return fmt.Errorf("%w: no live session at %s", ErrNotServed, addr)
	}
	was := s.current()
	if len(plan) != was.steps+1 || plan[:was.steps].Digest(w.taskDigest, w.origin) != was.digest {
		return fmt.Errorf("%w: branch %s: a plan of %d steps does not continue one of %d", ErrNotServed, branchID, len(plan), was.steps)
	}
	if k, orig := w.prefix(plan); k == len(plan) && w.rr.steps[orig].prefixNet {
		// At capture the plan ran in a context of its own, whose answers
		// (a fresh form token in each page) its recording holds: a
		// continued context would send what another context was told.
		return fmt.Errorf("%w: branch %s: recorded branch %s replayed its prefix in a context of its own", ErrNotServed, branchID, orig)
	}
	v, err := w.serving(ctx, branchID, plan, was)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cur = v
	s.mu.Unlock()
	return nil
}

// serving is what a session serves for branchID's plan, having served
// from (nil for a new session): the recording of plan's longest recorded
// prefix, its requests matched as if the session had made those of the
// steps it made so far (none for a new session), and the swaps under
// plan. A session keeps its recording and matcher unless the run
// recorded more of plan.
func (w *World) serving(ctx context.Context, branchID string, plan branch.Plan, from *served) (*served, error) {
	v := &served{branchID: branchID, digest: plan.Digest(w.taskDigest, w.origin), steps: len(plan),
		matcher: bundle.NewMatcher(w.origin), swaps: w.swapsUnder(plan)}
	done := 0
	if from != nil {
		v.recorded, v.b, v.index, v.matcher, done = from.recorded, from.b, from.index, from.matcher, from.steps
	}
	k, orig := w.prefix(plan)
	if k <= v.recorded {
		return v, nil
	}
	b, index, err := w.bundle(ctx, orig)
	if err != nil {
		return nil, fmt.Errorf("replay: branch %s: the bundle of recorded branch %s: %w", branchID, orig, err)
	}
	v.recorded, v.b, v.index, v.matcher = k, b, index, bundle.NewMatcher(w.origin)
	for i := range b.Network {
		if e := &b.Network[i]; e.Step <= done {
			v.matcher.Next(e.Method, e.URL, e.RequestBodySHA256)
		}
	}
	return v, nil
}

// swapsUnder returns the swaps under a prefix of plan (Swap.Under).
func (w *World) swapsUnder(plan branch.Plan) []swapRule {
	var out []swapRule
	for _, r := range w.swaps {
		if w.startsWith(plan, r.under) {
			out = append(out, r)
		}
	}
	return out
}

// prefix returns the length of plan's longest prefix the run executed and
// the branch that executed it (0 and "" when there is none).
func (w *World) prefix(plan branch.Plan) (int, string) {
	for k := len(plan); k > 0; k-- {
		if id, ok := w.byDigest[plan[:k].Digest(w.taskDigest, w.origin)]; ok {
			return k, id
		}
	}
	return 0, ""
}

// bundle returns the bundle of a recorded branch and its match-key
// index, building it on first use. A build that failed is not tried
// again, unless it failed because its ctx ended.
func (w *World) bundle(ctx context.Context, branchID string) (*bundle.Bundle, map[string]*bundle.Entry, error) {
	w.mu.Lock()
	wb := w.bundles[branchID]
	if wb == nil {
		wb = &worldBundle{}
		w.bundles[branchID] = wb
	}
	w.mu.Unlock()
	wb.mu.Lock()
	defer wb.mu.Unlock()
	if wb.b == nil && wb.err == nil {
		b, err := build(ctx, w.src, w.rr, branchID, bundle.KindBranch)
		if err != nil {
			if ctx.Err() == nil {
				wb.err = err
			}
			return nil, nil, err
		}
		wb.b, wb.index = b, b.Index()
	}
	return wb.b, wb.index, wb.err
}

// Misses returns every request the world held no response for, in the
// order they were refused.
func (w *World) Misses() []Miss {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Miss(nil), w.misses...)
}

// Close stops every proxy still serving; Serve fails with ErrWorldClosed
// from then on. Misses stay readable. It does not close the Source.
func (w *World) Close() error {
	w.mu.Lock()
	w.closed = true
	stops := make([]func(), 0, len(w.sessions))
	for addr, s := range w.sessions {
		stops = append(stops, s.stop)
		delete(w.sessions, addr)
	}
	w.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	return nil
}

func (w *World) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// worldSession answers the requests of one branch session. Continue
// changes what it serves between two actions.
type worldSession struct {
	proxy
	w    *World
	stop func() // stops the proxy; once

	mu  sync.Mutex
	cur *served // replaced whole, never changed
}

// served is what a world session serves: one branch's plan and the
// recording of its longest recorded prefix.
type served struct {
	branchID string
	digest   string
	steps    int // len(plan)
	recorded int // steps of the plan the bundle covers
	b        *bundle.Bundle
	index    map[string]*bundle.Entry
	matcher  *bundle.Matcher
	swaps    []swapRule
}

func (s *worldSession) current() *served {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// answer serves a request from the session's bundle, then (for a plan the
// run never executed) from the run-wide index, or refuses it as a Miss.
func (s *worldSession) answer(ctx context.Context, method, url, bodySHA string) *reply {
	v := s.current()
	key := v.matcher.Next(method, url, bodySHA)
	u := bundle.NormalizeURL(url, s.w.origin)
	if e := v.index[key]; e != nil {
		if failed(*e) {
			s.miss(v, e.Step, method, url, true)
			return nil
		}
		body, _ := v.b.Body(e.BodySHA256)
		return v.reply(e.Step, method, u, e, body)
	}
	if v.recorded == v.steps {
		s.miss(v, v.steps, method, url, false) // an executed plan is served strictly
		return nil
	}
	c := s.w.common[tripleKey(method, u, bodySHA)]
	if c == nil || !c.agree || failed(c.entry) {
		s.miss(v, v.steps, method, url, c != nil && c.agree)
		return nil
	}
	var body []byte
	if d := c.entry.BodySHA256; d != "" {
		var err error
		if body, err = s.w.src.Store.Get(ctx, artifacts.Digest(d)); err != nil {
			s.miss(v, v.steps, method, url, false) // the body is gone from the store
			return nil
		}
	}
	return v.reply(v.steps, method, u, &c.entry, body)
}

// reply is the recorded response e to a request of step, or its
// replacement by the first swap that matches.
func (s *served) reply(step int, method, normalizedURL string, e *bundle.Entry, body []byte) *reply {
	out := &reply{status: e.Status, header: e.ResponseHeaders, body: body}
	for _, r := range s.swaps {
		if !r.matches(method, normalizedURL, step) {
			continue
		}
		out.body = r.Body
		if r.Status != 0 {
			out.status = r.Status
		}
		if r.ContentType != "" {
			h := make(map[string]string, len(e.ResponseHeaders)+1)
			for k, v := range e.ResponseHeaders {
				if !strings.EqualFold(k, "content-type") {
					h[k] = v
				}
			}
			h["content-type"] = r.ContentType
			out.header = h
		}
		break
	}
	return out
}

func (s *worldSession) miss(v *served, step int, method, url string, atCapture bool) {
	s.w.mu.Lock()
	s.w.misses = append(s.w.misses, Miss{BranchID: v.branchID, PlanDigest: v.digest, Step: step, Method: method, URL: url,
		AtCapture: atCapture, RecordedSteps: v.recorded})
	s.w.mu.Unlock()
}

// String is the miss as a line: "branch BRANCH step N: GET URL".
func (m Miss) String() string {
	s := "branch " + m.BranchID + " step " + strconv.Itoa(m.Step) + ": " + m.Method + " " + m.URL
	if m.AtCapture {
		s += " (failed at capture too)"
	}
	return s
}
