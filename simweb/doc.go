// Package simweb is the simulated web of Multiverse: seeded, generated
// vendor sites on which the planner's search strategies are evaluated
// fast, without a browser, and deterministically.
//
// Generate builds a site from a seed: a start page, one to four routes to
// a pricing hub (nav, footer, a menu, a search, a product page), plans, a
// checkout whose fields match the task's inputs among distractors, a
// review page that is the commit boundary, dead ends (contact sales,
// captcha, 404, docs clusters that loop), paid links, and on trap sites
// traps: links whose names carry the goal's words and lead into regions
// that even satisfy an early milestone but have no route to the boundary.
// Site.Task writes the site's task file and parses it with task.Parse.
//
// Site.Execute replays a plan as the browser worker would and returns a
// job.Result of the same shape; Executor serves jobs over the bus so an
// orchestrator run can use the simulated web instead of Chromium. Evaluate
// drives planner.Search in memory on a simulated clock with simulated
// workers, and Table compares strategies.
//
// Invariants:
//   - Everything is a pure function of its inputs: Generate of (seed,
//     config), Execute of (site, plan, spec), Evaluate of (site, strategy,
//     options). No wall clock, no global randomness, no map iteration
//     order leaks into a result. The simulated clock starts at the spec's
//     pinned clock.
//   - Sites are immutable after Generate and safe for concurrent use;
//     every execution works on its own copy of the page state.
//   - The boundary of every generated site is reachable from its start
//     page (Site.Solution is such a plan); trap regions and dead ends have
//     no route to it; dead-end pages fire one of scoring's default
//     detectors and live pages fire none.
//   - On a trap site, at each page named in TrapSteps the link the
//     planner's proposer ranks first is a trap.
//   - Execute never fails: what the site cannot do is a failed result
//     with the browser's result codes (branch.Code*). Guarded requests (the order POST)
//     are blocked and reported, never performed.
package simweb
