package commit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	pl "github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/failpoint"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Errors callers branch on.
var (
	// ErrNoCandidate: no candidate held its boundary and preconditions at
	// commit time; nothing was sent.
	ErrNoCandidate = errors.New("commit: no candidate holds at commit time")
	// ErrSubmitFailed: the commit action ran but the site did not confirm.
	ErrSubmitFailed = errors.New("commit: the site did not confirm the commit")
	// ErrBusy: another committer holds the ledger's single-writer lock.
	ErrBusy = errors.New("commit: another committer holds the ledger")
	// ErrUncertain: the commit action may have reached the site, but
	// neither its confirmation nor a refusal was seen and the confirm probe
	// did not find the commit. The ledger row stays intent; the probe at
	// the next start (or the next commit of the same intent) resolves it,
	// and only a probe that finds nothing lets the key be sent again.
	ErrUncertain = errors.New("commit: the outcome of the commit is unknown; its intent stays pending")
	// ErrRefused: the site refused the commit, by its answer to the
	// commit request (a 4xx other than a conflict) or by its page
	// (commit.confirm.refused). The row is failed with what the site
	// said, and the key is never sent again: a later commit of the same
	// intent reports the refusal and sends nothing; a new commit.nonce
	// makes a new key.
	ErrRefused = errors.New("commit: the site refused the commit")
	// ErrIntentMismatch: the ledger holds the key with another intent
	// than the one being committed (an *IntentMismatchError); nothing
	// was sent.
	ErrIntentMismatch = errors.New("commit: the ledger holds the key with another intent")
	// ErrProbeUnanswered: the confirm probe could not tell whether the
	// site holds a commit (no answer, a status other than 200, a body
	// that is not JSON).
	ErrProbeUnanswered = errors.New("the confirm probe did not answer")
	// ErrAuditTrail: the run's audit trail (its event log, scrubbing key
	// or artifact store) failed, so the committer refused to perform the
	// side effect; nothing was sent.
	ErrAuditTrail = errors.New("commit: refused: the audit trail is broken")
	// ErrPostcheckFailed: the commit was confirmed, then a post-check
	// (commit.postcheck) failed on the order the site recorded; the
	// committer ran the undo (commit.compensate). The error also wraps
	// ErrCompensationFailed when the site did not confirm the undo.
	ErrPostcheckFailed = errors.New("commit: the committed order fails its post-checks")
)

// Recorder receives the committer's events (commit_start, ledger,
// commit_end, error) for the event log.
type Recorder interface {
	Record(ctx context.Context, kind, branchID string, payload any, artifacts ...string)
}

// Candidate is a branch the committer may commit.
type Candidate struct {
	BranchID   string
	PlanDigest string
	Plan       branch.Plan
	// Intent is the business intent the branch saw at the boundary during
	// exploration (the recorded snapshot preflight compares against).
	Intent map[string]string
	// Cookies are the branch's cookies at the boundary: preflight starts
	// from them, so the site puts the committer in the same state (the
	// same A/B variant) the branch explored.
	Cookies []branch.Cookie
}

// Committer performs commits for one run. It is the only code that may
// send the requests the task guards.
type Committer struct {
	Task    *task.Task
	RunID   string
	Spec    *job.Spec
	Ledger  *ledger.Ledger
	Store   *artifacts.FS
	Runtime *browser.Runtime
	Events  Recorder
	// HTTPClient asks the site's confirm probe; nil is http.DefaultClient.
	// It carries what the browser was told about the site (host resolver
	// rules, an internal certificate authority), so the probe reaches the
	// site the commit went to.
	HTTPClient *http.Client
	// EvidenceKey seals evidence that cannot be scrubbed (the invoice)
	// before it is stored; without it such evidence is not kept.
	EvidenceKey *evidence.Key
	// Anchor, when set, gives the event log's head that each finalized
	// ledger row records (see Anchorer).
	Anchor Anchorer
	// Trail, when set, reports whether the run's audit trail still holds;
	// the committer performs no side effect after it reports an error.
	Trail Trail
	// Login, when set, is the session state of the run's scripted login:
	// the committer starts from it, as the branches did.
	Login *task.StorageState
	// DryRun runs preflight only: the winner re-materialized, the
	// boundary, the intent and the preconditions checked, the key
	// computed; then it stops, before the ledger and before any guarded
	// request (Result.DryRun). A rerun uses it: it shows whether the
	// commit would have gone ahead, and can never perform it.
	DryRun bool
	// KnownVolatile, when not nil, are the commit form's fields known to
	// change on every load of the boundary page (what a recorded run
	// found): the committer does not load the page again to find them.
	KnownVolatile []string
	// Network, when set, answers every request of the committer's
	// session instead of the network (a rerun's recorded world): it
	// returns a proxy's address for the candidate's session and a
	// release func.
	Network func(ctx context.Context, branchID string, plan branch.Plan) (proxy string, release func(), err error)
}

// Result is the outcome of Commit.
type Result struct {
	Entry ledger.Entry
	// Existing is set when the ledger already held a committed row for the
	// key: nothing was sent to the site.
	Existing bool
	// Recovered is set when an intent without a seen outcome (left by an
	// earlier crash, or by this attempt when the site's answer could not
	// be read) was resolved by probing the site.
	Recovered bool
	Candidate Candidate
	// Skipped lists candidates that did not hold, with the reason.
	Skipped []string
	// Changes lists what differed between exploration and preflight, per
	// candidate ("total: 178.50 -> 357.00").
	Changes []string
	// DryRun is set when preflight held and a dry run stopped there:
	// Key is the idempotency key the commit would have used.
	DryRun bool
	Key    string
	// Postcheck names the post-checks that failed after the commit's
	// confirmation (the commit was wrong); Compensated is set when the
	// undo then confirmed.
	Postcheck   []string
	Compensated bool
}

// Commit tries the candidates in order and commits the first that holds.
// A candidate that fails preflight, or whose commit the site refuses as a
// conflict (the version changed since preflight), is skipped for the next.
// A dry run (DryRun) stops at the first candidate whose preflight holds,
// without the ledger's lock: it writes no row.
func (c *Committer) Commit(ctx context.Context, cands []Candidate) (*Result, error) {
	if !c.DryRun {
		unlock, err := c.lock(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	var skipped, changes []string
	for _, cand := range cands {
		res, err := c.commitOne(ctx, cand)
		if res != nil {
			changes = append(changes, res.Changes...)
		}
		if err == nil {
			res.Skipped, res.Changes = skipped, changes
			return res, nil
		}
		var pf *preflightError
		if !errors.As(err, &pf) {
			if res == nil {
				res = &Result{Candidate: cand}
			}
			res.Skipped, res.Changes = skipped, changes
			return res, err
		}
		skipped = append(skipped, cand.BranchID+": "+pf.Error())
		skip := map[string]any{"reason": pf.Error()}
		if c.DryRun {
			skip["dry_run"] = true
		}
		c.Events.Record(ctx, eventlog.KindCommitSkip, cand.BranchID, skip)
	}
	return &Result{Skipped: skipped, Changes: changes}, fmt.Errorf("%w: %s", ErrNoCandidate, strings.Join(skipped, "; "))
}

// lock takes the ledger's single-writer lock: ErrBusy when another
// committer holds it.
func (c *Committer) lock(ctx context.Context) (unlock func() error, err error) {
	unlock, err = c.Ledger.Lock(ctx)
	if errors.Is(err, ledger.ErrLocked) {
		return nil, fmt.Errorf("%w: %v", ErrBusy, err)
	}
	if err != nil {
		return nil, fmt.Errorf("commit: locking the ledger: %w", err)
	}
	return unlock, nil
}

// IntentMismatchError reports that the ledger holds the key with another
// intent than the one being committed: the key no longer stands for what
// it was made of (an edited row, or a ledger written by a build that made
// keys another way). Nothing was sent. Recorded and Given are the two
// payloads, scrubbed. It matches ErrIntentMismatch.
type IntentMismatchError struct {
	Key      string
	Recorded string
	Given    string
}

// Error names the key and both intents.
func (e *IntentMismatchError) Error() string {
	return fmt.Sprintf("commit: the ledger holds key %s with the intent %s, but this commit's intent is %s; nothing was sent (check the row with `orchestrator ledger show`)",
		e.Key, e.Recorded, e.Given)
}

// Is reports whether target is ErrIntentMismatch.
func (e *IntentMismatchError) Is(target error) bool { return target == ErrIntentMismatch }

// preflightError means the candidate did not hold; the next may.
type preflightError struct{ msg string }

func (e *preflightError) Error() string { return e.msg }

func (c *Committer) commitOne(ctx context.Context, cand Candidate) (*Result, error) {
	t := c.Task
	kept := &keptStore{}
	if c.Store != nil {
		kept.store = c.Store
	}
	so, err := browser.SessionOptionsFor(c.Spec, kept)
	if err != nil {
		return nil, err
	}
	// The re-run of the plan is speculation like any branch: the session
	// holds every state-changing request until submit releases it for the
	// commit action alone.
	if c.Login != nil {
		so.State, so.Scrub = c.Login, c.Spec.ScrubberWith(c.Login.Secrets())
	}
	if c.Network != nil {
		addr, release, err := c.Network(ctx, cand.BranchID, cand.Plan)
		if err != nil {
			return nil, err
		}
		defer release()
		so.Proxy, so.Env.IgnoreHTTPSErrors = addr, true
	}
	sess, err := c.Runtime.NewSession(ctx, so)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	if err := sess.AddCookies(cand.Cookies); err != nil {
		return nil, err
	}
	c.Events.Record(ctx, eventlog.KindCommitStart, cand.BranchID, map[string]any{"plan_digest": cand.PlanDigest, "steps": len(cand.Plan), "phase": "preflight", "cookies": len(cand.Cookies)})
	resolve := c.Spec.ResolveInput
	for i, a := range cand.Plan {
		r, err := sess.Do(ctx, a, resolve)
		if err != nil {
			return nil, err
		}
		if r.Status == branch.StatusFailed {
			return nil, &preflightError{fmt.Sprintf("re-materializing step %d (%s) failed: %s", i+1, a.Describe(), r.Error)}
		}
	}
	checks := append([]scoring.Predicate{t.Commit.Boundary}, t.Commit.Preconditions...)
	snap, err := sess.Observe(ctx, browser.ObserveSpec{Probes: scoring.Probes(checks...), Store: true})
	if err != nil {
		return nil, &preflightError{"observing the boundary: " + err.Error()}
	}
	facts := scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers}
	if ok, _ := t.Commit.Boundary.Eval(facts); !ok {
		return nil, &preflightError{"the commit boundary no longer holds at " + snap.Obs.URL}
	}
	fields, payload, form, err := c.intent(ctx, sess)
	if err != nil {
		return nil, &preflightError{err.Error()}
	}
	res := &Result{Candidate: cand, Changes: diffIntent(cand.Intent, c.Spec.ScrubIntent(fields, snap.PII), c.Spec)}
	if len(res.Changes) > 0 {
		c.Events.Record(ctx, eventlog.KindSnapshotChanged, cand.BranchID, map[string]any{"changes": res.Changes})
	}
	var failed []string
	for i := range t.Commit.Preconditions {
		p := &t.Commit.Preconditions[i]
		if ok, err := p.Eval(facts); !ok {
			msg := p.Name
			if err != nil {
				msg += " (" + err.Error() + ")"
			}
			failed = append(failed, msg)
		}
	}
	if len(failed) > 0 {
		c.Events.Record(ctx, eventlog.KindPreconditionFailed, cand.BranchID, map[string]any{"failed": failed, "changes": res.Changes})
		msg := "preconditions failed: " + strings.Join(failed, ", ")
		if len(res.Changes) > 0 {
			msg += " (changed since exploration: " + strings.Join(res.Changes, ", ") + ")"
		}
		return res, &preflightError{msg}
	}
	key, err := ledger.IdempotencyKey(t.Commit.Site, t.Commit.Flow, payload)
	if err != nil {
		return res, fmt.Errorf("commit: idempotency key: %w", err)
	}
	if c.DryRun {
		res.DryRun, res.Key = true, key
		c.Events.Record(ctx, eventlog.KindCommitEnd, cand.BranchID, pl.CommitEnd{DryRun: true, Key: key, Changes: res.Changes})
		return res, nil
	}
	version := ""
	if cas := t.Commit.CAS; cas != nil {
		v, ok, err := sess.ReadLive(ctx, cas.Selector, cas.Attr)
		if err != nil || !ok {
			return res, &preflightError{"the version (commit.cas) is missing at " + cas.Selector}
		}
		version = v
	}
	if err := c.trailErr(kept); err != nil {
		c.Events.Record(ctx, eventlog.KindCommitRefused, cand.BranchID, map[string]any{"reason": err.Error()})
		return res, err
	}
	failpoint.Hit(failpoint.BeforeIntent)
	entry, created, err := c.Ledger.Intent(ctx, ledger.Intent{Key: key, RunID: c.RunID, BranchID: cand.BranchID,
		PlanDigest: cand.PlanDigest, Site: t.Commit.Site, Flow: t.Commit.Flow, Payload: payload})
	if pm := (*ledger.PayloadMismatchError)(nil); errors.As(err, &pm) {
		sc := c.Spec.Scrubber()
		return res, &IntentMismatchError{Key: key, Recorded: sc.Text(string(pm.Recorded)), Given: sc.Text(string(pm.Given))}
	}
	if err != nil {
		return res, fmt.Errorf("commit: recording the intent: %w", err)
	}
	failpoint.Hit(failpoint.AfterIntent)
	if !created {
		switch entry.State {
		case ledger.StateCommitted, ledger.StateCompensating, ledger.StateCompensated, ledger.StateCompensationFailed:
			// The side effect happened (and may have been undone since):
			// the same intent is never sent again under its key.
			c.Events.Record(ctx, eventlog.KindLedger, cand.BranchID, pl.Ledger{Key: key, State: string(entry.State), Existing: true, OrderID: entry.OrderID, EntryID: entry.ID})
			res.Entry, res.Existing = entry, true
			return res, nil
		case ledger.StateIntent:
			// A crash left this intent: the site may or may not hold the
			// order. Ask it before sending anything.
			if e, ok, err := c.recoverFor(ctx, entry, cand.BranchID); err != nil {
				return res, err
			} else if ok {
				res.Entry, res.Recovered = e, true
				return res, nil
			}
			c.Events.Record(ctx, eventlog.KindLedger, cand.BranchID, pl.Ledger{Key: key, State: string(entry.State), EntryID: entry.ID, Retry: true, Attempts: entry.Attempts})
		default:
			if msg, ok := refusedEarlier(entry); ok {
				// The site refused this very intent: sending it again
				// would ask the same question. Nothing is sent.
				c.Events.Record(ctx, eventlog.KindLedger, cand.BranchID, pl.Ledger{Key: key, State: string(entry.State), EntryID: entry.ID, RefusedEarlier: true})
				res.Entry = entry
				return res, fmt.Errorf("%w: refused earlier: %s; nothing was sent; key %s is never sent again: to try again, change commit.nonce (a new key)", ErrRefused, msg, key)
			}
			// Nothing the site said stands against a retry (it never got
			// the request, or answered a conflict): reopen the row.
			if entry, err = c.Ledger.Reopen(ctx, key, c.RunID); err != nil {
				return res, fmt.Errorf("commit: reopening %s: %w", key, err)
			}
			c.Events.Record(ctx, eventlog.KindLedger, cand.BranchID, pl.Ledger{Key: key, State: string(entry.State), EntryID: entry.ID, Reopened: true})
		}
	} else {
		ev := pl.Ledger{Key: key, State: string(entry.State), EntryID: entry.ID, PayloadSHA256: entry.PayloadSHA256, Version: version}
		if form != nil {
			ev.Form = form.report()
		}
		c.Events.Record(ctx, eventlog.KindLedger, cand.BranchID, ev)
	}
	return c.submit(ctx, sess, kept, cand, attempt{key: key, version: version, before: entry.Attempts}, snap, res)
}

// diffIntent lists the intent fields whose value changed between the
// exploration snapshot and preflight. Both sides come scrubbed by
// job.Spec.ScrubIntent: the lines go into events and the summary.
func diffIntent(before, after map[string]string, spec *job.Spec) []string {
	if before == nil {
		return nil
	}
	names := make([]string, 0, len(after))
	for k := range after {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		if b, ok := before[k]; ok && b != after[k] {
			out = append(out, fmt.Sprintf("%s: %s -> %s", k, b, after[k]))
		}
	}
	return out
}

// intent reads the business intent from the boundary page: the fields for
// reports, and the canonical JSON whose sha256 makes the idempotency key:
// the intent fields as the page holds them now (ReadLive: what will be
// submitted), the commit form's body unless the task turns it off
// (commit.form_body: false; see formIntent), and the task's nonce.
func (c *Committer) intent(ctx context.Context, sess *browser.Session) (map[string]string, json.RawMessage, *formIntent, error) {
	m := map[string]any{}
	fields := map[string]string{}
	for _, f := range c.Task.Commit.Intent {
		v, ok, err := sess.ReadLive(ctx, f.Selector, f.Attr)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			return nil, nil, nil, fmt.Errorf("intent field %s: no element matches %s", f.Name, f.Selector)
		}
		m[f.Name], fields[f.Name] = v, v
	}
	var form *formIntent
	if c.Task.Commit.UsesFormBody() {
		var err error
		if form, err = c.formIntent(ctx, sess); err != nil {
			return nil, nil, nil, err
		}
		if form != nil {
			m["form_body"] = form.body
		}
	}
	if c.Task.Commit.Nonce != "" {
		m["nonce"] = c.Task.Commit.Nonce
	}
	b, err := json.Marshal(m) // sorted keys
	if err != nil {
		return nil, nil, nil, err
	}
	canon, err := ledger.Canonical(b)
	return fields, canon, form, err
}

// attempt is what submit needs to know about the row it sends under.
type attempt struct {
	key, version string
	// before counts the attempts recorded for the key before this one: a
	// row that was never attempted is known to have sent nothing.
	before int
}

func (c *Committer) submit(ctx context.Context, sess *browser.Session, kept *keptStore, cand Candidate, at attempt, pre browser.Snapshot, res *Result) (*Result, error) {
	t := c.Task
	key := at.key
	arts := map[string]string{}
	if pre.Obs.DOMArtifact != "" {
		arts["pre_submit_dom"] = pre.Obs.DOMArtifact
	}
	so, _ := browser.SessionOptionsFor(c.Spec, c.Store)
	var steps []map[string]any
	if id := t.Commit.Idempotency; id.FormField != "" {
		// Writing the key is a step of its own (an eval action), so the
		// commit's record replays exactly: same steps, same clock.
		setKey := KeyAction(id.FormField, key)
		r, err := sess.Do(ctx, setKey, nil)
		if err != nil {
			return res, err
		}
		if r.Status == branch.StatusFailed {
			return c.notSent(ctx, res, at, ledger.StateFailed, arts, fmt.Errorf("commit: writing the key into %s: %s", id.FormField, r.Error))
		}
		if st, err := c.stepRecord(ctx, sess, setKey, r); err == nil {
			steps = append(steps, st)
		}
	} else if err := sess.InjectHeader(so.Guard, id.Header, key); err != nil {
		return c.notSent(ctx, res, at, ledger.StateFailed, arts, fmt.Errorf("commit: carrying the key in %s: %w", id.Header, err))
	}
	if cas := t.Commit.CAS; cas != nil && cas.Header != "" {
		if err := sess.InjectHeader(so.Guard, cas.Header, at.version); err != nil {
			return c.notSent(ctx, res, at, ledger.StateFailed, arts, fmt.Errorf("commit: carrying the version in %s: %w", cas.Header, err))
		}
	}
	// The last moment to refuse: everything recorded up to here (the
	// intent's event, the key step's snapshots) must have been kept.
	if err := c.trailErr(kept); err != nil {
		c.Events.Record(ctx, eventlog.KindCommitRefused, cand.BranchID, map[string]any{"key": key, "reason": err.Error()})
		return c.notSent(ctx, res, at, ledger.StateAborted, arts, err)
	}
	if _, err := c.Ledger.Attempt(ctx, key); err != nil {
		return res, fmt.Errorf("commit: recording the attempt: %w", err)
	}
	failpoint.Hit(failpoint.AfterAttempt)
	step := sess.Step() + 1
	sess.ReleaseWrites() // the one request that may change the site
	r, err := sess.Do(ctx, t.Commit.Action, c.Spec.ResolveInput)
	sess.HoldWrites() // the confirmation page's own requests stay held
	if err != nil {
		// The session broke during the action: the request may be out.
		return c.uncertain(ctx, res, key, arts, fmt.Errorf("the commit action: %w", err))
	}
	failpoint.Hit(failpoint.AfterSubmitBeforeFinalize)
	var out awaited
	if r.Status != branch.StatusFailed {
		out = c.awaitOutcome(ctx, sess, so.Guard, step)
		if out.snap.Obs.ScreenshotHash != "" {
			arts["confirmation_screenshot"] = out.snap.Obs.ScreenshotHash
		}
		if out.snap.Obs.DOMArtifact != "" {
			arts["confirmation_dom"] = out.snap.Obs.DOMArtifact
		}
	}
	transcript := sess.NetSince(step)
	if d, err := c.Store.Put(ctx, mustJSON(transcript)); err == nil {
		arts["submit_transcript"] = string(d)
	}
	c.Events.Record(ctx, eventlog.KindCommitAction, cand.BranchID, map[string]any{"action": t.Commit.Action.Describe(), "status": r.Status, "code": r.Code, "requests": len(transcript)})
	switch out.outcome {
	case pageSuccess:
		return c.confirmed(ctx, sess, cand, at, r, out.snap, steps, arts, res, transcript)
	case pageRefused:
		return c.pageRefused(ctx, res, at, so.Guard, transcript, out.notice, arts)
	}
	unseen := fmt.Errorf("the commit action failed: %s", r.Error)
	if r.Status != branch.StatusFailed {
		unseen = fmt.Errorf("%v%s", out.why, answered(transcript))
	}
	if n, ok := refusal(so.Guard, transcript); ok {
		return c.refused(ctx, res, key, n, "", arts)
	}
	if neverSent(r, so.Guard, transcript) {
		return c.notSent(ctx, res, at, ledger.StateFailed, arts, fmt.Errorf("%w: %v", ErrSubmitFailed, unseen))
	}
	return c.uncertain(ctx, res, key, arts, unseen)
}

// confirmed finishes a commit whose confirmation page holds: it reads the
// token, keeps the invoice and finalizes the row as committed. A token
// that cannot be read leaves the outcome uncertain: the probe decides.
func (c *Committer) confirmed(ctx context.Context, sess *browser.Session, cand Candidate, at attempt, r branch.StepResult, snap browser.Snapshot, steps []map[string]any, arts map[string]string, res *Result, transcript []branch.NetRecord) (*Result, error) {
	t, key := c.Task, at.key
	token, ok, err := sess.ReadLive(ctx, t.Commit.Confirm.Token.Selector, t.Commit.Confirm.Token.Attr)
	if err != nil || !ok || token == "" {
		why := "no element matches"
		if err != nil {
			why = err.Error()
		}
		return c.uncertain(ctx, res, key, arts, fmt.Errorf("the site confirmed, but the confirmation token %s cannot be read: %s", t.Commit.Confirm.Token.Selector, why))
	}
	steps = append(steps, map[string]any{"action": t.Commit.Action, "status": r.Status, "code": r.Code, "strategy": r.Strategy,
		"virtual_time_ms": r.VirtualTime, "url": snap.Obs.URL, "title": snap.Obs.Title, "dom_hash": snap.Obs.DOMHash,
		"ax_hash": snap.Obs.AXHash, "net_digest": snap.Obs.NetDigest, "dom_artifact": snap.Obs.DOMArtifact,
		"ax_artifact": snap.Obs.AXArtifact, "screenshot": snap.Obs.ScreenshotHash})
	conf := map[string]any{"order_id": token, "url": snap.Obs.URL, "steps": steps, "plan_digest": cand.PlanDigest}
	if n, ok := commitRequest(c.guard(), transcript); ok {
		// The request that made the commit: an audit counts the site's
		// accepting answers to it (one, or it stands for two commits).
		conf["request"] = ledger.Submission{Method: n.Method, URL: n.URL}
	}
	if at.version != "" {
		conf["version"] = at.version
	}
	if inv := t.Commit.Confirm.Invoice; inv.Link != "" || inv.Selector != "" {
		why := "the invoice could not be downloaded"
		if href, err := sess.Href(ctx, inv.Link, inv.Selector); err == nil {
			if status, body, err := sess.Fetch(ctx, href); err == nil && status == 200 {
				// The invoice carries personal data no scrubber can
				// remove from a PDF: it is stored sealed.
				if err := evidence.Put(ctx, c.Store, c.EvidenceKey, arts, "invoice", body); err == nil {
					conf["invoice_bytes"] = len(body)
				} else {
					why = "the invoice could not be kept: " + err.Error()
				}
			}
		}
		if arts["invoice"] == "" {
			c.Events.Record(ctx, eventlog.KindError, cand.BranchID, map[string]any{"where": "commit", "error": why})
		}
	}
	e, err := c.finalize(ctx, key, ledger.Outcome{State: ledger.StateCommitted, OrderID: token, Confirmation: mustJSON(conf), Artifacts: arts})
	if err != nil {
		return res, fmt.Errorf("commit: finalizing %s: %w", key, err)
	}
	failpoint.Hit(failpoint.AfterFinalize)
	c.Events.Record(ctx, eventlog.KindLedger, cand.BranchID, pl.Ledger{Key: key, State: string(e.State), OrderID: token, EntryID: e.ID}, artValues(arts)...)
	res.Entry = e
	if res.Postcheck = c.postcheck(ctx, sess, e, cand.BranchID); len(res.Postcheck) > 0 {
		return c.wrongCommit(ctx, res)
	}
	return res, nil
}

// wrongCommit undoes a commit whose post-checks failed, at once, under the
// lock the commit holds.
func (c *Committer) wrongCommit(ctx context.Context, res *Result) (*Result, error) {
	why := "commit.postcheck failed: " + strings.Join(res.Postcheck, ", ")
	comp, err := c.compensate(ctx, res.Entry, why)
	if comp != nil {
		res.Entry, res.Compensated = comp.Entry, comp.Entry.State == ledger.StateCompensated
	}
	if err != nil {
		return res, fmt.Errorf("%w: order %s: %s; %w", ErrPostcheckFailed, res.Entry.OrderID, why, err)
	}
	return res, fmt.Errorf("%w: order %s: %s; it was undone (commit.compensate): the row is compensated", ErrPostcheckFailed, res.Entry.OrderID, why)
}

// KeyAction is the eval action that writes the idempotency key into the
// commit form's field.
func KeyAction(selector, key string) branch.Action {
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el) throw new Error("no element matches " + %q); el.value = %q; el.setAttribute("value", %q); })()`,
		selector, selector, key, key)
	return branch.Action{Kind: branch.KindEval, Value: js, Label: "write the idempotency key into " + selector}
}

// stepRecord observes the page after a commit step and returns its record
// (the hashes a replay of the commit compares).
func (c *Committer) stepRecord(ctx context.Context, sess *browser.Session, a branch.Action, r branch.StepResult) (map[string]any, error) {
	snap, err := sess.Observe(ctx, browser.ObserveSpec{Store: true})
	if err != nil {
		return nil, err
	}
	o := snap.Obs
	return map[string]any{"action": a, "status": r.Status, "code": r.Code, "strategy": r.Strategy, "via": r.Via, "virtual_time_ms": r.VirtualTime,
		"url": o.URL, "title": o.Title, "dom_hash": o.DOMHash, "ax_hash": o.AXHash, "net_digest": o.NetDigest,
		"dom_artifact": o.DOMArtifact, "ax_artifact": o.AXArtifact}, nil
}

// guard is the committer's guard list (the requests only it may send).
func (c *Committer) guard() []browser.GuardPattern {
	so, _ := browser.SessionOptionsFor(c.Spec, c.Store)
	return so.Guard
}

func isGuarded(guard []browser.GuardPattern, n branch.NetRecord) bool {
	if len(guard) == 0 {
		return n.Method != "GET"
	}
	for _, g := range guard {
		if g.Method == "" || strings.EqualFold(g.Method, n.Method) {
			if g.URL != nil && g.URL.MatchString(n.URL) {
				return true
			}
		}
	}
	return false
}

// Recover resolves an intent left without an outcome by asking the site
// (the task's confirm probe) whether it holds a commit with the key. It
// finalizes the row as committed when it does and reports ok. When the
// site answers that it holds none (or the task has no probe), the row is
// left for a retry with the same key. When the probe cannot answer (the
// site is down, a 5xx, a body that is not JSON) nobody can tell whether
// the earlier attempt landed: the row stays intent and the error wraps
// ErrUncertain, so nothing is sent again until a probe answers.
func (c *Committer) Recover(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	return c.recoverFor(ctx, e, "")
}

// recoverFor is Recover on behalf of the candidate branchID ("" at a
// run's start): the row's confirmation names the run and branch that
// found the commit, so that run's commit bundle finds the row.
func (c *Committer) recoverFor(ctx context.Context, e ledger.Entry, branchID string) (ledger.Entry, bool, error) {
	id, ok, err := Probe(ctx, c.HTTPClient, c.Task, e.Key)
	if err != nil {
		c.Events.Record(ctx, eventlog.KindLedger, e.BranchID, pl.Ledger{Key: e.Key, State: string(ledger.StateIntent), Pending: true, Error: err.Error()})
		return e, false, fmt.Errorf("%w: an earlier attempt under key %s may have landed and %v; nothing was sent, the next start probes again", ErrUncertain, e.Key, err)
	}
	if !ok {
		return e, false, nil
	}
	f, err := c.finalize(ctx, e.Key, ledger.Outcome{State: ledger.StateCommitted, OrderID: id,
		Confirmation: mustJSON(map[string]any{"order_id": id, "source": "probe", "recovered_by": c.RunID, "recovered_branch": branchID})})
	if err != nil {
		return e, false, fmt.Errorf("commit: finalizing a recovered intent: %w", err)
	}
	c.Events.Record(ctx, eventlog.KindLedger, e.BranchID, pl.Ledger{Key: e.Key, State: string(f.State), Recovered: true, OrderID: id, EntryID: f.ID})
	return f, true, nil
}

// Probe asks the site (the task's confirm probe, a GET relative to the
// start URL with {key} substituted) for the token of a commit made with
// key, through client (nil: http.DefaultClient). It returns the token and
// true when the site holds the commit; "", false, nil when the site
// answered (200 with a JSON body) that it holds none, or when the task has
// no probe; an error wrapping ErrProbeUnanswered when the probe could not
// tell (no answer, another status, a body that is not JSON).
func Probe(ctx context.Context, client *http.Client, t *task.Task, key string) (string, bool, error) {
	if t.Commit == nil || t.Commit.Confirm.Probe.URL == "" {
		return "", false, nil
	}
	p := t.Commit.Confirm.Probe
	u, err := url.Parse(strings.ReplaceAll(p.URL, "{key}", url.QueryEscape(key)))
	if err != nil {
		return "", false, fmt.Errorf("%w: %v", ErrProbeUnanswered, err)
	}
	base, err := url.Parse(t.StartURL)
	if err != nil {
		return "", false, fmt.Errorf("%w: %v", ErrProbeUnanswered, err)
	}
	target := base.ResolveReference(u)
	body, status, err := httpGet(ctx, client, target.String())
	switch {
	case err != nil:
		return "", false, fmt.Errorf("%w: GET %s: %v", ErrProbeUnanswered, target.Path, err)
	case status != http.StatusOK:
		return "", false, fmt.Errorf("%w: GET %s answered %d", ErrProbeUnanswered, target.Path, status)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "", false, fmt.Errorf("%w: GET %s: the body is not JSON: %v", ErrProbeUnanswered, target.Path, err)
	}
	s, ok := jsonPath(v, p.JSON).(string)
	return s, ok && s != "", nil
}

// jsonPath follows a dotted path (object keys, array indexes) into v; nil
// when the path leads nowhere.
func jsonPath(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

func artValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
