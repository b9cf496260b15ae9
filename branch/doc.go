// Package branch holds the vocabulary every plane of Multiverse shares about
// a branch: the actions of a plan, their targets, the plan digest and seed
// derivation, what a step observed, how an executed step ended (its status
// and result code), and the site cookies a branch starts from. It imports
// nothing of Multiverse, so every plane (the planner, the browser, the
// simulated web, the committer) can share it.
//
// Invariants:
//   - A plan is immutable once forked; children extend a copy.
//   - PlanDigest is a pure function of the task digest and the canonical
//     form of the actions (kind, semantic target strategies, url, value,
//     input name). Geometry (bounding boxes) and labels are excluded so that
//     the digest names what the plan does, not how the page was laid out.
//   - Seeds are pure functions of the run seed and the plan digest: the same
//     plan gets the same seed in every run.
//   - Result codes (Code), statuses, element kinds (ElementKind) and
//     regions (Region) are stable strings: they cross process boundaries
//     and are recorded in event logs and bundles, so one is never
//     renamed, only added.
package branch
