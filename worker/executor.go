package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Options configure an Executor.
type Options struct {
	// Name identifies the worker in results and events.
	Name    string
	Browser browser.Options
	Store   browser.Putter
	Logger  *slog.Logger
	// LoginState fetches the session state of a run that logged in
	// (bus.Client.FetchState): JSON of a task.StorageState. Needed for jobs
	// whose spec has Login set.
	LoginState func(ctx context.Context, runID string) ([]byte, error)
	// KeepWarm is how many finished branch sessions the executor keeps
	// alive so that a child can continue its parent's live context
	// instead of replaying the prefix (DefaultKeepWarm is the usual
	// number). Zero disables it.
	KeepWarm int
	// Network, when set, answers every request of each branch session
	// instead of the network (a rerun against a recorded run, see
	// replay.World): it returns the address of an HTTP proxy for the
	// job's session ("http://127.0.0.1:PORT") and a release func, called
	// once the session is closed. Such sessions accept the proxy's own
	// certificates for HTTPS. Without Continue they are never kept warm:
	// each job replays its whole plan in a fresh session. An error is the
	// job's failed result (branch.CodeBadJob), not a redelivery.
	Network func(ctx context.Context, j *job.Job) (proxy string, release func(), err error)
	// Continue, with Network, lets a child continue its parent's kept
	// session: it re-points the parent's proxy (Network's address) to the
	// child's job (replay.World.Continue). An error makes the child
	// replay its plan in a fresh session instead.
	Continue func(ctx context.Context, proxy string, j *job.Job) error
	// Runtime, when set, is the running browser the executor uses instead
	// of launching its own (a warm engine's, which relaunches one that
	// died): the executor never closes it.
	Runtime func(ctx context.Context) (*browser.Runtime, error)
}

// DefaultKeepWarm is the number of finished sessions an executor with the
// given slots keeps warm: two per slot, at least 8.
func DefaultKeepWarm(slots int) int { return max(8, 2*slots) }

// Executor runs branch jobs in one Chromium. Safe for concurrent use: each
// job gets its own session.
type Executor struct {
	opts Options
	log  *slog.Logger

	browser *browser.Keeper // unless opts.Runtime

	warmMu sync.Mutex
	warm   []*warmSession // least recently kept first

	loginMu sync.Mutex
	logins  map[string]*task.StorageState // "run/version" -> the run's session state
}

// warmSession is a live session left at the end of a finished branch.
type warmSession struct {
	run, branch string
	plan        []byte // canonical plan the session executed
	login       int    // the run's login version the session started from
	sess        *browser.Session
	// proxy and release are the session's recorded network (Network),
	// released when the session closes.
	proxy   string
	release func()
}

// close closes the session, then releases its network.
func (w *warmSession) close() {
	w.sess.Close()
	if w.release != nil {
		w.release()
	}
}

// takeWarm returns the live session of the job's parent, if this executor
// holds it and the job is the parent's heir; the caller owns it from then
// on.
func (e *Executor) takeWarm(ctx context.Context, j *job.Job) *warmSession {
	if j.ParentID == "" || !j.Heir || !e.keeps() {
		return nil
	}
	prefix := j.Plan[:len(j.Plan)-1].Canonical()
	e.warmMu.Lock()
	var w *warmSession
	for i, ws := range e.warm {
		// A session from before the run logged in again holds the
		// session that expired: it is not continued.
		if ws.run == j.RunID && ws.branch == j.ParentID && string(ws.plan) == string(prefix) && ws.login == j.Spec.Login {
			e.warm = append(e.warm[:i], e.warm[i+1:]...)
			w = ws
			break
		}
	}
	e.warmMu.Unlock()
	if w != nil && e.opts.Network != nil {
		if err := e.opts.Continue(ctx, w.proxy, j); err != nil {
			e.log.Info("a kept session's recorded network cannot continue: the branch replays its plan", "branch", j.BranchID, "err", err)
			w.close()
			return nil
		}
	}
	return w
}

// keeps reports whether the executor keeps finished sessions for their
// children: on a recorded network only when it can continue them.
func (e *Executor) keeps() bool {
	return e.opts.KeepWarm > 0 && (e.opts.Network == nil || e.opts.Continue != nil)
}

// keepWarm parks a finished branch's session for its children, evicting
// the oldest beyond KeepWarm and any session of another run.
func (e *Executor) keepWarm(j *job.Job, w *warmSession) {
	w.run, w.branch, w.plan, w.login = j.RunID, j.BranchID, j.Plan.Canonical(), j.Spec.Login
	e.warmMu.Lock()
	var drop []*warmSession
	kept := e.warm[:0]
	for _, o := range e.warm {
		if o.run != j.RunID {
			drop = append(drop, o)
			continue
		}
		kept = append(kept, o)
	}
	e.warm = append(kept, w)
	for len(e.warm) > e.opts.KeepWarm {
		drop = append(drop, e.warm[0])
		e.warm = e.warm[1:]
	}
	e.warmMu.Unlock()
	for _, o := range drop {
		o.close()
	}
}

// DropWarm closes every kept session (of one run, or all when run is "").
func (e *Executor) DropWarm(run string) {
	e.warmMu.Lock()
	var drop []*warmSession
	kept := e.warm[:0]
	for _, w := range e.warm {
		if run == "" || w.run == run {
			drop = append(drop, w)
		} else {
			kept = append(kept, w)
		}
	}
	e.warm = kept
	e.warmMu.Unlock()
	for _, w := range drop {
		w.close()
	}
}

// NewExecutor launches the browser.
func NewExecutor(ctx context.Context, opts Options) (*Executor, error) {
	if opts.Store == nil {
		return nil, errors.New("worker: an artifact store is required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &Executor{opts: opts, log: log, browser: browser.NewKeeper(opts.Browser, log)}
	if _, err := e.runtime(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// Runtime returns the executor's live browser runtime, relaunching
// Chromium if it was lost.
func (e *Executor) Runtime(ctx context.Context) (*browser.Runtime, error) { return e.runtime(ctx) }

func (e *Executor) runtime(ctx context.Context) (*browser.Runtime, error) {
	if e.opts.Runtime != nil {
		return e.opts.Runtime(ctx)
	}
	return e.browser.Get(ctx)
}

// Close closes the kept sessions and the browser.
func (e *Executor) Close() error {
	e.DropWarm("")
	return e.browser.Close()
}

// Handle decodes a delivered job, executes it and encodes the result
// (BusHandler makes it a bus.Handler). A job it cannot read is a failed
// result with branch.CodeBadJob. It returns an error only for a fault of
// its own (the browser was lost, ctx ended, the run could not yet say its
// login session), which the bus answers by delivering the job again.
func (e *Executor) Handle(ctx context.Context, d job.Delivery) ([]byte, error) {
	j, err := job.DecodeJob(d.Data)
	if err != nil {
		// A job this worker cannot read will not get better on
		// redelivery; report it as a failed branch.
		r := &job.Result{RunID: d.RunID, BranchID: d.BranchID, Attempt: d.Attempt, Worker: e.opts.Name,
			Status: job.ResultFailed, ErrCode: branch.CodeBadJob, ErrMsg: err.Error()}
		return r.Encode()
	}
	// Continue the orchestrator's trace: this job's steps are children of
	// the branch span whose context travels in the message headers.
	ctx = otel.GetTextMapPropagator().Extract(ctx, bus.HeaderCarrier(d.Header))
	res, kept, err := e.execute(ctx, j, d.Attempt)
	if err != nil {
		return nil, err
	}
	if kept {
		res.WarmRoute = d.Route
	}
	return res.Encode()
}

// Execute materializes the branch in a fresh session, runs its last
// action, and observes. It returns an error only when the browser itself
// failed or ctx ended; a branch timeout is a failed result.
func (e *Executor) Execute(ctx context.Context, j *job.Job, attempt int) (*job.Result, error) {
	res, _, err := e.execute(ctx, j, attempt)
	return res, err
}

// execute is Execute, also reporting whether the executor kept the
// branch's session for its children.
func (e *Executor) execute(ctx context.Context, j *job.Job, attempt int) (res *job.Result, kept bool, err error) {
	start := time.Now()
	res = &job.Result{RunID: j.RunID, BranchID: j.BranchID, Attempt: attempt, Worker: e.opts.Name, Started: start}
	bctx := ctx
	if j.Deadline > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, j.Deadline.D())
		defer cancel()
	}
	rt, err := e.runtime(ctx)
	if err != nil {
		return nil, false, err
	}
	// Continue the parent's live context when this executor still holds
	// it: the same actions on the same frozen environment reach the same
	// state, without replaying the prefix.
	last := len(j.Plan) - 1
	from := 0
	w := e.takeWarm(ctx, j)
	var sess *browser.Session
	if w != nil {
		sess, res.Reused, from = w.sess, true, last
	} else {
		w = &warmSession{}
		so, err := browser.SessionOptionsFor(j.Spec, e.opts.Store)
		if err != nil {
			res.Status, res.ErrCode, res.ErrMsg = job.ResultFailed, branch.CodeBadJob, err.Error()
			return res, false, nil
		}
		if j.Spec.Login > 0 {
			st, err := e.loginState(ctx, j)
			if err != nil {
				return nil, false, err // redelivered: the orchestrator may answer later
			}
			so.State = st
			so.Scrub = j.Spec.ScrubberWith(st.Secrets())
		}
		if e.opts.Network != nil {
			addr, rel, err := e.opts.Network(bctx, j)
			if err != nil {
				if ctx.Err() != nil {
					return nil, false, ctx.Err()
				}
				res.Status, res.ErrCode, res.ErrMsg = job.ResultFailed, branch.CodeBadJob, "the recorded network: "+err.Error()
				return res, false, nil
			}
			// Every request of the session goes to the proxy, which
			// answers HTTPS with certificates of its own.
			so.Proxy, so.Env.IgnoreHTTPSErrors, w.proxy, w.release = addr, true, addr, rel
		}
		if sess, err = rt.NewSession(bctx, so); err != nil {
			if w.release != nil {
				w.release()
			}
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			return nil, false, err
		}
		w.sess = sess
		if err := sess.AddCookies(j.Spec.Cookies); err != nil {
			w.close()
			return nil, false, err
		}
	}
	defer func() {
		if kept {
			e.keepWarm(j, w)
		} else {
			w.close()
		}
	}()
	res.Timing.Context = time.Since(start).Milliseconds()
	resolve := j.Spec.ResolveInput
	t0 := time.Now()
	failed := false
	for i := from; i < len(j.Plan); i++ {
		a := j.Plan[i]
		if i == last {
			res.Timing.Prefix = time.Since(t0).Milliseconds()
			t0 = time.Now()
		}
		sctx, span := telemetry.Tracer().Start(bctx, "step "+a.Kind, trace.WithAttributes(
			attribute.String("multiverse.run_id", j.RunID), attribute.String("multiverse.branch_id", j.BranchID),
			attribute.Int("multiverse.step", i+1), attribute.String("multiverse.action", a.Kind),
			attribute.Bool("multiverse.replayed", i < last)))
		traceID, spanID := telemetry.IDs(sctx)
		sr, err := sess.Do(sctx, a, resolve)
		switch {
		case err != nil:
			span.SetStatus(codes.Error, "the session failed")
		case sr.Status == branch.StatusFailed:
			span.SetStatus(codes.Error, string(sr.Code))
		default:
			span.SetStatus(codes.Ok, "")
		}
		if err == nil {
			span.SetAttributes(attribute.String("multiverse.status", sr.Status), attribute.String("multiverse.code", string(sr.Code)))
		}
		span.End()
		if err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			if bctx.Err() != nil {
				res.Status, res.ErrCode, res.ErrStep = job.ResultFailed, branch.CodeBranchTimeout, i+1
				res.ErrMsg = fmt.Sprintf("the branch exceeded its wall clock budget of %s at step %d", j.Deadline.D(), i+1)
				res.Timing.Total = time.Since(start).Milliseconds()
				return res, false, nil
			}
			return nil, false, err
		}
		res.Steps = append(res.Steps, job.Step{StepResult: sr, Replayed: i < last, TraceID: traceID, SpanID: spanID})
		if sr.Status == branch.StatusFailed {
			res.Status, res.ErrCode, res.ErrMsg, res.ErrStep = job.ResultFailed, sr.Code, sr.Error, i+1
			if i < last {
				res.ErrMsg = fmt.Sprintf("replaying the prefix diverged at step %d: %s", i+1, sr.Error)
			}
			failed = true
			break
		}
	}
	res.Timing.Action = time.Since(t0).Milliseconds()
	if !failed || res.ErrStep == len(j.Plan) {
		t0 = time.Now()
		if err := e.observe(bctx, sess, j, res, from+1); err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			if bctx.Err() != nil {
				res.Status, res.ErrCode, res.ErrStep = job.ResultFailed, branch.CodeBranchTimeout, len(j.Plan)
				res.ErrMsg = fmt.Sprintf("the branch exceeded its wall clock budget of %s while observing step %d", j.Deadline.D(), len(j.Plan))
				res.Timing.Total = time.Since(start).Milliseconds()
				return res, false, nil
			}
			if !failed {
				res.Status, res.ErrCode, res.ErrMsg, res.ErrStep = job.ResultFailed, branch.CodePageError, err.Error(), len(j.Plan)
				var ae *browser.ActionError
				if errors.As(err, &ae) {
					res.ErrCode = ae.Code
				}
			}
		}
		res.Timing.Observe = time.Since(t0).Milliseconds()
	}
	if res.Status == "" {
		res.Status = job.ResultOK
		kept = e.keeps() && !res.AtBoundary && !sess.Aborted()
	}
	res.Held = sess.Held()
	for _, h := range res.Held {
		if h.Caused {
			res.Blocked = append(res.Blocked, h.Method+" "+h.Origin+h.Path)
		}
	}
	res.Unsupported = sess.Unsupported()
	res.Timing.Total = time.Since(start).Milliseconds()
	return res, kept, nil
}

// observe observes the branch's last step into res; first is the first
// step the branch executed itself (1 for a cold branch, which replayed
// its prefix).
func (e *Executor) observe(ctx context.Context, sess *browser.Session, j *job.Job, res *job.Result, first int) error {
	spec := j.Spec
	preds := append(append([]scoring.Predicate{}, spec.Predicates...), spec.Boundary)
	snap, err := sess.Observe(ctx, browser.ObserveSpec{
		Probes:     scoring.Probes(preds...),
		Text:       len(spec.DeadEnds) > 0,
		Screenshot: spec.Screenshots && spec.ScreenshotsAll,
		Store:      true,
	})
	if err != nil {
		return err
	}
	for _, n := range sess.NetSince(0) {
		if n.Status > 0 {
			res.Requests = append(res.Requests, scoring.RequestFact{Method: n.Method, URL: n.URL, Status: n.Status})
		}
	}
	facts := scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers, Requests: res.Requests}
	obs := snap.Obs
	obs.Predicates = map[string]bool{}
	for i := range spec.Predicates {
		p := &spec.Predicates[i]
		ok, err := p.Eval(facts)
		obs.Predicates[p.Name] = ok
		if err != nil {
			if obs.PredicateErrors == nil {
				obs.PredicateErrors = map[string]string{}
			}
			obs.PredicateErrors[p.Name] = err.Error()
		}
	}
	res.AtBoundary, _ = spec.Boundary.Eval(facts)
	if len(j.Plan) == 1 {
		if cs, err := sess.Cookies(); err == nil {
			res.Cookies = withoutLogin(cs, sess.StartState())
		}
	}
	if res.AtBoundary && len(spec.Intent) > 0 {
		res.Intent = spec.ScrubIntent(readFields(ctx, sess, spec.Intent), snap.PII)
	}
	if len(spec.Extract) > 0 {
		if raw := readFields(ctx, sess, spec.Extract); len(raw) > 0 {
			res.Extract = spec.ScrubIntent(raw, snap.PII)
		}
	}
	for _, d := range spec.DeadEnds {
		if d.Fires(sess.URL(), snap.Obs.Title, snap.Text) {
			obs.DeadEnds = append(obs.DeadEnds, d.Name)
		}
	}
	if spec.Screenshots && !spec.ScreenshotsAll && looked(spec, res, &obs) {
		if d, err := sess.Screenshot(ctx); err == nil {
			obs.ScreenshotHash = d
		}
	}
	markHolds(obs.Affordances, spec.Inputs, spec.Scrubber(), snap.PII)
	res.Obs = &obs
	// The requests of every step this branch executed: a cold branch's
	// replayed prefix got its own answers, which its bundle serves.
	res.Net = sess.NetSince(first)
	res.PrefixNet = first < len(j.Plan)
	return nil
}

// looked reports whether a branch's last page is one a person looks at
// (the default, capture.screenshots: looked): a step that failed or was
// healed, the commit boundary, the goal met, a dead end, an HTTP error:
// where a branch ends or has to be explained. Any other step's page is
// rendered on demand by a strict replay of its branch.
func looked(spec *job.Spec, res *job.Result, obs *branch.Observation) bool {
	if res.Status == job.ResultFailed || res.AtBoundary || len(obs.DeadEnds) > 0 || obs.Status >= 400 {
		return true
	}
	if n := len(res.Steps); n > 0 && res.Steps[n-1].Status == branch.StatusHealed {
		return true
	}
	if len(spec.Success) == 0 {
		return false
	}
	for _, name := range spec.Success {
		if !obs.Predicates[name] {
			return false
		}
	}
	return true
}

// markHolds records which input each field holds, then scrubs the field
// values: the planner needs the first, nothing outside this process may
// see raw values.
func markHolds(affs []branch.Affordance, inputs map[string]task.Input, sc *scrub.Scrubber, pii []string) {
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	values := make(map[string]string, len(names))
	for _, n := range names {
		if v, err := inputs[n].Resolve(); err == nil && v != "" {
			values[n] = v
		}
	}
	for i := range affs {
		a := &affs[i]
		t := &a.Target
		t.Name, t.Text, t.AriaLabel, t.Near = sc.TextWith(t.Name, pii), sc.TextWith(t.Text, pii), sc.TextWith(t.AriaLabel, pii), sc.TextWith(t.Near, pii)
		t.Hint = sc.TextWith(t.Hint, pii)
		a.Href = sc.URL(a.Href)
		for k, r := range a.Reveals {
			a.Reveals[k] = sc.TextWith(r, pii)
		}
		if a.Value == "" {
			continue
		}
		for _, n := range names {
			if v, ok := values[n]; ok && a.Value == v {
				a.Holds = n
				break
			}
		}
		a.Value = sc.TextWith(a.Value, pii)
		if scrub.SensitiveKey(a.Target.Field) && a.Value != "" {
			a.Value = sc.Token(a.Value)
		}
	}
}

// loginState returns the session state of the job's run at its login
// version, asking the run once per version.
func (e *Executor) loginState(ctx context.Context, j *job.Job) (*task.StorageState, error) {
	key := fmt.Sprintf("%s/%d", j.RunID, j.Spec.Login)
	e.loginMu.Lock()
	defer e.loginMu.Unlock()
	if st, ok := e.logins[key]; ok {
		return st, nil
	}
	if e.opts.LoginState == nil {
		return nil, errors.New("worker: the run logged in, and this worker cannot ask it for its session")
	}
	b, err := e.opts.LoginState(ctx, j.RunID)
	if err != nil {
		return nil, fmt.Errorf("worker: the run's session: %w", err)
	}
	var st task.StorageState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("worker: the run's session: %w", err)
	}
	if e.logins == nil {
		e.logins = map[string]*task.StorageState{}
	}
	e.logins[key] = &st
	return &st, nil
}

// withoutLogin drops the cookies of the state the session started from
// (the storage state's, or the scripted login's), by name, so a session
// the site renewed is dropped too: every branch and the committer start
// from that state itself, and its tokens must not travel in results,
// which the bus keeps on disk.
func withoutLogin(cs []branch.Cookie, start *task.StorageState) []branch.Cookie {
	if start == nil || len(start.Cookies) == 0 {
		return cs
	}
	login := map[string]bool{}
	for _, c := range start.Cookies {
		login[c.Name] = true
	}
	out := cs[:0:0]
	for _, c := range cs {
		if !login[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// readFields reads each field as the page holds it now (ReadLive: a
// field's current value, a select's chosen option), as the committer
// reads the intent at preflight; one the page lacks is left out.
func readFields(ctx context.Context, sess *browser.Session, fields []task.IntentField) map[string]string {
	raw := map[string]string{}
	for _, f := range fields {
		if v, ok, err := sess.ReadLive(ctx, f.Selector, f.Attr); err == nil && ok {
			raw[f.Name] = v
		}
	}
	return raw
}
