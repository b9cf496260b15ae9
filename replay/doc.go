// Package replay turns a run's records into portable bundles and replays
// them: Build assembles the bundle of any branch (or of the commit) from the
// event log and the artifact store; Replay re-runs a bundle in a fresh
// browser with the same seeds, clock and environment, serving the recorded
// responses back through a local proxy (unrecorded requests are blocked and
// reported; with FailOnUnrecorded a request new to the recording fails the
// replay), re-applies the actions and compares the strict hashes (DOM,
// accessibility tree, network digest) step by step. It reports RSR (the
// share of steps whose strict hashes all match), DVR = 1 - RSR, TTD (the
// first diverging step) and a readable diff at the divergence. Live mode
// runs the same manifest against the live site but never performs a side
// effect: guarded requests are blocked, and a commit bundle stops at the
// commit boundary, before the committer's steps. Analyze recomputes scores
// from recorded observations and checks the same branch still wins.
// PickForFailure picks, from a failed run's events, the branches worth a
// bundle: the best scored one and those that ended in a failure.
//
// World serves a whole run's recordings to a new search (a rerun): each
// branch session gets a proxy answering from the bundle of the recorded
// branch with the same plan, or of its longest recorded prefix and then
// from the responses the run recorded for the same request when they all
// agree; Swaps replace recorded responses for a counterfactual rerun, and
// what nothing answers is refused and listed as a Miss. A world, like a
// strict replay, never dials out.
//
// Hashes are over scrubbed canonical forms, and scrubbing is idempotent:
// the bundle holds no personal data or secrets, the replay types the
// tokens the recorded pages show, and both sides hash the same text.
package replay
