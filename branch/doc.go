// Package branch holds the vocabulary every plane of Multiverse shares about
// a branch: the actions of a plan, their targets, the plan digest and seed
// derivation, and the job and result messages that carry a branch between
// the orchestrator and the workers that execute it.
//
// Invariants:
//   - A plan is immutable once forked; children extend a copy.
//   - PlanDigest is a pure function of the task digest and the canonical
//     form of the actions (kind, semantic target strategies, url, value,
//     input name). Geometry (bounding boxes) and labels are excluded so that
//     the digest names what the plan does, not how the page was laid out.
//   - Seeds are pure functions of the run seed and the plan digest: the same
//     plan gets the same seed in every run.
//   - Job and Result are versioned wire formats (WireVersion); a reader
//     refuses versions it does not know.
package branch
