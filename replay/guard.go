package replay

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// ErrNothingToReplay: a live replay of a commit bundle has no step before
// the commit boundary.
var ErrNothingToReplay = errors.New("replay: nothing to replay before the commit boundary")

// Stop says where a replay stopped before the end of the plan and why.
type Stop struct {
	// Step is the first step not replayed; Of is the plan's length.
	Step   int    `json:"step"`
	Of     int    `json:"of"`
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// guardOf is what a replay session refuses to send. A replay never
// performs a side effect:
//
//   - live, it guards the bundle's LiveGuard: the task's commit.guard
//     patterns, what a commit bundle's committer sent, and every POST,
//     PUT, PATCH and DELETE when the bundle records no patterns;
//   - strict, every request goes to the replay proxy, which answers from
//     the recording and forwards nothing, so a commit bundle replays the
//     submit against its recorded response; a branch bundle keeps its
//     guard so guarded requests fail as they did at capture.
func guardOf(b *bundle.Bundle, live bool, rep *Report) ([]browser.GuardPattern, error) {
	m := &b.Manifest
	if !live && m.Kind == bundle.KindCommit {
		return nil, nil
	}
	guard := m.Guard
	if live {
		var all bool
		if guard, all = b.LiveGuard(); all {
			rep.Notes = append(rep.Notes, "the bundle names no guarded requests: every "+strings.Join(bundle.UnsafeMethods, ", ")+" request is blocked")
		}
	}
	return compilePatterns("guard", guard)
}

// stopAtCommit cuts a commit bundle's plan at the commit boundary for a
// live replay: the committer's steps (writing the idempotency key, the
// commit action) would perform the commit against the live site, so they
// are never replayed live. Branch bundles are returned whole.
func stopAtCommit(b *bundle.Bundle, plan branch.Plan, rep *Report) (branch.Plan, error) {
	first, action, ok := b.Manifest.CommitSteps()
	if !ok || first > len(plan) {
		return plan, nil
	}
	rep.Stop = &Stop{Step: first, Of: len(plan), Action: plan[action-1].Describe(),
		Reason: fmt.Sprintf("the commit boundary: steps %d-%d are the committer's, and step %d (%s) is the commit action; a live replay never performs it (a strict replay replays it against the recorded response)",
			first, len(plan), action, plan[action-1].Describe())}
	if first == len(plan) {
		rep.Stop.Reason = fmt.Sprintf("the commit boundary: step %d (%s) is the commit action; a live replay never performs it (a strict replay replays it against the recorded response)",
			action, plan[action-1].Describe())
	}
	if first == 1 {
		return nil, fmt.Errorf("%w: step 1 is the committer's", ErrNothingToReplay)
	}
	return plan[:first-1], nil
}

// allowOf compiles the state-changing requests the capture allowed.
func allowOf(b *bundle.Bundle) ([]browser.GuardPattern, error) {
	return compilePatterns("allow", b.Manifest.Allow)
}

// compilePatterns compiles a bundle's request patterns; what names the
// list in errors.
func compilePatterns(what string, gs []bundle.Guard) ([]browser.GuardPattern, error) {
	out := make([]browser.GuardPattern, 0, len(gs))
	for _, g := range gs {
		re, err := regexp.Compile(g.URL)
		if err != nil {
			return nil, fmt.Errorf("replay: %s %q: %w", what, g.URL, err)
		}
		out = append(out, browser.GuardPattern{Method: g.Method, URL: re})
	}
	return out, nil
}
