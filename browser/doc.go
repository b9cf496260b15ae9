// Package browser is the Playwright runtime of Multiverse: it finds a
// Chromium and the Playwright driver, launches one browser per runtime, and
// gives every branch a Session: an isolated BrowserContext with a frozen
// environment (viewport, scale factor, locale, time zone, user agent,
// reduced motion, service workers off), a pinned page clock that advances
// only at step boundaries, and seeded Math.random, crypto.getRandomValues
// and performance.now. A session executes actions, waits for the page to
// settle, and observes: URL, title, canonical DOM and accessibility hashes,
// a network digest, a screenshot stored by hash, predicate answers, dead-end
// detector hits and affordances.
//
// Determinism contract: given the same Env, run seed and action sequence
// against the same responses, a session reaches the same strict hashes
// whether it executed the actions in one go or continued from a prefix.
// The page PRNG is seeded per document from the run seed and the document
// path, and the clock advances by Env.StepAdvance after every action.
//
// Speculation is read-only: requests matching a session's Guard patterns
// are blocked and recorded, never sent.
//
// Hostile pages cannot hold a worker: every step, observation and page call
// runs under a watchdog that closes the session's context when the caller's
// context ends or the call's limit (a few action timeouts) passes, failing
// it with page_unresponsive; a navigation that outlives its timeout is
// stopped so the page stays observable, and a step that lands on Chromium's
// error page (a redirect loop) fails with page_error.
//
// Headless runs prefer Chromium's headless shell when it is installed: the
// same engine at about a third of the full browser's CPU per branch
// (BenchmarkBuild).
package browser
