// Package planner decides what Multiverse tries next. A Proposer ranks the
// affordances of an observed page against the task (goal text, inputs,
// risk patterns) and turns the best into candidate actions; a Search keeps
// the frontier of branches, selects each wave of branches to execute with
// a dynamic-width beam and forced diversification, applies the pruning
// rules, and names the winner.
//
// Determinism: nothing here reads a clock or global randomness. Results of
// a wave are folded in plan-digest order, not arrival order, so the same
// observations always produce the same forks, prunes and winner. Branch
// ids come from an injected generator.
//
// Safety: the proposer never proposes the task's commit action, an action
// whose target matches a risk pattern, or a navigation to a guarded URL.
package planner
