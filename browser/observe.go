package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// ObserveSpec says what to look at.
type ObserveSpec struct {
	Probes []scoring.Probe
	// Text asks for the page text (dead-end detectors need it).
	Text bool
	// Screenshot stores a PNG screenshot (advisory hash).
	Screenshot bool
	// Store keeps the canonical DOM and accessibility snapshot as
	// artifacts (their hashes are always computed).
	Store bool
	// MaxAffordances bounds the affordance list (default 120).
	MaxAffordances int
	// InOrderDigest also computes the network digest in its older form
	// (Snapshot.NetDigestInOrder), for a replay of a bundle recorded in it.
	InOrderDigest bool
}

// Snapshot is a raw observation: what the page showed, before scoring.
type Snapshot struct {
	Obs     branch.Observation
	Answers map[scoring.Probe]scoring.Answer
	Text    string
	// DOM and AX are the scrubbed canonical DOM serialization and
	// accessibility snapshot.
	DOM string
	AX  string
	// PII lists the values of form fields whose names mark personal data
	// or credentials; the caller scrubs them wherever else they show up.
	PII []string
	// NetDigestInOrder is the step's network digest in the older form
	// (lines in request order) when ObserveSpec.InOrderDigest asks.
	NetDigestInOrder string
}

type observeResult struct {
	PII         []string            `json:"pii"`
	DOM         string              `json:"dom"`
	Affordances []branch.Affordance `json:"affordances"`
	Facts       []branch.Fact       `json:"facts"`
	Answers     []scoring.Answer    `json:"answers"`
	Text        string              `json:"text"`
	Ready       string              `json:"ready"`
	Title       string              `json:"title"`
	Live        any                 `json:"live"`
	Sent        []string            `json:"sent"`
}

// Observe looks at the page after the last step: URL, title, hashes,
// affordances and probe answers, and the network digest of the step's
// requests.
//
// A page that does not answer within the observation's watchdog limit
// fails it with page_unresponsive; the session is closed then.
func (s *Session) Observe(ctx context.Context, spec ObserveSpec) (Snapshot, error) {
	var snap Snapshot
	err := s.guard(ctx, "the observation", 2*s.opts.Env.ActionTimeout+watchdogSlack, func() (err error) {
		snap, err = s.observe(ctx, spec)
		return err
	})
	if err != nil {
		return Snapshot{}, err
	}
	return snap, nil
}

func (s *Session) observe(ctx context.Context, spec ObserveSpec) (Snapshot, error) {
	if s.Crashed() {
		return Snapshot{}, &ActionError{Code: branch.CodePageCrash, Msg: "the page crashed"}
	}
	max := spec.MaxAffordances
	if max == 0 {
		max = 120
	}
	// playwright-go serializes only map[string]any and slices of any.
	probes := make([]any, len(spec.Probes))
	for i, p := range spec.Probes {
		probes[i] = map[string]any{"kind": p.Kind, "selector": p.Selector, "script": p.Script}
	}
	volatile := make([]any, len(s.opts.Volatile))
	for i, v := range s.opts.Volatile {
		volatile[i] = v
	}
	arg := map[string]any{"probes": probes, "text": spec.Text, "max": max, "volatile": volatile, "patterns": patternsArg(), "hint": hintArg()}
	raw, err := s.page.Evaluate(observeScript, arg)
	if err != nil {
		return Snapshot{}, fmt.Errorf("browser: observing %s: %w", s.page.URL(), err)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return Snapshot{}, fmt.Errorf("browser: observation: %w", err)
	}
	var res observeResult
	if err := json.Unmarshal(b, &res); err != nil {
		return Snapshot{}, fmt.Errorf("browser: observation: %w", err)
	}
	if len(res.Answers) != len(spec.Probes) {
		return Snapshot{}, fmt.Errorf("browser: observation answered %d of %d probes", len(res.Answers), len(spec.Probes))
	}
	// Strict hashes cover the scrubbed canonical forms: scrubbing is
	// idempotent, so a replay from scrubbed records hashes the same, and
	// nothing that leaves the session holds a secret or personal data.
	res.PII = append(res.PII, s.sensitiveValues()...)
	// What the strict hashes hold is scrubbed through a view that notes
	// the values it tokenizes: the step's recall.
	sc := s.opts.Scrub
	if m, ok := sc.(minter); ok && s.opts.Record {
		sc = m.Minter()
	}
	if sc != nil {
		res.DOM = sc.TextWith(res.DOM, res.PII)
	}
	snap := Snapshot{DOM: res.DOM, Text: res.Text, PII: res.PII, Answers: make(map[scoring.Probe]scoring.Answer, len(spec.Probes))}
	for i, p := range spec.Probes {
		snap.Answers[p] = res.Answers[i]
	}
	title := res.Title // read in the same evaluation: no round trip of its own
	ax, err := s.page.Locator("body").AriaSnapshot(playwright.LocatorAriaSnapshotOptions{Timeout: millis(ariaSnapshotTimeout)})
	if err != nil {
		ax = ""
	}
	if sc != nil {
		ax = sc.Aria(ax, res.PII)
	}
	snap.AX = ax
	s.mu.Lock()
	status := s.docStatus
	dialogs := s.dialogs
	s.dialogs = nil
	s.mu.Unlock()
	for i := range dialogs {
		dialogs[i].Message = s.scrubText(dialogs[i].Message, res.PII)
	}
	for i := range res.Facts {
		f := &res.Facts[i]
		f.Key, f.Value = s.scrubText(f.Key, res.PII), s.scrubText(f.Value, res.PII)
	}
	if res.Live != nil {
		s.keepLive(res.Live, branch.LivePost)
	}
	live, dropped := s.stepLive()
	s.observed = s.step
	s.awaitSent(ctx, res.Sent)
	s.markLate()
	recs := s.recsSince(s.step)
	if spec.InOrderDigest {
		snap.NetDigestInOrder = s.netDigestInOrder(recs)
	}
	o := branch.Observation{
		URL:         s.scrubURL(s.page.URL()),
		Title:       title,
		Status:      status,
		DOMHash:     sha([]byte(res.DOM)),
		AXHash:      sha([]byte(ax)),
		NetDigest:   s.netDigest(recs, live),
		Recall:      takeRecall(sc),
		Live:        live,
		LiveDropped: dropped,
		Affordances: res.Affordances,
		VirtualTime: s.vt.UnixMilli(),
		Dialogs:     dialogs,
		Facts:       res.Facts,
	}
	if spec.Store && s.opts.Store != nil {
		if d, err := s.opts.Store.Put(ctx, []byte(res.DOM)); err == nil {
			o.DOMArtifact = string(d)
		}
		if d, err := s.opts.Store.Put(ctx, []byte(ax)); err == nil {
			o.AXArtifact = string(d)
		}
	}
	s.notePersonal(res.PII)
	if spec.Screenshot && s.opts.Store != nil {
		o.ScreenshotHash, _ = s.storeScreenshot(ctx, res.PII)
	}
	snap.Obs = o
	return snap, nil
}

// notePersonal remembers an observation's personal values: every later
// screenshot of the session masks them, whether or not this observation
// took one (Session.Screenshot after it, the committer's evidence).
func (s *Session) notePersonal(pii []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seenPII == nil {
		s.seenPII = map[string]bool{}
	}
	for _, v := range pii {
		s.seenPII[v] = true
	}
}

// storeScreenshot takes the page's screenshot, secret fields and personal
// values masked, and stores it.
func (s *Session) storeScreenshot(ctx context.Context, pii []string) (string, error) {
	png, err := s.screenshot(playwright.PageScreenshotOptions{
		// Screenshots must not touch the page: caret hiding (Playwright's
		// default) leaves style="" on the focused field, which the next
		// step's DOM would carry.
		Caret:   playwright.ScreenshotCaretInitial,
		Timeout: millis(screenshotTimeout),
	}, s.knownPersonal(pii))
	if err != nil {
		return "", err
	}
	d, err := s.opts.Store.Put(ctx, png)
	if err != nil {
		return "", err
	}
	return string(d), nil
}

// maskLocators covers the fields a screenshot must not show whatever
// they hold: every field a secret was typed into (and password fields).
// Playwright's overlay is gone again before the next step observes.
func (s *Session) maskLocators() []playwright.Locator {
	out := []playwright.Locator{s.page.Locator("input[type=password]")}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.masked {
		switch {
		case t.ID != "":
			out = append(out, s.page.Locator(attrSel("id", t.ID)))
		case t.Field != "":
			out = append(out, s.page.Locator(attrSel("name", t.Field)))
		case t.TestID != "":
			out = append(out, s.page.Locator(attrSel("data-testid", t.TestID)))
		case t.CSS != "":
			out = append(out, s.page.Locator(t.CSS))
		}
	}
	return out
}

// Read returns the text of the first element matching selector, or its
// attribute attr; ok is false when no element matches.
func (s *Session) Read(ctx context.Context, selector, attr string) (value string, ok bool, err error) {
	var v any
	err = s.call(ctx, "reading "+selector, func() (e error) {
		v, e = s.page.Evaluate(readScript, []any{selector, attr})
		return e
	})
	if err != nil {
		return "", false, fmt.Errorf("browser: reading %s: %w", selector, err)
	}
	if v == nil {
		return "", false, nil
	}
	str, isStr := v.(string)
	if !isStr {
		return fmt.Sprint(v), true, nil
	}
	return str, true, nil
}

// minter is a scrubber that makes views noting the values they tokenize
// (scrub.Scrubber.Minter); takeRecall reads such a view's recall.
type minter interface {
	Minter() *scrub.Scrubber
}

func takeRecall(sc Scrubber) map[string]string {
	if r, ok := sc.(interface{ TakeRecall() map[string]string }); ok {
		return r.TakeRecall()
	}
	return nil
}
