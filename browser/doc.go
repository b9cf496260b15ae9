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
package browser
