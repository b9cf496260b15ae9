package commit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// pollEvery is the pause between two looks at the page while the
// committer waits for the commit's outcome.
const pollEvery = 250 * time.Millisecond

// maxNotice bounds the page message a refused row records.
const maxNotice = 500

// pageOutcome is what the page said after the commit action.
type pageOutcome int

const (
	// pageUnseen: neither success nor refused held within the timeout
	// (or the site refused the request itself, which the transcript
	// shows).
	pageUnseen pageOutcome = iota
	pageSuccess
	pageRefused
)

// awaited is the outcome of awaitOutcome: the final observation (stored,
// with a screenshot) when the page decided, and the refusal's message.
type awaited struct {
	outcome pageOutcome
	snap    browser.Snapshot
	notice  string
	// why says what was last seen when the page did not decide.
	why error
}

// awaitOutcome polls the page after the commit action until
// commit.confirm.success or commit.confirm.refused holds, the site
// refuses the commit request itself (a 4xx, see refusal), or
// commit.confirm.timeout passes. The page is looked at every pollEvery
// without storing anything; the observation that decides is made again
// with the DOM stored and a screenshot, as evidence.
func (c *Committer) awaitOutcome(ctx context.Context, sess *browser.Session, guard []browser.GuardPattern, step int) awaited {
	cf := c.Task.Commit.Confirm
	hasRefused := cf.Refused.Kind() != ""
	preds := []scoring.Predicate{cf.Success}
	if hasRefused {
		preds = append(preds, cf.Refused)
	}
	probes := scoring.Probes(preds...)
	decide := func(snap browser.Snapshot) pageOutcome {
		facts := scoring.Facts{URL: sess.URL(), Title: snap.Obs.Title, Answers: snap.Answers}
		if ok, _ := cf.Success.Eval(facts); ok {
			return pageSuccess
		}
		if hasRefused {
			if ok, _ := cf.Refused.Eval(facts); ok {
				return pageRefused
			}
		}
		return pageUnseen
	}
	deadline := time.Now().Add(cf.Timeout.D())
	why := fmt.Errorf("no confirmation")
	for {
		snap, err := sess.Observe(ctx, browser.ObserveSpec{Probes: probes})
		if err != nil {
			why = fmt.Errorf("observing the confirmation: %v", err)
		} else if o := decide(snap); o != pageUnseen {
			final, err := sess.Observe(ctx, browser.ObserveSpec{Probes: probes, Store: true, Screenshot: true})
			if err == nil && decide(final) == o {
				out := awaited{outcome: o, snap: final}
				if o == pageRefused {
					out.notice = c.notice(ctx, sess, final)
				}
				return out
			}
		} else {
			why = fmt.Errorf("no confirmation at %s", snap.Obs.URL)
		}
		if _, refused := refusal(guard, sess.NetSince(step)); refused || ctx.Err() != nil || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollEvery):
		}
	}
	out := awaited{outcome: pageUnseen, why: why}
	if snap, err := sess.Observe(ctx, browser.ObserveSpec{Probes: probes, Store: true, Screenshot: true}); err == nil {
		out.snap = snap
	}
	return out
}

// notice is the page's message for a refusal: the text of the first
// element commit.confirm.refused names that shows text, or what the
// predicate looks for in the page text; scrubbed, and cut to maxNotice.
func (c *Committer) notice(ctx context.Context, sess *browser.Session, snap browser.Snapshot) string {
	p := c.Task.Commit.Confirm.Refused
	msg := ""
	for _, sel := range noticeSelectors(&p) {
		if v, ok, err := sess.ReadLive(ctx, sel, ""); err == nil && ok && strings.TrimSpace(v) != "" {
			msg = strings.TrimSpace(v)
			break
		}
	}
	if msg == "" {
		msg = noticeWords(&p)
	}
	if c.Spec != nil {
		msg = c.Spec.ScrubberWith(nil).TextWith(msg, snap.PII)
	}
	if r := []rune(msg); len(r) > maxNotice {
		msg = string(r[:maxNotice]) + "…"
	}
	return msg
}

// noticeSelectors lists the selectors of the elements a predicate looks
// at (not under a not), in order.
func noticeSelectors(p *scoring.Predicate) []string {
	var out []string
	switch p.Kind() {
	case scoring.PredVisible:
		out = append(out, p.Visible)
	case scoring.PredText:
		if p.Text.Selector != "" {
			out = append(out, p.Text.Selector)
		}
	case scoring.PredValue:
		out = append(out, p.Value.Selector)
	case scoring.PredCount:
		out = append(out, p.Count.Selector)
	case scoring.PredAll:
		for i := range p.All {
			out = append(out, noticeSelectors(&p.All[i])...)
		}
	case scoring.PredAny:
		for i := range p.Any {
			out = append(out, noticeSelectors(&p.Any[i])...)
		}
	}
	return out
}

// noticeWords says what a refusal predicate without an element found:
// the text it looks for, or its name.
func noticeWords(p *scoring.Predicate) string {
	if t := p.Text; t != nil {
		for _, s := range []string{t.Contains, t.Equals, t.Matches} {
			if s != "" {
				return fmt.Sprintf("the page shows %q", s)
			}
		}
	}
	for i := range p.Any {
		if s := noticeWords(&p.Any[i]); s != "" {
			return s
		}
	}
	for i := range p.All {
		if s := noticeWords(&p.All[i]); s != "" {
			return s
		}
	}
	if p.Name != "" {
		return "the page matched " + p.Name
	}
	return "the page matched commit.confirm.refused"
}

// commitRequest returns the request of the transcript that made the
// commit: the first guarded document request (a form submission), else
// the first guarded request that was sent.
func commitRequest(guard []browser.GuardPattern, transcript []branch.NetRecord) (branch.NetRecord, bool) {
	for _, n := range transcript {
		if n.Type == "document" && !n.Blocked && isGuarded(guard, n) {
			return n, true
		}
	}
	for _, n := range transcript {
		if !n.Blocked && n.Error == "" && isGuarded(guard, n) {
			return n, true
		}
	}
	return branch.NetRecord{}, false
}
