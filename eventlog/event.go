package eventlog

import (
	"encoding/json"
	"time"
)

// Event is one entry of a run's log. The JSON form (tags below) is the form
// of events.jsonl in bundles and of the CLI's --json output.
type Event struct {
	// RunID names the run (a ULID). Required.
	RunID string `json:"run_id"`
	// Seq is the 1-based, dense position of the event in its run, assigned
	// by Append.
	Seq int64 `json:"seq"`
	// Time is the wall time the thing happened, set by the caller; Append
	// uses the current time if it is zero and stores it in UTC.
	Time time.Time `json:"time"`
	// VirtualTime is the branch's pinned page clock in milliseconds, 0 when
	// not applicable.
	VirtualTime int64 `json:"virtual_time_ms"`
	// Kind says what happened, one of the Kind constants or a newer kind.
	// Required.
	Kind string `json:"kind"`
	// BranchID names the branch the event concerns, if any.
	BranchID string `json:"branch_id,omitempty"`
	// TraceID is the W3C trace id (32 lowercase hex digits), if any.
	TraceID string `json:"trace_id,omitempty"`
	// SpanID is the W3C span id (16 lowercase hex digits), if any.
	SpanID string `json:"span_id,omitempty"`
	// ParentSpanID is the W3C id of the parent span, if any.
	ParentSpanID string `json:"parent_span_id,omitempty"`
	// Payload is the kind-specific body, a JSON value, stored canonicalized.
	Payload json.RawMessage `json:"payload,omitempty"`
	// Artifacts lists digests of artifacts the event references.
	Artifacts []string `json:"artifacts,omitempty"`
	// PrevHash is the Hash of the previous event of the run, or
	// Genesis(RunID) for Seq 1. Assigned by Append.
	PrevHash string `json:"prev_hash"`
	// Hash commits to this event and, through PrevHash, to every earlier
	// one. Assigned by Append; see the package documentation.
	Hash string `json:"hash"`
}

// Event kinds, one constant for every kind a writer in this module
// appends (the orchestrator, the committer). The list is open: Append
// accepts any non-empty kind, so newer kinds do not need a schema change.
// Payloads that are read back have a typed struct in package
// eventlog/payload; the others are free-form objects.
const (
	// The run.
	KindRunStart = "run_start" // run manifest: task digest, versions, environment, seeds, budgets
	KindRunEnd   = "run_end"   // the run finished
	KindError    = "error"     // something failed; "where" says what

	// The search.
	KindBranchFork   = "branch_fork"   // a child branch was created from a parent
	KindMetricUpdate = "metric_update" // a branch's score vector changed
	KindBranchPruned = "branch_pruned" // a branch was cut, with the reason
	KindBeamWidth    = "beam_width"    // the beam search changed its width
	KindBudgetDebit  = "budget_debit"  // a budget was charged
	KindGoalReached  = "goal_reached"  // a branch reached the goal
	KindWinner       = "winner"        // the winner ranking of the branches at the boundary
	KindBranchAgain  = "branch_again"  // a branch is run again (it landed on the login page)
	KindPlanCache    = "plan_cache"    // the cached plan was found, followed a step, diverged, or was stored
	KindLLMRequest   = "llm_request"   // the planner asked a language model to rank a page's candidates
	KindLLMResponse  = "llm_response"  // the model's answer (or why the heuristic's order stood)
	KindAblation     = "ablation"      // the winner's plan was tried without some of its steps
	KindMinimalPlan  = "minimal_plan"  // the shortest plan that ends as the winner did

	// What a worker did for a branch.
	KindActionStart        = "action_start"         // a worker began an action
	KindActionEnd          = "action_end"           // an action finished (status, duration, error code)
	KindNav                = "nav"                  // the page navigated
	KindDOMSnapshot        = "dom_snapshot"         // a canonical DOM / AX tree was captured
	KindNet                = "net"                  // a request/response pair was captured
	KindGuardBlocked       = "guard_blocked"        // the guard blocked a request the branch made (logs before request_held)
	KindRequestHeld        = "request_held"         // speculation held a request that could change the site
	KindSideEffect         = "side_effect_boundary" // a branch's action asked for a held request: the branch ends there
	KindUnsupportedTraffic = "unsupported_traffic"  // traffic the recorder cannot capture (a websocket, say)

	// Dispatch.
	KindStaleResult     = "stale_result"     // a result of an older attempt, or of a branch already folded
	KindDuplicateResult = "duplicate_result" // a result delivered again

	// The scripted login.
	KindLoginStart = "login_start" // the login began
	KindLoginStep  = "login_step"  // a login step ran
	KindLoginEnd   = "login_end"   // the login finished
	KindStartState = "start_state" // the browser state (cookies, local storage) branches start from

	// The commit.
	KindRecovery           = "recovery"            // a pending intent of an earlier run was looked at
	KindCommitSkip         = "commit_skip"         // a winner was passed over (its preflight failed)
	KindCommitStart        = "commit_start"        // the committer took over
	KindSnapshotChanged    = "snapshot_changed"    // the commit intent read at preflight differs from the branch's
	KindPreconditionFailed = "precondition_failed" // a commit precondition no longer holds
	KindCommitRefused      = "commit_refused"      // the committer refused to commit
	KindCommitAction       = "commit_action"       // the commit action ran
	KindCommitUncertain    = "commit_uncertain"    // the outcome of the commit action is unknown
	KindLedger             = "ledger"              // a commit ledger row changed
	KindCommitEnd          = "commit_end"          // the commit finished (committed, aborted, failed)
	KindPostcheck          = "postcheck"           // the commit's post-checks were evaluated on the confirmed order
	KindBundle             = "bundle"              // a replay bundle was written
)
