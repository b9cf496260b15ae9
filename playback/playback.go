// Package playback plays a flow (package flow) against a live site in one
// fresh, frozen browser session: each action through the same executor
// exploration uses, targets resolved through the healing cascade
// (data-testid, aria-label, role and name, id, field, text, css path,
// then the recorded box scaled to the viewport, a fallback match
// confirmed by its neighbourhood text or box), with per-action results,
// screenshots of failed and healed steps, on_error and timing modes, and
// values a flow does not hold (redacted, task inputs) supplied by the
// caller or skipped, never typed as a placeholder.
//
// Playback never sends a request the flow guards: the session refuses
// them, and they are listed in the report.
package playback

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/flow"
)

// Session is what playback needs of a browser session (a Heal session of
// package browser).
type Session interface {
	Do(ctx context.Context, a branch.Action, inputs browser.Resolver) (branch.StepResult, error)
	// URL is the page's URL as it is, PageURL the same scrubbed: the
	// first is compared, the second reported.
	URL() string
	PageURL() string
	HealShot() []byte
	OutlinedScreenshot(ctx context.Context, box *branch.Box) ([]byte, error)
	Blocked() []string
}

// Shots stores a screenshot under a name and returns where it is.
type Shots interface {
	Save(name string, png []byte) (string, error)
}

// DirShots stores screenshots in a directory, made on first use.
type DirShots string

// Save writes png as name in the directory and returns its path.
func (d DirShots) Save(name string, png []byte) (string, error) {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(string(d), name)
	return p, os.WriteFile(p, png, 0o644)
}

// OnError says what playback does after a failed action.
type OnError string

// The on_error modes.
const (
	// Continue plays every action whatever failed (the default).
	Continue OnError = "continue"
	// SkipDependent skips type, select and check actions after a click or
	// navigate failed, until a click or navigate succeeds: they would act
	// on the wrong page.
	SkipDependent OnError = "skip_dependent"
	// Stop halts at the first failure.
	Stop OnError = "stop"
)

// Timing says how long playback waits between actions.
type Timing string

// The timing modes.
const (
	// Fast plays each action as soon as the previous one settled (the
	// default).
	Fast Timing = "fast"
	// Recorded waits the recorded delay between actions (AtMS
	// differences), at most MaxDelay, a negative one as zero.
	Recorded Timing = "recorded"
)

// MaxDelay caps one recorded delay.
const MaxDelay = 30 * time.Second

// viewportTolerance is the relative difference of viewport sizes above
// which the report warns that coordinates may be off.
const viewportTolerance = 0.2

// Result codes playback adds to the executor's.
const (
	CodeURLMismatch       branch.Code = "url_mismatch"
	CodeSkippedDependency branch.Code = "skipped_dependency"
	// CauseAuthRedirect is the likely cause of a target not found after
	// a navigation landed elsewhere than recorded.
	CauseAuthRedirect = "auth_redirect"
)

// StatusSkipped is the status of an action playback did not run.
const StatusSkipped = "skipped"

// Options configure Play. The zero value plays fast, continuing after
// failures, with no values supplied.
type Options struct {
	OnError OnError
	Timing  Timing
	// Values supplies what the flow does not hold, by 1-based action
	// index ("3") or task input name ("email"); the index wins.
	Values map[string]string
	// Width and Height are the session's viewport when it differs from
	// the flow's: recorded boxes are scaled by the ratio.
	Width, Height int
	// StartURL moves every URL on the flow's origin to its origin.
	StartURL string
	// Wait waits between actions in Recorded timing (default: sleeps
	// while ctx lasts).
	Wait func(ctx context.Context, d time.Duration) error
	// Shots stores screenshots of failed and healed steps (none when nil).
	Shots Shots
	// Progress, when set, sees each result as it is made.
	Progress func(Result)
	// Secrets are more values the session scrubs wherever they show
	// (the credentials of the login the playback starts from).
	Secrets []string
}

// Result is what one action did.
type Result struct {
	Index  int    `json:"index"`
	Action string `json:"action"`
	Label  string `json:"label"`
	Status string `json:"status"` // ok, healed, failed, skipped
	// WaitedMS is the recorded delay waited before the action.
	WaitedMS       int64       `json:"waited_ms,omitempty"`
	DurationMS     int64       `json:"duration_ms"`
	Error          string      `json:"error,omitempty"`
	ErrorCode      branch.Code `json:"error_code,omitempty"`
	LikelyCause    string      `json:"likely_cause,omitempty"`
	SelectorUsed   string      `json:"selector_used,omitempty"`
	HealedSelector string      `json:"healed_selector,omitempty"`
	PageURL        string      `json:"page_url,omitempty"`
	Screenshot     string      `json:"screenshot_path,omitempty"`
}

// Report is the outcome of a playback.
type Report struct {
	Flow string `json:"flow"`
	// Status is "completed" when every action was tried, "failed" when
	// on_error stop halted it.
	Status   string `json:"status"`
	Total    int    `json:"actions_total"`
	Executed int    `json:"actions_executed"` // ok and healed
	Failed   int    `json:"actions_failed"`
	Healed   int    `json:"actions_healed"`
	Skipped  int    `json:"actions_skipped"`
	// NotRun counts the actions after a stop.
	NotRun      int      `json:"actions_not_run,omitempty"`
	DurationMS  int64    `json:"duration_ms"`
	Screenshots []string `json:"screenshots,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	// Blocked lists the guarded requests playback refused to send.
	Blocked []string `json:"blocked,omitempty"`
	Results []Result `json:"results"`
}

// OK reports whether every action ran and none failed.
func (r *Report) OK() bool {
	return r.Status == "completed" && r.Failed == 0 && r.Skipped == 0
}

// Play plays f in sess. The error is for a session that can no longer be
// used (or ctx ending); the report then holds the actions played so far.
func Play(ctx context.Context, sess Session, f *flow.Flow, opts Options) (*Report, error) {
	p := &player{sess: sess, f: f, opts: opts, rep: &Report{Flow: f.Name, Status: "completed", Total: len(f.Actions)}}
	if p.opts.Wait == nil {
		p.opts.Wait = sleep
	}
	start := time.Now()
	p.checkViewport()
	var err error
	for i := range f.Actions {
		var stop bool
		if stop, err = p.step(ctx, i); err != nil || stop {
			if stop {
				p.rep.Status = "failed"
				p.rep.NotRun = len(f.Actions) - i - 1
			}
			break
		}
	}
	p.rep.Blocked = sess.Blocked()
	if len(p.rep.Blocked) > 0 {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("guarded: %d request(s) the flow guards were refused (see blocked)", len(p.rep.Blocked)))
	}
	p.rep.DurationMS = time.Since(start).Milliseconds()
	return p.rep, err
}

type player struct {
	sess Session
	f    *flow.Flow
	opts Options
	rep  *Report
	// blocked: a click or navigate failed and no click or navigate
	// succeeded since (skip_dependent).
	blocked bool
	// offPage: the last navigation landed elsewhere than recorded.
	offPage bool
}

// step plays action i. stop is true when on_error stop halts here.
func (p *player) step(ctx context.Context, i int) (stop bool, err error) {
	a := p.f.Actions[i]
	res := Result{Index: i + 1, Action: a.Kind, Label: a.Describe()}
	if p.opts.Timing == Recorded && i > 0 {
		d := recordedDelay(p.f.Actions[i-1].AtMS, a.AtMS)
		if err := p.opts.Wait(ctx, d); err != nil {
			return false, err
		}
		res.WaitedMS = d.Milliseconds()
	}
	if p.opts.OnError == SkipDependent && p.blocked && dependent(a.Kind) {
		p.skip(&res, CodeSkippedDependency, "skipped: an earlier click or navigate failed, so this action would act on the wrong page")
		return false, nil
	}
	switch {
	case !a.Supported():
		p.skip(&res, branch.CodeUnsupported, string(branch.CodeUnsupported)+": "+a.Kind)
		return false, nil
	case a.Kind == flow.KindScreenshot:
		p.checkpoint(ctx, &res)
		return false, nil
	}
	ba, code, msg := p.prepare(i, a)
	if code != "" {
		p.skip(&res, code, msg)
		return false, nil
	}
	// An action's timeout_ms travels with it: the session bounds its
	// waits by it (a deadline on ctx would end the session).
	r, err := p.sess.Do(ctx, ba, p.resolve)
	if err != nil {
		return false, fmt.Errorf("playback: action %d (%s): %w", i+1, res.Label, err)
	}
	res.Status, res.ErrorCode, res.Error = r.Status, r.Code, r.Error
	res.DurationMS = r.End.Sub(r.Start).Milliseconds()
	res.SelectorUsed, res.HealedSelector = r.Strategy, r.HealedSelector
	res.PageURL = p.sess.PageURL()
	p.afterNavigate(ba, p.sess.URL(), &res)
	if res.Status == branch.StatusFailed && p.offPage && (r.Code == branch.CodeSelectorNotFound || r.Code == branch.CodeElementHidden) {
		res.LikelyCause = CauseAuthRedirect
	}
	p.shoot(ctx, &res)
	p.count(&res)
	p.publish(res)
	if res.Status == branch.StatusFailed {
		if a.Kind == branch.KindClick || a.Kind == branch.KindNavigate {
			p.blocked = true
		}
		return p.opts.OnError == Stop, nil
	}
	if a.Kind == branch.KindClick || a.Kind == branch.KindNavigate {
		p.blocked = false
	}
	return false, nil
}

// prepare turns the flow action into the executor's: the value supplied
// for it, URLs moved to StartURL, boxes scaled to the viewport. A code
// says why it cannot run.
func (p *player) prepare(i int, a flow.Action) (branch.Action, branch.Code, string) {
	ba := a.Branch()
	if a.Redacted || a.Input != "" {
		_, ok := supplied(p.opts.Values, i, a)
		switch {
		case ok:
			// Typed through the session's secret inputs: scrubbed wherever
			// it shows, its field masked in screenshots (SessionOptions).
			ba.Input, ba.Value = suppliedInput(i), ""
		case a.Redacted || a.Value == "":
			return ba, branch.CodeRedactedValue, missingValue(i+1, a)
		}
		// Otherwise a plain input whose value the flow keeps: typed as
		// recorded unless --set gives another.
	}
	if p.opts.StartURL != "" && p.f.Origin != "" && strings.HasPrefix(ba.URL, p.f.Origin) {
		ba.URL = originOf(p.opts.StartURL) + ba.URL[len(p.f.Origin):]
	}
	if t := ba.Target; t != nil && t.Box != nil {
		rw, rh := p.ratio()
		t.Box = &branch.Box{X: t.Box.X * rw, Y: t.Box.Y * rh, W: t.Box.W * rw, H: t.Box.H * rh}
	}
	return ba, "", ""
}

// Names reports whether key names a value Options.Values can supply for
// f (an action's 1-based index, or an input an action types), and whether
// one of the actions it names is secret (a secret's value is supplied by
// environment reference only, never written on a command line or sent).
func Names(f *flow.Flow, key string) (known, secret bool) {
	for i, a := range f.Actions {
		if key == strconv.Itoa(i+1) || a.Input != "" && key == a.Input {
			known, secret = true, secret || a.Secret
		}
	}
	return known, secret
}

// supplied is the value opts gives action i, by its 1-based index or its
// input name (the index wins), for an action that needs one.
func supplied(values map[string]string, i int, a flow.Action) (string, bool) {
	if !a.Redacted && a.Input == "" {
		return "", false
	}
	v, ok := values[strconv.Itoa(i+1)]
	if !ok && a.Input != "" {
		v, ok = values[a.Input]
	}
	return v, ok
}

// suppliedInput names the session input that carries action i's supplied
// value.
func suppliedInput(i int) string { return "value" + strconv.Itoa(i+1) }

// resolve gives the executor the value supplied for an action.
func (p *player) resolve(name string) (string, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(name, "value"))
	if err != nil || i < 1 || i > len(p.f.Actions) {
		return "", fmt.Errorf("playback: no value %q", name)
	}
	v, ok := supplied(p.opts.Values, i-1, p.f.Actions[i-1])
	if !ok {
		return "", fmt.Errorf("playback: no value for action %d", i)
	}
	return v, nil
}

// missingValue says which value action n needs and how to supply it: a
// secret only by environment reference.
func missingValue(n int, a flow.Action) string {
	what, how := "a value redacted at capture", fmt.Sprintf("--set %d=VALUE", n)
	if a.Input != "" {
		what, how = "the value of input "+a.Input, "--set "+a.Input+"=VALUE"
	}
	if a.Secret {
		return fmt.Sprintf("action %d needs %s, a secret: supply it with --set %d=env:NAME", n, what, n)
	}
	return fmt.Sprintf("action %d needs %s: supply it with %s (or =env:NAME to read it from the environment)", n, what, how)
}

// afterNavigate flags a navigation that landed elsewhere than it asked
// for: the action succeeded, but a login wall or a redirect is likely.
func (p *player) afterNavigate(a branch.Action, landed string, res *Result) {
	if a.Kind != branch.KindNavigate || res.Status == branch.StatusFailed {
		return
	}
	if samePage(a.URL, landed) {
		p.offPage = false
		return
	}
	p.offPage = true
	res.ErrorCode = CodeURLMismatch
	res.Error = fmt.Sprintf("expected %s, landed on %s: the browser may need to log in", a.URL, res.PageURL)
}

// shoot stores the screenshot of a failed step (the page as it is) or a
// healed one (taken before the action, the match outlined).
func (p *player) shoot(ctx context.Context, res *Result) {
	if p.opts.Shots == nil {
		return
	}
	var png []byte
	switch res.Status {
	case branch.StatusHealed:
		png = p.sess.HealShot()
	case branch.StatusFailed:
		png, _ = p.sess.OutlinedScreenshot(ctx, nil)
	}
	if png == nil {
		return
	}
	path, err := p.opts.Shots.Save(fmt.Sprintf("step-%03d-%s.png", res.Index, res.Status), png)
	if err != nil {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("screenshot of action %d not stored: %v", res.Index, err))
		return
	}
	res.Screenshot = path
	p.rep.Screenshots = append(p.rep.Screenshots, path)
}

// checkpoint plays a screenshot action: the page as it is, stored and
// listed; it acts on nothing.
func (p *player) checkpoint(ctx context.Context, res *Result) {
	start := time.Now()
	res.Status = branch.StatusOK
	res.PageURL = p.sess.PageURL()
	if p.opts.Shots == nil {
		res.Error = "no screenshot store: playback keeps no screenshots"
	} else if png, err := p.sess.OutlinedScreenshot(ctx, nil); err != nil {
		res.Status, res.ErrorCode, res.Error = branch.StatusFailed, branch.CodePageError, "screenshot: "+err.Error()
	} else if path, err := p.opts.Shots.Save(fmt.Sprintf("step-%03d-screenshot.png", res.Index), png); err != nil {
		res.Status, res.ErrorCode, res.Error = branch.StatusFailed, branch.CodePageError, "screenshot not stored: "+err.Error()
	} else {
		res.Screenshot = path
		p.rep.Screenshots = append(p.rep.Screenshots, path)
	}
	res.DurationMS = time.Since(start).Milliseconds()
	p.count(res)
	p.publish(*res)
}

func (p *player) skip(res *Result, code branch.Code, msg string) {
	res.Status, res.ErrorCode, res.Error = StatusSkipped, code, msg
	p.count(res)
	p.publish(*res)
}

func (p *player) count(res *Result) {
	switch res.Status {
	case branch.StatusOK:
		p.rep.Executed++
	case branch.StatusHealed:
		p.rep.Executed++
		p.rep.Healed++
	case branch.StatusFailed:
		p.rep.Failed++
	case StatusSkipped:
		p.rep.Skipped++
	}
	p.rep.Results = append(p.rep.Results, *res)
}

func (p *player) publish(res Result) {
	if p.opts.Progress != nil {
		p.opts.Progress(res)
	}
}

// ratio is the session viewport over the flow's, per axis (1 when either
// is unknown).
func (p *player) ratio() (float64, float64) {
	e := p.f.Environment
	if p.opts.Width <= 0 || p.opts.Height <= 0 || e.Width <= 0 || e.Height <= 0 {
		return 1, 1
	}
	return float64(p.opts.Width) / float64(e.Width), float64(p.opts.Height) / float64(e.Height)
}

func (p *player) checkViewport() {
	rw, rh := p.ratio()
	if math.Abs(rw-1) > viewportTolerance || math.Abs(rh-1) > viewportTolerance {
		e := p.f.Environment
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("viewport_mismatch: the flow was recorded at %dx%d and plays at %dx%d; the coordinate fallback is scaled and may be inaccurate",
			e.Width, e.Height, p.opts.Width, p.opts.Height))
	}
}

// dependent kinds act on what an earlier click or navigate led to.
func dependent(kind string) bool {
	return kind == branch.KindType || kind == branch.KindSelect || kind == branch.KindCheck || kind == branch.KindSet
}

// recordedDelay is the wait before an action started at cur after one
// started at prev: the difference, negative as zero, at most MaxDelay.
func recordedDelay(prev, cur int64) time.Duration {
	d := time.Duration(cur-prev) * time.Millisecond
	return min(max(d, 0), MaxDelay)
}

// samePage compares two URLs by origin, path and query.
func samePage(want, got string) bool {
	w, err1 := url.Parse(want)
	g, err2 := url.Parse(got)
	if err1 != nil || err2 != nil {
		return want == got
	}
	norm := func(u *url.URL) string {
		p := u.EscapedPath()
		if p == "" {
			p = "/"
		}
		return strings.ToLower(u.Scheme+"://"+u.Host) + p + "?" + u.Query().Encode()
	}
	return norm(w) == norm(g)
}

func originOf(u string) string {
	x, err := url.Parse(u)
	if err != nil || x.Scheme == "" || x.Host == "" {
		return ""
	}
	return x.Scheme + "://" + x.Host
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Check reports the first option out of range: an on-error mode or a
// timing playback does not know, a viewport side outside 100 to 10000
// (or one side without the other), a start URL that is not absolute.
func (o Options) Check() error {
	switch {
	case o.OnError != Continue && o.OnError != SkipDependent && o.OnError != Stop:
		return fmt.Errorf("on_error %q: want continue, skip_dependent or stop", o.OnError)
	case o.Timing != Fast && o.Timing != Recorded:
		return fmt.Errorf("timing %q: want fast or recorded", o.Timing)
	case (o.Width != 0 || o.Height != 0) && (o.Width < 100 || o.Height < 100 || o.Width > 10000 || o.Height > 10000):
		return fmt.Errorf("viewport %dx%d: want each side from 100 to 10000", o.Width, o.Height)
	}
	if o.StartURL != "" {
		if u, err := url.Parse(o.StartURL); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("start_url %q is not an absolute URL", o.StartURL)
		}
	}
	return nil
}
