// Package rerun re-runs a recorded search and compares its decisions
// with the original's.
//
// A rerun executes the orchestration again (forks, scores, prunes, the
// winner) with every page served from the run's recorded network
// (replay.World) and every model question answered from its cassette. In
// full mode it must reproduce the recorded decisions exactly; in hybrid
// mode the current planner (new code, another weight, a live model) runs
// against the recorded world and the comparison says what it decided
// differently. A swap replaces one recorded response first, for a
// counterfactual: what would the search and the commit's preflight have
// done had the site answered that instead.
//
// Decisions name branches by plan digest, so two runs compare whatever
// their branch ids.
package rerun
