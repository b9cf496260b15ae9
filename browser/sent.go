package browser

import (
	"context"
	"errors"
	"time"

	"github.com/playwright-community/playwright-go"
)

// A page's fetch and XMLHttpRequest calls reach the session as request
// events through the driver, and on a loaded machine such an event can
// arrive after the session decided the network was quiet: the step is
// then observed without its request at capture and with it at replay
// (or the other way round), and their network digests differ. The page
// itself knows what it sent: the request script notes every fetch and
// XMLHttpRequest send (userRequestScript, under
// Symbol.for('multiverse.sent')), and the session drains that list when
// the network looks quiet and waits for the requests it has not seen
// yet (owed), a little while at most (owedWait). What the page sent is
// then in the step whatever the machine's load.

// navSent is what the page lists when its top document is about to be
// left (beforeunload): the session owes it until it sees the main
// frame's next document request. A script that reloads the page right
// after its last fetch answered would otherwise be read between the two,
// on a loaded machine, as a settled page.
const navSent = "multiverse:navigate"

// owedWait bounds how long a request the page reported sending may take
// to reach the session before it is given up on (a fetch answered by a
// service worker, one aborted before it left).
const owedWait = time.Second

// takeSentJS is an expression that takes the page's list of sent
// requests (the observation's evaluation takes it too).
const takeSentJS = `(() => { const k = Symbol.for('multiverse.sent'); const l = window[k] || []; window[k] = []; return l; })()`

// sentLedger matches the requests a page reported sending with those
// the session saw. Its zero value is ready; the session's mutex guards
// it.
type sentLedger struct {
	// seen counts the requests seen since the last drain, by URL.
	seen map[string]int
	// owed counts the reported requests not seen yet, by URL; owedN is
	// their total and since when they are owed.
	owed  map[string]int
	owedN int
	since time.Time
}

// saw notes a request the session saw (its URL as the browser sent it).
func (l *sentLedger) saw(url string) {
	if l.owed[url] > 0 {
		l.owed[url]--
		l.owedN--
		return
	}
	if l.seen == nil {
		l.seen = map[string]int{}
	}
	l.seen[url]++
}

// reported takes a drained list: each URL is matched with a request
// seen since the last drain, or owed. What was seen and not reported
// (a document, an image, a script) is forgotten: the page reports a
// request before it sends it, so a later list cannot name it.
func (l *sentLedger) reported(urls []string, now time.Time) {
	for _, u := range urls {
		if l.seen[u] > 0 {
			l.seen[u]--
			continue
		}
		if l.owed == nil {
			l.owed = map[string]int{}
		}
		if l.owedN == 0 {
			l.since = now
		}
		l.owed[u]++
		l.owedN++
	}
	clear(l.seen)
}

// owes reports whether a reported request is still awaited at now; one
// awaited longer than owedWait is given up on.
func (l *sentLedger) owes(now time.Time) bool {
	if l.owedN > 0 && now.Sub(l.since) >= owedWait {
		clear(l.owed)
		l.owedN = 0
	}
	return l.owedN > 0
}

// drainSent takes the page's list of requests sent since the last drain
// and matches it with the requests seen. It reports whether some are
// still awaited. A page that cannot answer because its document is
// being replaced (a script's reload that began after the network went
// quiet) counts as network activity: the caller waits a quiet window
// more, in which the new document's request is seen. A closed page owes
// nothing.
func (s *Session) drainSent(ctx context.Context) bool {
	var v any
	err := s.call(ctx, "reading the page's requests", func() (e error) {
		v, e = s.page.Evaluate("() => " + takeSentJS)
		return e
	})
	list, _ := v.([]any)
	urls := make([]string, 0, len(list))
	for _, item := range list {
		if u, ok := item.(string); ok {
			urls = append(urls, u)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == nil:
		s.sent.reported(urls, time.Now())
	case ctx.Err() == nil && !s.crashed && replaced(err):
		s.lastBusy = time.Now()
		return true
	}
	return s.sent.owes(time.Now())
}

// replaced reports whether a failed evaluation failed because the page's
// document went away under it, not the page, its context or the session.
func replaced(err error) bool {
	var ae *ActionError
	return !errors.Is(err, playwright.ErrTargetClosed) && !errors.Is(err, ErrSessionClosed) && !errors.As(err, &ae)
}

// awaitSent matches the requests the observation's evaluation took from
// the page's list and waits, owedWait at most, for those not seen yet:
// sent before the page was read, they are the step's.
func (s *Session) awaitSent(ctx context.Context, urls []string) {
	s.mu.Lock()
	s.sent.reported(urls, time.Now())
	s.mu.Unlock()
	for {
		s.mu.Lock()
		owes := s.sent.owes(time.Now())
		s.mu.Unlock()
		if !owes || ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}
