package browser_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// hangSession opens a session with a short action timeout on a site whose
// /docs never answers.
func hangSession(t *testing.T) (*browser.Session, string) {
	t.Helper()
	srv := vendor(t, sites.Knobs{HangPaths: []string{"/docs"}})
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 2 * time.Second}, RunSeed: 1, Origin: srv.URL})
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	return s, srv.URL
}

// A click into a page that never answers fails the step within its
// watchdog limit, the navigation is abandoned so the observation after it
// answers on the page the click started from, and the session closes.
func TestHangingNavigationIsBounded(t *testing.T) {
	s, home := hangSession(t)
	const limit = 3*2*time.Second + 5*time.Second
	t0 := time.Now()
	r := do(t, s, click("nav-docs"))
	if took := time.Since(t0); took > limit+2*time.Second {
		t.Fatalf("the click into a hanging page took %s (limit %s)", took, limit)
	}
	switch {
	case r.Status != branch.StatusFailed:
		t.Fatalf("click into a hanging page: %+v, want a failed step", r)
	case r.Code != branch.CodeTimeout && r.Code != branch.CodeNavigationTimeout && r.Code != branch.CodeUnresponsive:
		t.Fatalf("click into a hanging page failed with %s (%s), want a timeout code", r.Code, r.Error)
	}
	t0 = time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := s.Observe(context.Background(), browser.ObserveSpec{Text: true, Screenshot: true, Store: true})
		done <- err
	}()
	select {
	case err := <-done:
		// The abandoned navigation leaves the page it started from.
		if err != nil {
			t.Fatalf("observing after an abandoned navigation: %v", err)
		}
		if s.URL() != home+"/" {
			t.Fatalf("after the abandoned navigation the page is %s, want %s/", s.URL(), home)
		}
	case <-time.After(2*2*time.Second + 5*time.Second + 10*time.Second):
		t.Fatalf("observing a hanging page did not return after %s", time.Since(t0))
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(15 * time.Second):
		t.Fatal("closing a session on a hanging page did not return")
	}
}

// Cancelling the context cuts a step short however the page behaves.
func TestCancelAbortsHangingStep(t *testing.T) {
	s, _ := hangSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := s.Do(ctx, click("nav-docs"), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a step whose context ended: %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(t0); took > 5*time.Second {
		t.Fatalf("the cancelled step returned after %s", took)
	}
	if !s.Aborted() {
		t.Fatal("the session of a cancelled step is not aborted")
	}
	if _, err := s.Do(context.Background(), click("nav-docs"), nil); !errors.Is(err, browser.ErrSessionClosed) {
		t.Fatalf("a step on an aborted session: %v, want ErrSessionClosed", err)
	}
}

// A renderer stuck in a script answers nothing, not even the page clock:
// the step's watchdog closes the context and fails the step with
// page_unresponsive instead of waiting forever, and the session refuses
// further work.
func TestWatchdogFailsStuckRenderer(t *testing.T) {
	s, _ := hangSession(t)
	const limit = 3*2*time.Second + 5*time.Second
	t0 := time.Now()
	done := make(chan branch.StepResult, 1)
	go func() {
		done <- do(t, s, branch.Action{Kind: branch.KindEval, Value: `setTimeout(() => { for (;;) {} }, 0)`})
	}()
	select {
	case r := <-done:
		if r.Status != branch.StatusFailed || r.Code != branch.CodeUnresponsive {
			t.Fatalf("a step into a stuck renderer: %s %s (%s), want failed page_unresponsive", r.Status, r.Code, r.Error)
		}
		if took := time.Since(t0); took < limit {
			t.Fatalf("the watchdog fired after %s, before its limit %s", took, limit)
		}
	case <-time.After(limit + 15*time.Second):
		t.Fatalf("a step into a stuck renderer did not return after %s", time.Since(t0))
	}
	if !s.Aborted() {
		t.Fatal("the session of a stuck renderer is not aborted")
	}
	if _, err := s.Observe(context.Background(), browser.ObserveSpec{}); !errors.Is(err, browser.ErrSessionClosed) {
		t.Fatalf("observing an aborted session: %v, want ErrSessionClosed", err)
	}
}

// A click into a redirect loop lands on Chromium's error page: the step
// fails with page_error and the network error, instead of passing as a
// successful step on an empty page.
func TestRedirectLoopFailsStep(t *testing.T) {
	srv := vendor(t, sites.Knobs{RedirectLoop: true})
	s := session(t, srv.URL, 1)
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	r := do(t, s, click("nav-pricing"))
	if r.Status != branch.StatusFailed || r.Code != branch.CodePageError || !strings.Contains(r.Error, "ERR_TOO_MANY_REDIRECTS") {
		t.Fatalf("click into a redirect loop: %s %s (%s), want failed page_error with ERR_TOO_MANY_REDIRECTS", r.Status, r.Code, r.Error)
	}
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"}); r.Status == branch.StatusFailed {
		t.Fatalf("the session is unusable after a redirect loop: %s %s (%s)", r.Status, r.Code, r.Error)
	}
}
