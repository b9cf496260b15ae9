// Package scoring holds the goal predicates of a task, the score vector of
// a branch, its scalarization J, and the deterministic winner order.
//
// Everything here is a pure function of its inputs: no clock, no global
// randomness, no I/O. The browser gathers Facts about a page by answering
// the Probes a predicate asks; Eval turns facts into truth. Winner order is
// total: higher J, lower cost, fewer steps, then plan digest, then branch id.
package scoring
