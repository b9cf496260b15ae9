package orchestrator

import (
	"encoding/json"
	"time"

	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Summary describes a finished run, for people and for --json. As JSON
// its durations are whole milliseconds (elapsed_ms, explore_ms, cpu_ms,
// explore_cpu_ms), as every --json of the CLI writes them.
type Summary struct {
	RunID      string `json:"run_id"`
	Task       string `json:"task"`
	TaskDigest string `json:"task_digest"`
	Seed       uint64 `json:"seed"`
	// NoCommit marks a task without commit: it ends at its goal.
	NoCommit bool          `json:"no_commit,omitempty"`
	Status   string        `json:"status"` // committed, existing, recovered, goal_reached, explored, no_boundary, goal_failed, aborted, failed
	Error    string        `json:"error,omitempty"`
	Elapsed  time.Duration `json:"-"`
	// Explore is the time the search took, from the first job to the
	// winners.
	Explore  time.Duration `json:"-"`
	Workers  int           `json:"workers"`
	Waves    int           `json:"waves"`
	Branches BranchCounts  `json:"branches"`
	// Pruned counts pruned or failed branches by rule.
	Pruned map[string]int `json:"pruned_by_rule,omitempty"`
	// Explored lists the plan digests of every branch the search
	// executed, sorted (the tries of plan minimization are not the
	// search's: Branches counts them).
	Explored []string `json:"explored_plan_digests"`
	Winner   *Winner  `json:"winner,omitempty"`
	// Extract holds the values a task without commit reads from the
	// winner's final page (scrubbed), by field name.
	Extract map[string]string `json:"extract,omitempty"`
	Commit  *CommitInfo       `json:"commit,omitempty"`
	// Cache says how the run used the plan cache, nil when it found no
	// plan and stored none.
	Cache *CacheInfo `json:"plan_cache,omitempty"`
	// Learning says which version of the site's record the search read
	// (package learn) and which the run wrote, nil when it learned
	// nothing (search.learning: false).
	Learning *LearningInfo `json:"learning,omitempty"`
	// Minimal is the shortest plan that ends as the winner's did, nil
	// when the run did not minimize.
	Minimal *MinimalInfo `json:"minimal_plan,omitempty"`
	// Model counts a model planner's questions; nil for the heuristic
	// planner.
	Model *ModelInfo `json:"model,omitempty"`
	Spent float64    `json:"cost_spent"`
	Paths Paths      `json:"paths"`
	// Warm counts branches that continued their parent's live context
	// instead of replaying the prefix; Actions counts every action the
	// workers executed, replays included.
	Warm    int `json:"warm_branches"`
	Actions int `json:"actions_executed"`
	// Routed counts jobs sent to the worker holding their parent's live
	// context; Rerouted those of them withdrawn and queued for any worker
	// because that worker did not take them within the route wait.
	Routed   int `json:"routed_jobs"`
	Rerouted int `json:"rerouted_jobs"`
	// Timing is where branch time went, mean milliseconds per executed
	// branch, as the workers measured it.
	Timing TimingSummary `json:"timing"`
	// CPU is this process's CPU time (user + system) for the run: the
	// orchestrator's own cost, plus in-process workers' Go side.
	CPU time.Duration `json:"-"`
	// ExploreCPU is the part of CPU spent exploring (setup and commit
	// excluded).
	ExploreCPU time.Duration `json:"-"`
	// DriverCPU and BrowserCPU are the run's CPU time in the Playwright
	// driver and in Chromium's processes, read from /proc before the
	// browser closed (0 where there is no /proc): with CPU, the run's
	// whole process tree.
	DriverCPU, BrowserCPU time.Duration `json:"-"`
	// BrowserCPUByType splits BrowserCPU by Chromium's process type
	// (proctree.CPU.BrowserByType), in ms.
	BrowserCPUByType map[string]int64 `json:"browser_cpu_ms_by_type,omitempty"`
	// MaxConcurrent is the largest number of branches whose action spans
	// overlapped in time.
	MaxConcurrent int `json:"max_concurrent_branches"`
	// Held lists the requests speculation held, most branches first.
	Held []HeldSummary `json:"held,omitempty"`
	// SideEffects lists branches that ended at a side-effect boundary,
	// the ones matching the goal first.
	SideEffects []SideEffectSummary `json:"side_effects,omitempty"`
}

// TimingSummary holds mean per-branch timings in milliseconds.
type TimingSummary struct {
	ContextMS float64 `json:"context_ms"`
	PrefixMS  float64 `json:"prefix_ms"`
	ActionMS  float64 `json:"action_ms"`
	ObserveMS float64 `json:"observe_ms"`
	TotalMS   float64 `json:"total_ms"`
}

// BranchCounts counts branches by how they ended.
type BranchCounts struct {
	Forked   int `json:"forked"`
	Executed int `json:"executed"`
	Explored int `json:"explored"`
	Boundary int `json:"boundary"`
	Pruned   int `json:"pruned"`
	Failed   int `json:"failed"`
}

// Winner is the committed branch.
type Winner struct {
	BranchID   string         `json:"branch_id"`
	PlanDigest string         `json:"plan_digest"`
	Steps      []string       `json:"steps"`
	Score      scoring.Vector `json:"score"`
}

// CommitInfo is the ledger's view of the commit.
type CommitInfo struct {
	EntryID   string            `json:"entry_id"`
	Key       string            `json:"idempotency_key"`
	State     string            `json:"state"`
	OrderID   string            `json:"order_id,omitempty"`
	Existing  bool              `json:"existing"`
	Recovered bool              `json:"recovered,omitempty"`
	Artifacts map[string]string `json:"artifacts,omitempty"`
	Skipped   []string          `json:"skipped_candidates,omitempty"`
	Changes   []string          `json:"changes_since_exploration,omitempty"`
	Error     string            `json:"error,omitempty"`
	// PostcheckFailed names the commit.postcheck predicates the confirmed
	// order failed; CompensationKey is the undo's key when it ran (State
	// then says compensated or compensation_failed).
	PostcheckFailed []string `json:"postcheck_failed,omitempty"`
	CompensationKey string   `json:"compensation_key,omitempty"`
}

// Paths says where the run's records are.
type Paths struct {
	DataDir   string `json:"data_dir"`
	Events    string `json:"events"`
	Ledger    string `json:"ledger"`
	Artifacts string `json:"artifacts"`
	NATS      string `json:"nats,omitempty"`
	// Bundle is the commit bundle sealed after a commit, or the winner's
	// branch bundle of a task without commit.
	Bundle string `json:"bundle,omitempty"`
	// FailureBundleDir holds the bundles a run that ended in an error
	// handed over (Config.FailureBundles): bundles/RUN_ID/ in the data
	// dir.
	FailureBundleDir string `json:"failure_bundle_dir,omitempty"`
	// FailureBundles lists them, the best branch first, including those
	// that could not be written (with their error).
	FailureBundles []FailureBundle `json:"failure_bundles,omitempty"`
}

// FailureBundle is a bundle a run that ended in an error handed over: the
// branch and why it was picked, where its bundle is and the command that
// replays it, or why it could not be written.
type FailureBundle struct {
	replay.Pick
	Path string `json:"path,omitempty"`
	// Replay is the command that replays the bundle strictly.
	Replay string `json:"replay,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ModelInfo counts the questions a model planner asked (Mode: live,
// record or replay): Answered with a ranking the search followed,
// FellBack where the heuristic's order stood instead (an answer that is
// not a ranking of the menu, or, with planner.fallback: heuristic, no
// answer); Unanswered counts the questions of FellBack the endpoint gave
// no answer to. A question that stopped the run is neither.
type ModelInfo struct {
	Mode       string `json:"mode"`
	Asked      int    `json:"asked"`
	Answered   int    `json:"answered"`
	FellBack   int    `json:"fell_back"`
	Unanswered int    `json:"unanswered"`
}

// CacheInfo is the run's use of the plan cache: a plan of Steps steps
// found (From names its run and branch), how many steps matched what it
// recorded, where it diverged and why, and whether the winner's plan was
// stored.
type CacheInfo struct {
	Hit        bool   `json:"hit"`
	From       string `json:"from,omitempty"`
	Steps      int    `json:"steps,omitempty"`
	Followed   int    `json:"followed"`
	DivergedAt int    `json:"diverged_at,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Stored     bool   `json:"stored"`
	File       string `json:"file,omitempty"`
}

// LearningInfo is which version of the site's record a run's search read
// (Steps steps measured in it; Pinned when the run was given it, as a
// rerun is), the stall limit the search calibrated to it (0 when it read
// nothing yet), and the version the run wrote (0 when it wrote none).
type LearningInfo struct {
	Version    int  `json:"version"`
	Steps      int  `json:"steps"`
	Pinned     bool `json:"pinned,omitempty"`
	StallLimit int  `json:"stall_limit,omitempty"`
	Wrote      int  `json:"wrote,omitempty"`
}

// summaryFields is Summary without its methods (no JSON recursion).
type summaryFields Summary

// summaryJSON is a Summary as JSON.
type summaryJSON struct {
	summaryFields
	ElapsedMS    int64 `json:"elapsed_ms"`
	ExploreMS    int64 `json:"explore_ms"`
	CPUMS        int64 `json:"cpu_ms"`
	ExploreCPUMS int64 `json:"explore_cpu_ms"`
	DriverCPUMS  int64 `json:"driver_cpu_ms"`
	BrowserCPUMS int64 `json:"browser_cpu_ms"`
}

// MarshalJSON writes the summary with its durations in milliseconds.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(summaryJSON{summaryFields: summaryFields(s), ElapsedMS: s.Elapsed.Milliseconds(), ExploreMS: s.Explore.Milliseconds(),
		CPUMS: s.CPU.Milliseconds(), ExploreCPUMS: s.ExploreCPU.Milliseconds(), DriverCPUMS: s.DriverCPU.Milliseconds(), BrowserCPUMS: s.BrowserCPU.Milliseconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary(j.summaryFields)
	s.Elapsed, s.Explore = time.Duration(j.ElapsedMS)*time.Millisecond, time.Duration(j.ExploreMS)*time.Millisecond
	s.CPU, s.ExploreCPU = time.Duration(j.CPUMS)*time.Millisecond, time.Duration(j.ExploreCPUMS)*time.Millisecond
	s.DriverCPU, s.BrowserCPU = time.Duration(j.DriverCPUMS)*time.Millisecond, time.Duration(j.BrowserCPUMS)*time.Millisecond
	return nil
}
