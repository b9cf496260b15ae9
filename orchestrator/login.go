package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// ErrLoginFailed: the task's scripted login (auth.login) did not log in:
// an action failed, or the page still says "log in" (auth.login_page)
// after it. Nothing was explored.
var ErrLoginFailed = errors.New("orchestrator: the login failed")

// ErrAuthRequired: no branch reached the goal and branches landed on the
// login page (auth.login_page): the session is missing or expired.
var ErrAuthRequired = errors.New("orchestrator: branches were logged out")

// logIn runs the task's scripted login once, in a context seeded with the
// storage state when the task has one, and keeps the session it leaves
// for every branch (served to workers over the bus, never stored in a
// stream) and for the committer. It returns a function that stops
// serving the state.
func (r *run) logIn(ctx context.Context, rt *browser.Runtime, client *bus.Client) (func(), error) {
	st, err := r.doLogin(ctx, rt)
	if err != nil {
		return nil, err
	}
	if err := r.setLogin(st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoginFailed, err)
	}
	stop, err := client.ServeState(r.runID, r.login.served)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoginFailed, err)
	}
	return stop, nil
}

// doLogin runs the login actions in a fresh context. The login is its own
// transaction in the event log: login_start, one login_step per action
// (the action as described, never a typed value), login_end.
func (r *run) doLogin(ctx context.Context, rt *browser.Runtime) (*task.StorageState, error) {
	t := r.t
	so, err := browser.SessionOptionsFor(r.spec, r.trail.store(r.store))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoginFailed, err)
	}
	so.SendWrites = true // the scripted login runs outside speculation: it posts its form
	start := time.Now()
	r.rec.add(time.Time{}, 0, eventlog.KindLoginStart, "", map[string]any{"steps": len(t.Auth.Login), "version": r.spec.Login + 1})
	fail := func(why string) (*task.StorageState, error) {
		why = r.sc.Text(why) // a browser error may quote what the page showed
		r.rec.add(time.Time{}, 0, eventlog.KindLoginEnd, "", map[string]any{"status": "failed", "error": why, "duration_ms": time.Since(start).Milliseconds()})
		r.rec.flush(ctx)
		return nil, fmt.Errorf("%w: %s", ErrLoginFailed, why)
	}
	sess, err := rt.NewSession(ctx, so)
	if err != nil {
		return fail(err.Error())
	}
	defer sess.Close()
	resolve := r.spec.ResolveInput
	for i, a := range t.LoginActions() {
		sr, err := sess.Do(ctx, a, resolve)
		if err != nil {
			return fail(fmt.Sprintf("step %d (%s): %v", i+1, a.Describe(), err))
		}
		r.rec.add(time.Time{}, 0, eventlog.KindLoginStep, "", map[string]any{"step": i + 1, "action": a.Describe(), "status": sr.Status,
			"code": sr.Code, "error": sr.Error, "url": r.sc.URL(sess.URL())})
		if sr.Status == branch.StatusFailed {
			return fail(fmt.Sprintf("step %d (%s) failed: %s", i+1, a.Describe(), sr.Error))
		}
	}
	if p := t.Auth.LoginPage; p != nil {
		snap, err := sess.Observe(ctx, browser.ObserveSpec{Probes: scoring.Probes(*p)})
		if err != nil {
			return fail("observing the page after the login: " + err.Error())
		}
		if on, _ := p.Eval(scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers}); on {
			return fail(fmt.Sprintf("the page is still the login page (auth.login_page) at %s: check the credentials", r.sc.URL(sess.URL())))
		}
	}
	st, err := sess.State()
	if err != nil {
		return fail(err.Error())
	}
	r.rec.add(time.Time{}, 0, eventlog.KindLoginEnd, "", map[string]any{"status": "ok", "cookies": len(st.Cookies), "origins": len(st.Origins),
		"duration_ms": time.Since(start).Milliseconds()})
	r.rec.flush(ctx)
	return st, nil
}

// setLogin makes st the run's session: the next login version, served to
// workers from now on and used by the committer.
func (r *run) setLogin(st *task.StorageState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	r.login.set(st, data)
	r.spec.Login++
	r.recordStartState(context.Background(), st, r.spec.Login)
	return nil
}

// recordStartState records the state branches start from (start_state),
// scrubbed, so a strict replay starts its page from it: a page script
// that reads its cookies or the modules it cached in local storage asks
// at replay for what it asked for at capture. A state that cannot be
// stored is recorded as an error: the run goes on, its replays then
// start from an empty state.
func (r *run) recordStartState(ctx context.Context, st *task.StorageState, version int) {
	if st == nil || len(st.Cookies)+len(st.Origins) == 0 {
		return
	}
	sc := r.spec.ScrubberWith(st.Secrets())
	data, err := json.Marshal(st.Scrubbed(sc))
	var d artifacts.Digest
	if err == nil {
		d, err = r.store.Put(ctx, data)
	}
	if err != nil {
		r.rec.add(time.Time{}, 0, eventlog.KindError, "", map[string]any{"where": "start_state", "error": err.Error()})
		return
	}
	r.rec.add(time.Time{}, 0, eventlog.KindStartState, "", payload.StartState{Version: version, State: string(d),
		Cookies: len(st.Cookies), Origins: len(st.Origins)})
}

// loginState is the run's session: the state the task's scripted login
// left (nil without auth.login), as served to workers, and how often the
// run logged in again. Safe for concurrent use: workers fetch it while
// the run's goroutine logs in again.
type loginState struct {
	mu    sync.Mutex
	state *task.StorageState
	data  []byte
	// relogins counts the times the run logged in again (run goroutine
	// only).
	relogins int
}

func (l *loginState) set(st *task.StorageState, data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.state, l.data = st, data
}

// current is the session the committer starts from.
func (l *loginState) current() *task.StorageState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// served is the session state workers are served.
func (l *loginState) served() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.data
}

// maxRelogins is how many times a run logs in again when its session
// expires.
const maxRelogins = 1

// again runs a branch once more when it landed on the login page
// (auth.login_page) while the task can log in by itself: a branch that ran
// with the current session means the session expired, so the run logs in
// again (once); a branch that ran with an older session just runs again
// with the new one. It reports whether the branch's job was published
// again; its result then replaces this one.
func (r *run) again(ctx context.Context, client *bus.Client, res *job.Result, attempt int, j *job.Job, ranWith map[string]int) bool {
	if len(r.t.Auth.Login) == 0 || r.rt == nil || j == nil || res.Obs == nil || !res.Obs.Predicates[task.LoginPagePredicate] || r.reruns[j.BranchID] > 0 {
		return false
	}
	if ranWith[j.BranchID] == r.spec.Login {
		if r.login.relogins >= maxRelogins {
			return false
		}
		r.login.relogins++
		st, err := r.doLogin(ctx, r.rt)
		if err != nil {
			return false
		}
		if err := r.setLogin(st); err != nil {
			return false
		}
	}
	data, err := j.Encode()
	if err != nil {
		return false
	}
	hdr := nats.Header{}
	hdr.Set(bus.HeaderAttemptBase, strconv.Itoa(attempt))
	r.reruns[j.BranchID]++
	pctx, cancel := context.WithTimeout(ctx, republishTimeout)
	defer cancel()
	if err := client.PublishAgain(pctx, r.runID, j.BranchID, r.reruns[j.BranchID], data, hdr); err != nil {
		r.rec.add(time.Time{}, 0, eventlog.KindError, j.BranchID, map[string]any{"where": "again", "error": err.Error()})
		return false
	}
	ranWith[j.BranchID] = r.spec.Login
	r.rec.add(time.Time{}, 0, eventlog.KindBranchAgain, j.BranchID, map[string]any{"reason": "landed on the login page (auth.login_page)",
		"login_version": r.spec.Login, "attempt": attempt})
	return true
}

// loggedOut is the error of a search with no winner whose branches
// landed on the login page.
func loggedOut(t *task.Task, n int) error {
	fix := "refresh auth.storage_state"
	if len(t.Auth.Login) > 0 {
		fix = "check auth.login and its inputs"
	}
	if t.Auth.StorageState == nil && len(t.Auth.Login) == 0 {
		fix = "give the task a session: auth.storage_state or auth.login"
	}
	return fmt.Errorf("%w: %d branches landed on the login page (auth.login_page): the session is missing or expired; %s", ErrAuthRequired, n, fix)
}
