package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// ErrDiverged: the replay did not reproduce every step's strict hashes.
var ErrDiverged = errors.New("replay: diverged")

// ErrUnrecorded: with Options.FailOnUnrecorded, the replayed page asked
// for something the recording does not hold.
var ErrUnrecorded = errors.New("replay: unrecorded request")

// ErrOption: an option that does not apply to this replay.
var ErrOption = errors.New("replay: invalid option")

// Options configure Replay. The zero value is a strict replay from the
// recorded responses.
type Options struct {
	// Live replays against the live site instead of the recording: the
	// same manifest, seeds and actions, so what differs is the site.
	// Guarded requests are never sent and the committer's steps are
	// never replayed live.
	Live bool
	// StartURL, in live mode, points the replay at the same site served at
	// another address (its origin replaces the recorded one).
	StartURL string
	// Controls: the determinism controls are what makes replays
	// reproduce. NoControls switches them off (no pinned clock, no seeded
	// randomness), to show what they buy.
	NoControls bool
	// IgnoreHTTPSErrors, in live mode, accepts certificates Chromium does
	// not trust (the task's environment.ignore_https_errors). A strict
	// replay never needs it: its proxy's certificates are accepted in its
	// own context only.
	IgnoreHTTPSErrors bool
	// FailOnUnrecorded makes a strict replay fail (ErrUnrecorded) when the
	// page sends any request the recording does not hold, even if every
	// step's hashes still match: a regression gate, where a new request
	// means the page changed. A request the recording holds as failed or
	// blocked at capture is refused as it was then, and does not count.
	// By default every such request is refused and listed in
	// Report.Unrecorded, and only a divergence fails. It does not apply to
	// a live replay (ErrOption).
	FailOnUnrecorded bool
	// Heal resolves targets through playback's full cascade: a match a
	// fallback strategy finds is confirmed by the recorded neighbourhood
	// text or box, and the recorded box, scaled, is the last resort. The
	// report names each healed step's strategy and selector.
	Heal bool
	// OnStep, when set, is called with each step's comparison as soon as
	// the step has been replayed (a progress display); it must not block
	// for long.
	OnStep func(StepReport)
	// OnShot, when set, is handed a screenshot of the page after each step
	// (personal data masked as at capture): how a step that was recorded
	// without one is shown on demand.
	OnShot func(step int, png []byte)
	// ScrubKey is the scrubbing key of the run the bundle came from, when
	// it is at hand (DATA_DIR/keys/RUN.key, in the run's own data dir).
	// Personal values the page makes itself (a page-generated e-mail
	// address, a name its script writes) then get the tokens they got at
	// capture, and the strict hashes that hold them reproduce. Without
	// it, a fresh key: such a value gets another token on every replay.
	// The key never leaves the data dir; a bundle never carries it.
	ScrubKey []byte
}

// StepReport is one step's comparison.
type StepReport struct {
	Index   int         `json:"index"`
	Action  string      `json:"action"`
	Status  string      `json:"status"`
	Want    string      `json:"want_status"`
	Code    branch.Code `json:"code,omitempty"`
	DOM     bool        `json:"dom_match"`
	AX      bool        `json:"ax_match"`
	Net     bool        `json:"net_match"`
	Match   bool        `json:"match"`
	URL     string      `json:"url"`
	WantURL string      `json:"want_url"`
	// Strategy is the selector strategy that found the target, and
	// HealedSelector the selector string when it was a fallback.
	Strategy       string `json:"strategy,omitempty"`
	HealedSelector string `json:"healed_selector,omitempty"`
	// Advisory is set when the step's recorded hashes were observed in
	// an ancestor's browser context (bundle.Step.Advisory) and differ
	// in a strict replay: the step matches on its status, the report
	// notes the rest. A live replay compares every step.
	Advisory bool `json:"advisory,omitempty"`
	// Via and WantVia are how a set action put its value in, replayed
	// and recorded; they must be equal.
	Via     string `json:"via,omitempty"`
	WantVia string `json:"want_via,omitempty"`
	// ScreenDiff is the perceptual distance of the step's screenshot from
	// the recorded one, 0 (alike) to 1, when the bundle holds one; nil
	// otherwise. Advisory: it never decides a match.
	ScreenDiff *float64 `json:"screen_diff,omitempty"`
}

// Report is the outcome of a replay.
type Report struct {
	RunID      string       `json:"run_id"`
	BranchID   string       `json:"branch_id"`
	Mode       string       `json:"mode"`
	Steps      []StepReport `json:"steps"`
	RSR        float64      `json:"rsr"`
	DVR        float64      `json:"dvr"`
	TTD        int          `json:"ttd"` // first diverging step, 0 when none
	Diff       string       `json:"diff,omitempty"`
	Unrecorded []Unrecorded `json:"unrecorded,omitempty"`
	Served     int          `json:"served"`
	// Healed counts the steps whose target a fallback strategy found.
	Healed int `json:"healed"`
	// Stop is set when the replay stopped before the end of the plan: a
	// live replay of a commit bundle stops at the commit boundary.
	Stop *Stop `json:"stop,omitempty"`
	// Blocked lists the guarded requests the replay refused to send
	// ("POST http://.../orders").
	Blocked  []string      `json:"blocked,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	Duration time.Duration `json:"-"`
}

// reportFields is Report without its methods (no JSON recursion).
type reportFields Report

// MarshalJSON writes the report with its duration in milliseconds
// (duration_ms), as every --json of the CLI writes durations.
func (r Report) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		reportFields
		DurationMS int64 `json:"duration_ms"`
	}{reportFields(r), r.Duration.Milliseconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Report) UnmarshalJSON(b []byte) error {
	var j struct {
		reportFields
		DurationMS int64 `json:"duration_ms"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Report(j.reportFields)
	r.Duration = time.Duration(j.DurationMS) * time.Millisecond
	return nil
}

// OK reports a perfect replay: every step's strict hashes matched.
func (r *Report) OK() bool { return r.RSR == 1 && len(r.Steps) > 0 }

// Replay re-runs a bundle in a fresh session of rt and compares each step.
// It returns the report and, when any step diverged, an error wrapping
// ErrDiverged. No replay performs a side effect: a strict one sends
// everything to the recording, a live one blocks guarded requests and
// stops a commit bundle at the commit boundary (Report.Stop), comparing
// the steps before it.
func Replay(ctx context.Context, rt *browser.Runtime, b *bundle.Bundle, opts Options) (*Report, error) {
	start := time.Now()
	if opts.Live && opts.FailOnUnrecorded {
		return nil, fmt.Errorf("%w: FailOnUnrecorded needs a strict replay: a live one has no recording to miss", ErrOption)
	}
	m := b.Manifest
	rep := &Report{RunID: m.RunID, BranchID: m.BranchID, Mode: "strict"}
	if opts.Live {
		rep.Mode = "live"
	}
	if fp := rt.Fingerprint(); m.Fingerprint.Browser != "" && fp.Browser != m.Fingerprint.Browser {
		rep.Notes = append(rep.Notes, fmt.Sprintf("browser differs: recorded with %s, replayed with %s", m.Fingerprint.Browser, fp.Browser))
	}
	seed, err := strconv.ParseUint(m.Seed, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("replay: manifest seed %q: %w", m.Seed, err)
	}
	origin := m.Origin
	plan := append(branch.Plan(nil), m.Plan...)
	if opts.Live && opts.StartURL != "" {
		no := originOf(opts.StartURL)
		if no == "" {
			return nil, fmt.Errorf("replay: --start-url %q is not an absolute URL", opts.StartURL)
		}
		for i, a := range plan {
			if a.URL != "" && strings.HasPrefix(a.URL, origin) {
				plan[i].URL = no + a.URL[len(origin):]
			}
		}
		origin = no
	}
	env := m.Environment
	key := opts.ScrubKey
	if len(key) == 0 {
		key = scrub.NewKey()
	}
	sc := scrub.New(key, nil)
	// The capture's tokens for the personal values it observed: a page
	// that makes one again gets the recorded token, with or without the
	// run's key.
	sc = sc.WithRecall(m.Recall)
	so := browser.SessionOptions{
		Env: browser.Env{Width: env.Width, Height: env.Height, DeviceScaleFactor: env.DeviceScaleFactor, Locale: env.Locale,
			Timezone: env.Timezone, UserAgent: env.UserAgent, Clock: time.UnixMilli(env.ClockMS).UTC(),
			StepAdvance: time.Duration(env.StepAdvanceMS) * time.Millisecond, ActionTimeout: time.Duration(env.ActionTimeoutMS) * time.Millisecond},
		RunSeed: seed, Origin: origin, Scrub: sc, NoControls: opts.NoControls, Heal: opts.Heal,
	}
	so.Env.IgnoreHTTPSErrors = opts.Live && opts.IgnoreHTTPSErrors
	if so.Guard, err = guardOf(b, opts.Live, rep); err != nil {
		return nil, err
	}
	if so.Allow, err = allowOf(b); err != nil {
		return nil, err
	}
	// A live replay is speculation: it holds every state-changing request.
	// A strict one holds what the capture held, and releases the commit
	// action of a commit bundle as its committer did.
	so.SendWrites = !opts.Live && !m.HoldsWrites
	if !opts.Live {
		// The page starts from the state the capture started from (a
		// live replay has no session of the site's to offer: the
		// credentials in it are tokens).
		if so.State, err = startState(b); err != nil {
			return nil, err
		}
	}
	so.Origins = m.Origins
	// A strict replay plays the recorded live channels; a live one
	// connects them.
	so.PlayLive = !opts.Live
	_, commitAction, isCommit := m.CommitSteps()
	if opts.Live {
		if plan, err = stopAtCommit(b, plan, rep); err != nil {
			return rep, err
		}
	}
	var srv *server
	if !opts.Live {
		srv = newServer(b, sc)
		addr, closeFn, err := srv.listen()
		if err != nil {
			return nil, fmt.Errorf("replay: proxy: %w", err)
		}
		defer closeFn()
		so.Proxy = addr
		// Every request of this context goes to the proxy, which answers
		// HTTPS with certificates of its own per-replay authority.
		so.Env.IgnoreHTTPSErrors = true
	}
	sess, err := rt.NewSession(ctx, so)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	inputs := func(name string) (string, error) {
		in, ok := m.Inputs[name]
		if !ok {
			return "", fmt.Errorf("the bundle records no input %q", name)
		}
		return in.Token, nil
	}
	matched := 0
	for i, a := range plan {
		want := b.Steps[i]
		if srv != nil {
			srv.setStep(i + 1)
		}
		if !opts.Live && isCommit && i+1 == commitAction {
			sess.ReleaseWrites()
		}
		pre, post := livePhases(want.Live)
		if so.PlayLive {
			if err := sess.FeedLive(ctx, pre); err != nil {
				return nil, err
			}
		}
		r, err := sess.Do(ctx, a, inputs)
		if err != nil {
			return nil, err
		}
		if so.PlayLive {
			if err := sess.FeedLive(ctx, post); err != nil {
				return nil, err
			}
		}
		snap, err := sess.Observe(ctx, browser.ObserveSpec{InOrderDigest: m.NetDigest != branch.NetDigestMultiset})
		sr := StepReport{Index: i + 1, Action: a.Describe(), Status: r.Status, Want: want.Status, Code: r.Code, WantURL: want.URL,
			Strategy: r.Strategy, HealedSelector: r.HealedSelector, Via: r.Via, WantVia: want.Via}
		if r.Status == branch.StatusHealed {
			rep.Healed++
		}
		if err == nil {
			o := snap.Obs
			sr.URL = o.URL
			got := o.NetDigest
			if m.NetDigest != branch.NetDigestMultiset {
				got = snap.NetDigestInOrder // a bundle recorded before the multiset form
			}
			sr.DOM, sr.AX, sr.Net = o.DOMHash == want.DOMHash, o.AXHash == want.AXHash, got == want.NetDigest
			if opts.Live {
				// Live traffic is the site's, not the recording's: the
				// network digest is compared, but the address may differ.
				sr.URL = foldOrigin(o.URL, origin)
				sr.WantURL = foldOrigin(want.URL, m.Origin)
			}
		}
		if shot, ok := b.Files[bundle.ScreenshotPath(i+1)]; (ok || opts.OnShot != nil) && err == nil {
			if png, serr := sess.ScreenshotPNG(ctx); serr == nil {
				if d, derr := screenDistance(shot, png); ok && derr == nil {
					sr.ScreenDiff = &d
				}
				if opts.OnShot != nil {
					opts.OnShot(i+1, png)
				}
			}
		}
		hashes := sr.DOM && sr.AX && sr.Net
		if want.Advisory && !opts.Live && err == nil && !hashes {
			// Observed in an ancestor's context, which the site answered
			// otherwise: this replay serves the branch's own. (A live
			// replay compares every step: the site's answers are its
			// own, and a difference is the drift it looks for.)
			sr.Advisory, hashes = true, true
			rep.Notes = append(rep.Notes, fmt.Sprintf("step %d: its recorded hashes were observed in an ancestor's browser context and differ here (%s); the branch replayed the step in a context of its own, whose answers this replay serves",
				i+1, strings.Join(differing(sr), ", ")))
		}
		sr.Match = err == nil && hashes && (r.Status == want.Status || (r.Status != branch.StatusFailed && want.Status != branch.StatusFailed)) &&
			(want.Via == "" || r.Via == want.Via)
		if sr.Match {
			matched++
		} else if rep.TTD == 0 {
			rep.TTD = i + 1
			rep.Diff = explain(b, i+1, snap, sr, err)
		}
		rep.Steps = append(rep.Steps, sr)
		if opts.OnStep != nil {
			opts.OnStep(sr)
		}
	}
	if srv != nil {
		rep.Served, rep.Unrecorded = srv.report()
	}
	rep.Blocked = sess.Blocked() // scrubbed by the session
	rep.RSR = float64(matched) / float64(len(plan))
	rep.DVR = 1 - rep.RSR
	rep.Duration = time.Since(start)
	return rep, verdict(rep, opts)
}

// differing names the strict hashes of sr that differ.
func differing(sr StepReport) []string {
	var out []string
	for _, h := range []struct {
		name string
		ok   bool
	}{{"DOM", sr.DOM}, {"accessibility", sr.AX}, {"network", sr.Net}} {
		if !h.ok {
			out = append(out, h.name)
		}
	}
	return out
}

// verdict is the error of a finished replay: ErrDiverged when a step's
// strict hashes differ, ErrUnrecorded when opts.FailOnUnrecorded and the
// page sent a request the recording does not hold, both joined when both
// happened, nil otherwise.
func verdict(rep *Report, opts Options) error {
	var errs []error
	if !rep.OK() {
		errs = append(errs, fmt.Errorf("%w: RSR %.2f, first divergence at step %d", ErrDiverged, rep.RSR, rep.TTD))
	}
	var missing []Unrecorded
	for _, u := range rep.Unrecorded {
		if !u.AtCapture {
			missing = append(missing, u)
		}
	}
	if opts.FailOnUnrecorded && len(missing) > 0 {
		u := missing[0]
		errs = append(errs, fmt.Errorf("%w: %d request(s) the recording does not hold, the first at step %d: %s %s",
			ErrUnrecorded, len(missing), u.Step, u.Method, u.URL))
	}
	return errors.Join(errs...)
}

func originOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := u[i+3:]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	if rest == "" {
		return ""
	}
	return u[:i+3] + rest
}

func foldOrigin(u, origin string) string {
	if origin != "" && strings.HasPrefix(u, origin) {
		return "{origin}" + u[len(origin):]
	}
	return u
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// startState is the browser state the bundle's capture started from
// (Manifest.StartState), nil when it records none.
func startState(b *bundle.Bundle) (*task.StorageState, error) {
	d := b.Manifest.StartState
	if d == "" {
		return nil, nil
	}
	data, ok := b.Body(d)
	if !ok {
		return nil, fmt.Errorf("replay: the bundle holds no start state %s", d)
	}
	st, err := task.ParseStorageState(data)
	if err != nil {
		return nil, fmt.Errorf("replay: the bundle's start state: %w", err)
	}
	return st, nil
}

// livePhases splits a step's recorded live entries into those taken
// before its action and the rest.
func livePhases(fs []branch.LiveFrame) (pre, post []branch.LiveFrame) {
	for _, f := range fs {
		if f.Phase == branch.LivePre {
			pre = append(pre, f)
		} else {
			post = append(post, f)
		}
	}
	return pre, post
}
